"""General Construction Law § 24 (public holidays) and § 25-a (the next business day), against
dates computed by hand from a printed calendar."""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline.holidays import Deadline, HolidayCalendar, general_election_day, public_holidays

D = dt.date

# § 24 for each year, by hand: (day, name, the Sunday it fell on when moved to the Monday).
HAND = {
    # Juneteenth is not yet on the list (chapter 249 of the laws of 2020, after June 19, 2020);
    # July 4 on a Saturday stays there.
    2020: [
        (D(2020, 1, 1), "New Year's day", None),
        (D(2020, 1, 20), "Dr. Martin Luther King, Jr. day", None),
        (D(2020, 2, 12), "Lincoln's birthday", None),
        (D(2020, 2, 17), "Washington's birthday", None),
        (D(2020, 5, 25), "Memorial day", None),
        (D(2020, 6, 14), "Flag day", None),
        (D(2020, 7, 4), "Independence day", None),
        (D(2020, 9, 7), "Labor day", None),
        (D(2020, 10, 12), "Columbus day", None),
        (D(2020, 11, 3), "general election day", None),
        (D(2020, 11, 11), "Veterans' day", None),
        (D(2020, 11, 26), "Thanksgiving day", None),
        (D(2020, 12, 25), "Christmas day", None),
    ],
    # Juneteenth and Christmas on a Sunday: the Monday; New Year's and Lincoln's on a Saturday:
    # not moved.
    2022: [
        (D(2022, 1, 1), "New Year's day", None),
        (D(2022, 1, 17), "Dr. Martin Luther King, Jr. day", None),
        (D(2022, 2, 12), "Lincoln's birthday", None),
        (D(2022, 2, 21), "Washington's birthday", None),
        (D(2022, 5, 30), "Memorial day", None),
        (D(2022, 6, 12), "Flag day", None),
        (D(2022, 6, 20), "Juneteenth", D(2022, 6, 19)),
        (D(2022, 7, 4), "Independence day", None),
        (D(2022, 9, 5), "Labor day", None),
        (D(2022, 10, 10), "Columbus day", None),
        (D(2022, 11, 8), "general election day", None),
        (D(2022, 11, 11), "Veterans' day", None),
        (D(2022, 11, 24), "Thanksgiving day", None),
        (D(2022, 12, 26), "Christmas day", D(2022, 12, 25)),
    ],
    # New Year's and Lincoln's on a Sunday: the Monday; Veterans' day on a Saturday: not moved.
    2023: [
        (D(2023, 1, 2), "New Year's day", D(2023, 1, 1)),
        (D(2023, 1, 16), "Dr. Martin Luther King, Jr. day", None),
        (D(2023, 2, 13), "Lincoln's birthday", D(2023, 2, 12)),
        (D(2023, 2, 20), "Washington's birthday", None),
        (D(2023, 5, 29), "Memorial day", None),
        (D(2023, 6, 11), "Flag day", None),
        (D(2023, 6, 19), "Juneteenth", None),
        (D(2023, 7, 4), "Independence day", None),
        (D(2023, 9, 4), "Labor day", None),
        (D(2023, 10, 9), "Columbus day", None),
        (D(2023, 11, 7), "general election day", None),
        (D(2023, 11, 11), "Veterans' day", None),
        (D(2023, 11, 23), "Thanksgiving day", None),
        (D(2023, 12, 25), "Christmas day", None),
    ],
    # July 4 on a Saturday: not moved (no Friday holiday); Memorial day the 25th (31st a Sunday).
    2026: [
        (D(2026, 1, 1), "New Year's day", None),
        (D(2026, 1, 19), "Dr. Martin Luther King, Jr. day", None),
        (D(2026, 2, 12), "Lincoln's birthday", None),
        (D(2026, 2, 16), "Washington's birthday", None),
        (D(2026, 5, 25), "Memorial day", None),
        (D(2026, 6, 14), "Flag day", None),
        (D(2026, 6, 19), "Juneteenth", None),
        (D(2026, 7, 4), "Independence day", None),
        (D(2026, 9, 7), "Labor day", None),
        (D(2026, 10, 12), "Columbus day", None),
        (D(2026, 11, 3), "general election day", None),
        (D(2026, 11, 11), "Veterans' day", None),
        (D(2026, 11, 26), "Thanksgiving day", None),
        (D(2026, 12, 25), "Christmas day", None),
    ],
    # July 4 on a Sunday: Monday the 5th; Juneteenth and Christmas on a Saturday: not moved;
    # Memorial day on the 31st itself; the general election on November 2 (the 1st a Monday).
    2027: [
        (D(2027, 1, 1), "New Year's day", None),
        (D(2027, 1, 18), "Dr. Martin Luther King, Jr. day", None),
        (D(2027, 2, 12), "Lincoln's birthday", None),
        (D(2027, 2, 15), "Washington's birthday", None),
        (D(2027, 5, 31), "Memorial day", None),
        (D(2027, 6, 13), "Flag day", None),
        (D(2027, 6, 19), "Juneteenth", None),
        (D(2027, 7, 5), "Independence day", D(2027, 7, 4)),
        (D(2027, 9, 6), "Labor day", None),
        (D(2027, 10, 11), "Columbus day", None),
        (D(2027, 11, 2), "general election day", None),
        (D(2027, 11, 11), "Veterans' day", None),
        (D(2027, 11, 25), "Thanksgiving day", None),
        (D(2027, 12, 25), "Christmas day", None),
    ],
}


