"""The village election calendar: Village Law § 15-104, and the dates 9-902 hangs on it.

Plain date arithmetic, no I/O. Used by the 9-902 rules (where the proposition goes, the objection
window) and by scheduled runs through a filing window.
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass

__all__ = [
    "ElectionNotices",
    "referendum_filing_window",
    "PropositionElection",
    "general_village_election",
    "notices",
    "objection_deadline",
    "proposition_election",
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
    be done). The political calendar is computed from the third Tuesday of March even when the
    election moves to the 18th (15-104(1)(b))."""

    election: dt.date
    offices_notice_by: dt.date  # (3)(a): at least four months prior (general election)
    polling_resolution_by: dt.date  # (3)(b): at least sixty days before
    election_notice_by: dt.date  # (3)(c): at least ten days prior
    posting_by: dt.date  # (4): at least one day before


def _months_before(day: dt.date, months: int) -> dt.date:
    """The same day `months` calendar months earlier (the month's last day if it is shorter)."""
    index = day.year * 12 + (day.month - 1) - months
    year, month = divmod(index, 12)
    month += 1
    return dt.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def notices(election: dt.date, computed_from: dt.date | None = None) -> ElectionNotices:
    """The deadlines of 15-104(3)-(4) for an election, counted back from `computed_from` (the
    third Tuesday of March when the election was moved to the 18th) or the election itself."""
    base = computed_from or election
    return ElectionNotices(
        election=election,
        offices_notice_by=_months_before(base, 4),
        polling_resolution_by=base - dt.timedelta(days=60),
        election_notice_by=base - dt.timedelta(days=10),
        posting_by=base - dt.timedelta(days=1),
    )


def objection_deadline(filed: dt.date) -> dt.date:
    """9-902(9): "If, within five days after the filing of such petition, a written objection
    thereto be filed ..." The filing day is not counted."""
    return filed + dt.timedelta(days=5)


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

    `next_general` is the next general village election on or after the filing."""
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


def referendum_filing_window(adopted: dt.date) -> tuple[dt.date, dt.date]:
    """9-902(1): a petition is filed "within thirty days after its adoption": the first and the
    last day it may be filed (the day of adoption not counted)."""
    return adopted + dt.timedelta(days=1), adopted + dt.timedelta(days=30)
