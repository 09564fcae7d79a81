"""General Construction Law § 24 (public holidays) and § 25-a (a period for an act to be done that
ends on a Saturday, Sunday or public holiday). Text in ../shared/statutes/
general-construction-law-24-25a-deadlines.txt, § 24 as amended by chapter 249 of the laws of 2020.

Plain date arithmetic, no I/O, no tables to keep up to date: every year's holidays are computed
from the section's words. The days a proclamation adds ("each day appointed by the president of
the United States or by the governor of this state as a day of general thanksgiving ...") cannot
be computed; the case file gives them (`[dates] extra_holidays`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

__all__ = [
    "CITE_24",
    "CITE_25A",
    "Deadline",
    "Holiday",
    "HolidayCalendar",
    "general_election_day",
    "public_holidays",
]

CITE_24 = "General Construction Law § 24"
CITE_25A = "General Construction Law § 25-a"

MON, TUE, WED, THU, FRI, SAT, SUN = range(7)

# Juneteenth was added to § 24 by chapter 249 of the laws of 2020, after June 19 of that year:
# the first June 19 that is a public holiday is 2021's. The rest of the list is taken as this
# text gives it for every year (the earlier texts are not in ../shared/statutes/).
JUNETEENTH_FROM = 2021


@dataclass(frozen=True, slots=True)
class Holiday:
    day: dt.date
    name: str  # as § 24 names it: "Memorial day"
    # "if any of such days except Flag day is Sunday, the next day thereafter": the Sunday it
    # fell on, when the public holiday is the Monday after it.
    sunday: dt.date | None = None

    def describe(self) -> str:
        """'Memorial day, a public holiday'; 'Independence day (2027-07-04 being a Sunday), a
        public holiday'."""
        moved = f" ({self.sunday.isoformat()} being a Sunday)" if self.sunday else ""
        return f"{self.name}{moved}, a public holiday"


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> dt.date:
    """The n-th `weekday` of the month (n = 1..4), or the last one (n = -1)."""
    if n > 0:
        first = dt.date(year, month, 1)
        return first + dt.timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    last = dt.date(year + month // 12, month % 12 + 1, 1) - dt.timedelta(days=1)
    return last - dt.timedelta(days=(last.weekday() - weekday) % 7)


def general_election_day(year: int) -> dt.date:
    """§ 24's "each general election day": the general election is held each year on the Tuesday
    next succeeding the first Monday in November (Election Law § 8-100)."""
    return _nth_weekday(year, 11, MON, 1) + dt.timedelta(days=1)


def public_holidays(year: int) -> tuple[Holiday, ...]:
    """§ 24: "The term public holiday includes the following days in each year", in date order:
    the named days, each moved to the Monday when it "is Sunday" (Flag day excepted; a day on a
    Saturday is not moved), and the general election day. Proclaimed days are not included."""
    named = [
        (dt.date(year, 1, 1), "New Year's day"),  # "the first day of January"
        (_nth_weekday(year, 1, MON, 3), "Dr. Martin Luther King, Jr. day"),  # "third Monday of"
        (dt.date(year, 2, 12), "Lincoln's birthday"),  # "the twelfth day of February"
        (_nth_weekday(year, 2, MON, 3), "Washington's birthday"),  # "the third Monday in"
        (_nth_weekday(year, 5, MON, -1), "Memorial day"),  # "the last Monday in May"
        (_nth_weekday(year, 6, SUN, 2), "Flag day"),  # "the second Sunday in June"
        (dt.date(year, 6, 19), "Juneteenth"),  # "the nineteenth day of June"
        (dt.date(year, 7, 4), "Independence day"),  # "the fourth day of July"
        (_nth_weekday(year, 9, MON, 1), "Labor day"),  # "the first Monday in September"
        (_nth_weekday(year, 10, MON, 2), "Columbus day"),  # "the second Monday in October"
        (dt.date(year, 11, 11), "Veterans' day"),  # "the eleventh day of November"
        (_nth_weekday(year, 11, THU, 4), "Thanksgiving day"),  # "the fourth Thursday in"
        (dt.date(year, 12, 25), "Christmas day"),  # "the twenty-fifth day of December"
    ]
    out = [Holiday(general_election_day(year), "general election day")]
    for day, name in named:
        if name == "Juneteenth" and year < JUNETEENTH_FROM:
            continue
        if day.weekday() == SUN and name != "Flag day":  # "except Flag day is Sunday"
            out.append(Holiday(day + dt.timedelta(days=1), name, sunday=day))
        else:
            out.append(Holiday(day, name))
    return tuple(sorted(out, key=lambda h: h.day))


@dataclass(frozen=True, slots=True)
class Deadline:
    """The last day of a period within, after or before which an act is to be done. `counted` is
    the period's own last day; `last_day` the day the act may still be done: the same, or, when
    `counted` "ends on a Saturday, Sunday or a public holiday", the "next succeeding business
    day" (§ 25-a(1)); `closed` says what `counted` was ("a Sunday")."""

    counted: dt.date
    last_day: dt.date
    closed: str | None = None

    @property
    def extended(self) -> bool:
        return self.last_day != self.counted

    def allows(self, day: dt.date) -> bool:
        """Whether an act done on `day` is done by the (extended) last day."""
        return day <= self.last_day

    def decided(self, day: dt.date) -> bool:
        """Whether § 25-a is what makes an act done on `day` timely."""
        return self.counted < day <= self.last_day

    def extension(self, which: str) -> str:
        """'the thirtieth day, 2026-05-31, is a Sunday; the last day is the next business day,
        2026-06-01 (General Construction Law § 25-a)'; '' when not extended."""
        if not self.extended:
            return ""
        return (
            f"{which}, {self.counted.isoformat()}, is {self.closed}; the last day is the next "
            f"business day, {self.last_day.isoformat()} ({CITE_25A})"
        )

    def timely(self, which: str, act: str, done: dt.date) -> str:
        """The report's sentence when the extension decided it: 'the thirtieth day, 2026-05-31,
        was a Sunday; filing on the next business day, 2026-06-01, is timely (General
        Construction Law § 25-a)' ('by' when the act was done earlier, on a closed day)."""
        on = "on" if done == self.last_day else "by"
        return (
            f"{which}, {self.counted.isoformat()}, was {self.closed}; {act} {on} the next "
            f"business day, {self.last_day.isoformat()}, is timely ({CITE_25A})"
        )


@dataclass(frozen=True, slots=True)
class HolidayCalendar:
    """§ 24's public holidays of every year, plus the days proclaimed (the case file's
    `[dates] extra_holidays`), and § 25-a's business days: neither a Saturday, a Sunday nor a
    public holiday."""

    extra: frozenset[dt.date] = frozenset()

    def holiday(self, day: dt.date) -> Holiday | None:
        """The public holiday on `day`, if it is one."""
        for h in public_holidays(day.year):
            if h.day == day:
                return h
        if day in self.extra:
            return Holiday(day, "a day proclaimed by the president or the governor")
        return None

    def closed(self, day: dt.date) -> str | None:
        """Why `day` is not a business day ("a Saturday", "a Sunday", "Memorial day, a public
        holiday"), or None when it is one."""
        if day.weekday() == SAT:
            return "a Saturday"
        if day.weekday() == SUN:
            return "a Sunday"
        holiday = self.holiday(day)
        return holiday.describe() if holiday else None

    def deadline(self, counted: dt.date) -> Deadline:
        """§ 25-a(1): "When any period of time, computed from a certain day, within which or
        after which or before which an act is authorized or required to be done, ends on a
        Saturday, Sunday or a public holiday, such act may be done on the next succeeding
        business day". Apply it only to such a period (each caller says why its period is one)."""
        closed = self.closed(counted)
        if closed is None:
            return Deadline(counted, counted)
        day = counted + dt.timedelta(days=1)
        while self.closed(day) is not None:
            day += dt.timedelta(days=1)
        return Deadline(counted, day, closed)