@pytest.mark.parametrize("year", sorted(HAND))
def test_public_holidays_against_hand_computed_dates(year):
    """§ 24: the named days "in each year", "if any of such days except Flag day is Sunday, the
    next day thereafter", and "each general election day"."""
    got = [(h.day, h.name, h.sunday) for h in public_holidays(year)]
    assert got == HAND[year]


def test_flag_day_is_never_moved_and_juneteenth_starts_in_2021():
    """§ 24: "except Flag day"; Juneteenth added by chapter 249 of the laws of 2020."""
    for year in range(2000, 2040):
        flag = next(h for h in public_holidays(year) if h.name == "Flag day")
        assert flag.day.weekday() == 6 and 8 <= flag.day.day <= 14 and flag.sunday is None
        names = {h.name for h in public_holidays(year)}
        assert ("Juneteenth" in names) is (year >= 2021)


def test_no_holiday_but_flag_day_falls_on_a_sunday_and_none_moves_off_a_saturday():
    for year in range(1990, 2060):
        for h in public_holidays(year):
            assert h.day.weekday() != 6 or h.name == "Flag day"
            if h.sunday is not None:
                assert h.sunday.weekday() == 6 and h.day == h.sunday + dt.timedelta(days=1)


@pytest.mark.parametrize(
    "year,day",
    [
        (2024, D(2024, 11, 5)),
        (2025, D(2025, 11, 4)),
        (2026, D(2026, 11, 3)),
        (2032, D(2032, 11, 2)),
    ],
)
def test_general_election_day(year, day):
    """The Tuesday after the first Monday in November (Election Law § 8-100): never the 1st."""
    assert general_election_day(year) == day


# -- § 25-a: the next succeeding business day ----------------------------------------------------

CAL = HolidayCalendar()


@pytest.mark.parametrize(
    "counted,last_day,closed",
    [
        (D(2026, 10, 14), D(2026, 10, 14), None),  # a Wednesday
        (D(2026, 5, 30), D(2026, 6, 1), "a Saturday"),  # Sunday next: Monday
        (D(2026, 5, 31), D(2026, 6, 1), "a Sunday"),
        (D(2026, 5, 25), D(2026, 5, 26), "Memorial day, a public holiday"),
        (D(2026, 5, 23), D(2026, 5, 26), "a Saturday"),  # Sunday, then Memorial day
        (
            D(2027, 7, 5),
            D(2027, 7, 6),
            "Independence day (2027-07-04 being a Sunday), a public holiday",
        ),
        (D(2026, 7, 3), D(2026, 7, 3), None),  # July 4 on a Saturday: the Friday is not moved to
        (D(2026, 7, 4), D(2026, 7, 6), "a Saturday"),  # ... nor the Monday
        (D(2026, 11, 3), D(2026, 11, 4), "general election day, a public holiday"),
        (D(2026, 11, 27), D(2026, 11, 27), None),  # the day after Thanksgiving is not on the list
        (D(2026, 12, 25), D(2026, 12, 28), "Christmas day, a public holiday"),  # Fri, Sat, Sun
    ],
)
def test_next_business_day(counted, last_day, closed):
    """§ 25-a(1): a period ending "on a Saturday, Sunday or a public holiday": "the next
    succeeding business day"."""
    d = CAL.deadline(counted)
    assert (d.counted, d.last_day, d.closed) == (counted, last_day, closed)
    assert d.extended is (last_day != counted)
    assert d.allows(last_day) and not d.allows(last_day + dt.timedelta(days=1))
    assert d.decided(last_day) is d.extended and not d.decided(counted)


def test_a_proclaimed_day_is_a_public_holiday():
    """§ 24: "each day appointed by the president ... or by the governor ... as a day of general
    thanksgiving, general fasting and prayer, or other general religious observances"."""
    proclaimed = HolidayCalendar(frozenset({D(2026, 10, 14), D(2026, 10, 15)}))
    d = proclaimed.deadline(D(2026, 10, 14))
    assert d.last_day == D(2026, 10, 16) and "proclaimed" in (d.closed or "")
    assert CAL.deadline(D(2026, 10, 14)).last_day == D(2026, 10, 14)


def test_the_report_sentence():
    d = Deadline(D(2026, 5, 31), D(2026, 6, 1), "a Sunday")
    assert d.timely("the thirtieth day", "filing", D(2026, 6, 1)) == (
        "the thirtieth day, 2026-05-31, was a Sunday; filing on the next business day, "
        "2026-06-01, is timely (General Construction Law § 25-a)"
    )
    saturday = Deadline(D(2026, 5, 30), D(2026, 6, 1), "a Saturday")  # filed on the Sunday
    assert "filing by the next business day, 2026-06-01" in saturday.timely(
        "the thirtieth day", "filing", D(2026, 5, 31)
    )
    assert Deadline(D(2026, 6, 1), D(2026, 6, 1)).extension("the fifth day") == ""


def test_agrees_with_the_holidays_package_where_it_is_installed():
    """A cross-check only (the calendar is computed from § 24, not taken from the package)."""
    holidays = pytest.importorskip("holidays")
    for year in range(2021, 2031):
        theirs = holidays.country_holidays("US", subdiv="NY", years=year)
        for h in public_holidays(year):
            if h.name != "Flag day":  # a Sunday; the package does not list it
                assert h.day in theirs, (year, h)
