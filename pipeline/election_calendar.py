"""The village election calendar: Village Law § 15-104, and the dates 9-902 hangs on it.

Plain date arithmetic, no I/O. Used by the 9-902 rules (where the proposition goes, the objection
window) and by scheduled runs through a filing window.

General Construction Law § 25-a extends "any period of time, computed from a certain day, within
which or after which or before which an act is authorized or required to be done" that ends on a
Saturday, Sunday or public holiday to the next business day (pipeline/holidays.py). Each period
here says whether it is one, in the statute's words:

- 9-902(1), "within thirty days after its adoption there be filed ... a petition": yes, the act
  of filing (`filing_deadline`).
- 9-902(9), "within five days after the filing of such petition, a written objection thereto be
  filed": yes (`objection_deadline`).
- 15-104(3)-(4), notices "at least four months prior", "at least sixty days before", "at least
  ten days prior", "at least one day before" the election: periods "before which" an act is
  required to be done, so § 25-a's words reach them; but the extended day gives less notice than
  "at least" asks, so both days are kept (`notices`) and the clerk who can act by the counted day
  should.
- 9-902(5), a special election "to be held not less than ten nor more than sixty days after the
  filing": no. The window bounds the day the board of trustees fixes for holding an election,
  noticed in advance "in the same manner as a general village election" (9-902(7)); it is not a
  last day by which someone must act and may find the offices closed. The board picks a day from
  the tenth to the sixtieth, and the product reports the window as the statute states it.
- 9-902(5)-(6), filed "before" / "on or after the first day of the month two months prior": no.
  These are calendar dates that choose between the two subdivisions, not a period for an act.
- 15-104(1), the general village election "on the third Tuesday in March": no; a date on which
  an election is held, not a period.
- 9-902(1), the act "shall not take effect until thirty days after its adoption": no; when an act
  takes effect is not an act to be done (and the product does not compute it).
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass

from .holidays import Deadline, HolidayCalendar

__all__ = [
    "ElectionNotices",
    "PropositionElection",
    "filing_deadline",
    "general_village_election",
    "notices",
    "objection_deadline",
    "proposition_election",
    "referendum_filing_window",
    "third_tuesday_of_march",
]


CITE_15_104 = "Village Law § 15-104"


def third_tuesday_of_march(year: int) -> dt.date:
    first = dt.date(year, 3, 1)
    first_tuesday = first + dt.timedelta(days=(1 - first.weekday()) % 7)
    return first_tuesday + dt.timedelta(weeks=2)


def general_village_election(year: int, village_date: dt.date | None = None) -> dt.date:
    """15-104(1)(a): "held on the third Tuesday in March except in any village which ... elects
    its officers on a date other than the third Tuesday in March" (`village_date`, for that
    year). 15-104(1)(b): when the seventeenth of March is that Tuesday, the election is held on
    the eighteenth (as in 2026)."""
    if village_date is not None:
        if village_date.year != year:
            raise ValueError(f"the village's election date {village_date} is not in {year}")
        return village_date
    tuesday = third_tuesday_of_march(year)
    return tuesday + dt.timedelta(days=1) if tuesday.day == 17 else tuesday


@dataclass(frozen=True, slots=True)
class ElectionNotices:
    """15-104(3) and (4): the notice deadlines before a village election (the last day each may
    be done: `counted`, which gives the full notice, and `last_day`, where General Construction
    Law § 25-a moves a counted day that is a Saturday, Sunday or public holiday). The political
    calendar is computed from the third Tuesday of March even when the election moves to the 18th
    (15-104(1)(b))."""

    election: dt.date
    offices_notice_by: Deadline  # (3)(a): at least four months prior (general election)
    polling_resolution_by: Deadline  # (3)(b): at least sixty days before
    election_notice_by: Deadline  # (3)(c): at least ten days prior
    posting_by: Deadline  # (4): at least one day before


def _months_before(day: dt.date, months: int) -> dt.date:
    """The same day `months` calendar months earlier (the month's last day if it is shorter)."""
    index = day.year * 12 + (day.month - 1) - months
    year, month = divmod(index, 12)
    month += 1
    return dt.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def notices(
    election: dt.date, holidays: HolidayCalendar, computed_from: dt.date | None = None
) -> ElectionNotices:
    """The deadlines of 15-104(3)-(4) for an election, counted back from `computed_from` (the
    third Tuesday of March when the election was moved to the 18th) or the election itself.
    Periods "before which" an act is required to be done: § 25-a applies (module docstring)."""
    base = computed_from or election
    return ElectionNotices(
        election=election,
        offices_notice_by=holidays.deadline(_months_before(base, 4)),
        polling_resolution_by=holidays.deadline(base - dt.timedelta(days=60)),
        election_notice_by=holidays.deadline(base - dt.timedelta(days=10)),
        posting_by=holidays.deadline(base - dt.timedelta(days=1)),
    )


def objection_deadline(filed: dt.date, holidays: HolidayCalendar) -> Deadline:
    """9-902(9): "If, within five days after the filing of such petition, a written objection
    thereto be filed ..." The filing day is not counted. A period "within which ... an act is
    authorized ... to be done": a fifth day on a Saturday, Sunday or public holiday moves to the
    next business day (General Construction Law § 25-a)."""
    return holidays.deadline(filed + dt.timedelta(days=5))


@dataclass(frozen=True, slots=True)
class PropositionElection:
    """Where a 9-902 proposition goes: a special election in a window, or the general village
    election on a date."""

    kind: str  # "special" or "general"
    earliest: dt.date
    latest: dt.date
    citation: str
    explanation: str


def _first_of_month(day: dt.date, months_back: int = 0) -> dt.date:
    return _months_before(dt.date(day.year, day.month, 1), months_back)


def proposition_election(filed: dt.date, next_general: dt.date) -> PropositionElection:
    """9-902(5): filed "after the first day of the month in which the general village election is
    to be held and before the first day of the month two months prior to the next general
    village election": a special election "not less than ten nor more than sixty days after the
    filing". 9-902(6): filed "on or after the first day of the month two months prior to the
    month in which the general village election is to be held and on or before the first day of
    the month in which [it] is to be held": at the general village election.

    `next_general` is the next general village election on or after the filing.

    Neither window is extended by General Construction Law § 25-a: the special election's ten to
    sixty days are the days on which the board may hold it, not a period for an act ending on a
    closed day, and the months' first days choose a subdivision (module docstring)."""
    if next_general < filed:
        raise ValueError("next_general must be on or after the filing date")
    month_of = _first_of_month(next_general)
    two_months_prior = _first_of_month(next_general, 2)
    if two_months_prior <= filed <= month_of:
        return PropositionElection(
            kind="general",
            earliest=next_general,
            latest=next_general,
            citation="Village Law § 9-902(6)",
            explanation=(
                f"filed between {two_months_prior.isoformat()} and {month_of.isoformat()}: "
                f"submitted at the general village election of {next_general.isoformat()}"
            ),
        )
    return PropositionElection(
        kind="special",
        earliest=filed + dt.timedelta(days=10),
        latest=filed + dt.timedelta(days=60),
        citation="Village Law § 9-902(5)",
        explanation=(
            "submitted at a special election held not less than ten nor more than sixty days "
            f"after the filing: between {(filed + dt.timedelta(days=10)).isoformat()} and "
            f"{(filed + dt.timedelta(days=60)).isoformat()}"
        ),
    )


def filing_deadline(adopted: dt.date, holidays: HolidayCalendar) -> Deadline:
    """9-902(1): "if within thirty days after its adoption there be filed with the village clerk
    a petition". The day of adoption is not counted (General Construction Law § 20), so the
    thirtieth day is adoption + 30; a period "within which ... an act is authorized ... to be
    done", so a thirtieth day on a Saturday, Sunday or public holiday moves to the next business
    day (General Construction Law § 25-a)."""
    return holidays.deadline(adopted + dt.timedelta(days=30))


def referendum_filing_window(
    adopted: dt.date, holidays: HolidayCalendar
) -> tuple[dt.date, dt.date]:
    """9-902(1): the first and the last day a petition may be filed: the day after adoption, and
    the thirtieth day, extended by § 25-a when it is a Saturday, Sunday or public holiday."""
    return adopted + dt.timedelta(days=1), filing_deadline(adopted, holidays).last_day
