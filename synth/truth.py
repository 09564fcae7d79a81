"""What a generated line is meant to be (its truth), and its date as people write it: shared by
the 9-902 generator (synth/case.py), its varied corpus (synth/varied.py) and the other kinds'
(synth/kinds.py). Synthetic only.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from .sheets import LinePlan

__all__ = ["DATE_STYLES", "MONTHS", "LineTruth", "format_date"]

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class LineTruth:
    """What the generator meant one row to be."""

    plan: LinePlan
    voter_id: str | None
    defects: tuple[str, ...]
    status: str  # valid, invalid, needs_review, blank
    notes: tuple[str, ...] = ()  # what makes the line hard without being a defect (a nickname)


DATE_STYLES = ("long", "short", "words", "dashes", "month-day", "full")


def format_date(d: dt.date, style: str) -> str:
    """A date as people write it: "10/03/2026" (long), "10/3/26" (short), "Oct 3, 2026"
    (words), "10-03-2026" (dashes), "October 3" (month-day: no year) or "October 3, 2026"
    (full)."""
    if style == "long":
        return f"{d.month:02d}/{d.day:02d}/{d.year}"
    if style == "short":
        return f"{d.month}/{d.day}/{d.year % 100:02d}"
    if style == "dashes":
        return f"{d.month:02d}-{d.day:02d}-{d.year}"
    if style == "month-day":
        return f"{MONTHS[d.month - 1]} {d.day}"
    if style == "full":
        return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"
    return f"{MONTHS[d.month - 1][:3]} {d.day}, {d.year}"
