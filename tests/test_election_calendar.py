"""Village Law § 15-104 and the 9-902 dates that depend on it, with General Construction Law
§ 25-a's extension where it applies."""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline.election_calendar import (
    filing_deadline,
    general_village_election,
    notices,
    objection_deadline,
    proposition_election,
    referendum_filing_window,
    third_tuesday_of_march,
)
from pipeline.holidays import HolidayCalendar

D = dt.date
CAL = HolidayCalendar()


@pytest.mark.parametrize(
    "year,tuesday,election",
    [
        (2026, D(2026, 3, 17), D(2026, 3, 18)),  # 15-104(1)(b): the 17th is the third Tuesday
        (2025, D(2025, 3, 18), D(2025, 3, 18)),  # 15-104(1)(a)
        (2027, D(2027, 3, 16), D(2027, 3, 16)),
        (2020, D(2020, 3, 17), D(2020, 3, 18)),
        (2024, D(2024, 3, 19), D(2024, 3, 19)),
    ],
)
def test_general_village_election(year, tuesday, election):
    assert third_tuesday_of_march(year) == tuesday
    assert general_village_election(year) == election


def test_a_village_with_its_own_date():
    """15-104(1)(a): 'except in any village which ... elects its officers on a date other'."""
    assert general_village_election(2026, D(2026, 6, 16)) == D(2026, 6, 16)
    with pytest.raises(ValueError):
        general_village_election(2026, D(2027, 6, 15))


def test_notices_are_computed_from_the_third_tuesday_when_moved_to_the_18th():
    """15-104(1)(b): the political calendar 'shall continue to be computed from the third
    Tuesday of March'; (3)(a) four months, (3)(b) sixty days, (3)(c) ten days, (4) one day.
    Periods "before which" an act is required: General Construction Law § 25-a moves a counted
    day on a Saturday to the Monday, and the counted day (the full notice) is kept."""
    n = notices(D(2026, 3, 18), CAL, computed_from=third_tuesday_of_march(2026))
    assert n.offices_notice_by.last_day == D(2025, 11, 17)
    assert n.polling_resolution_by.last_day == D(2026, 1, 16)
    assert n.election_notice_by.counted == D(2026, 3, 7)  # a Saturday
    assert n.election_notice_by.last_day == D(2026, 3, 9)
    assert n.posting_by.last_day == D(2026, 3, 16)
    # four months before June 30 is the last day of February (2026-02-28, a Saturday)
    assert notices(D(2026, 6, 30), CAL).offices_notice_by.counted == D(2026, 2, 28)


# 9-902(1) "within thirty days after its adoption" and 9-902(9) "within five days after the
# filing", each extended by General Construction Law § 25-a when the last day "ends on a
# Saturday, Sunday or a public holiday": (the period's last day as counted, the last day).
LAST_DAYS = [
    pytest.param(D(2026, 10, 14), D(2026, 10, 14), id="weekday"),
    pytest.param(D(2026, 5, 30), D(2026, 6, 1), id="saturday"),
    pytest.param(D(2026, 5, 31), D(2026, 6, 1), id="sunday"),
    pytest.param(D(2026, 5, 25), D(2026, 5, 26), id="memorial-day"),
    pytest.param(D(2027, 7, 5), D(2027, 7, 6), id="sunday-holiday-moved-to-monday"),
    pytest.param(D(2026, 7, 3), D(2026, 7, 3), id="friday-before-july-4-on-a-saturday"),
    pytest.param(D(2026, 7, 4), D(2026, 7, 6), id="july-4-on-a-saturday-not-moved"),
    pytest.param(D(2026, 11, 3), D(2026, 11, 4), id="general-election-day"),
]


@pytest.mark.parametrize("counted,last_day", LAST_DAYS)
@pytest.mark.parametrize(
    "deadline_of,days",
    [
        pytest.param(filing_deadline, 30, id="9-902(1)-filing"),
        pytest.param(objection_deadline, 5, id="9-902(9)-objection"),
    ],
)
def test_last_day_to_file_or_to_object(deadline_of, days, counted, last_day):
    """9-902(1) and (9) with General Construction Law § 25-a; the day after the last day is late."""
    start = counted - dt.timedelta(days=days)  # the adoption, or the filing
    deadline = deadline_of(start, CAL)
    assert (deadline.counted, deadline.last_day) == (counted, last_day)
    assert deadline.allows(last_day) and not deadline.allows(last_day + dt.timedelta(days=1))


def test_referendum_filing_window_runs_through_the_extended_last_day():
    """9-902(1): from the day after adoption; the thirtieth, 2026-05-31, is a Sunday."""
    assert referendum_filing_window(D(2026, 5, 1), CAL) == (D(2026, 5, 2), D(2026, 6, 1))


def test_objection_window_is_five_days_after_filing():
    """9-902(9): 'within five days after the filing'."""
    assert objection_deadline(D(2026, 10, 9), CAL).last_day == D(2026, 10, 14)


@pytest.mark.parametrize(
    "filed,next_general,kind,clause",
    [
        (D(2026, 10, 9), D(2027, 3, 16), "special", "9-902(5)"),
        (D(2026, 12, 31), D(2027, 3, 16), "special", "9-902(5)"),
        (D(2027, 1, 1), D(2027, 3, 16), "general", "9-902(6)"),  # first day, two months prior
        (D(2027, 3, 1), D(2027, 3, 16), "general", "9-902(6)"),  # first day of the month
        (D(2027, 3, 2), D(2027, 3, 16), "special", "9-902(5)"),
    ],
)
def test_where_the_proposition_goes(filed, next_general, kind, clause):
    p = proposition_election(filed, next_general)
    assert p.kind == kind and p.citation.endswith(clause)
    if kind == "special":  # 'not less than ten nor more than sixty days after the filing'
        assert (p.earliest - filed).days == 10 and (p.latest - filed).days == 60
    else:
        assert p.earliest == p.latest == next_general


def test_the_special_election_window_is_not_extended():
    """9-902(5): "not less than ten nor more than sixty days after the filing" bounds the day an
    election is held, not a period for an act: the sixtieth day stays, a Sunday or not."""
    filed = D(2026, 4, 1)  # the sixtieth day after, 2026-05-31, is a Sunday
    p = proposition_election(filed, D(2027, 3, 16))
    assert p.latest == D(2026, 5, 31) and p.earliest == D(2026, 4, 11)
