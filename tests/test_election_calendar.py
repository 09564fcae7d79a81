"""Village Law § 15-104 and the 9-902 dates that depend on it."""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline.election_calendar import (
    general_village_election,
    notices,
    objection_deadline,
    proposition_election,
    third_tuesday_of_march,
)

D = dt.date


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
    Tuesday of March'; (3)(a) four months, (3)(b) sixty days, (3)(c) ten days, (4) one day."""
    n = notices(D(2026, 3, 18), computed_from=third_tuesday_of_march(2026))
    assert n.offices_notice_by == D(2025, 11, 17)
    assert n.polling_resolution_by == D(2026, 1, 16)
    assert n.election_notice_by == D(2026, 3, 7)
    assert n.posting_by == D(2026, 3, 16)
    # four months before June 30 is the last day of February
    assert notices(D(2026, 6, 30)).offices_notice_by == D(2026, 2, 28)


def test_objection_window_is_five_days_after_filing():
    """9-902(9): 'within five days after the filing'."""
    assert objection_deadline(D(2026, 10, 9)) == D(2026, 10, 14)


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
