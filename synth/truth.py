"""What a generated line is meant to be (its truth), and its date as people write it: shared by
the 9-902 generator (synth/case.py), its varied corpus (synth/varied.py) and the other kinds'
(synth/kinds.py). Synthetic only.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from .sheets import LinePlan

__all__ = [
    "DATE_STYLES",
    "MONTHS",
    "LineTruth",
    "blank_rows_marked",
    "format_date",
    "rows_the_page_shows",
]

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


def town_lost(sheet: dict[str, Any], residences: list[str]) -> bool:
    """Whether a truth.json sheet's town column was lost by a reader whose lines read these
    residences: the sheet prints one, and no residence read joins a town to its street
    (`pipeline.columns.join_parts`, "12 Oak St, Elmwood Falls"). The street's column still
    gives the field, so a check of the fields alone does not see it."""
    read = [r for r in residences if r]
    return "town" in sheet.get("columns", ()) and bool(read) and not any("," in r for r in read)


def blank_rows_marked(sheet: dict[str, Any], rules: str | None) -> bool:
    """Whether a truth.json sheet's page marks its blank rows (rules or printed line numbers).
    Where it does not, a blank row read past the last entry is the reader's guess at the empty
    space below it, neither the page's row nor an invented one: the benchmarks count such rows
    apart from rows invented."""
    return rules != "none" or "line_number" in sheet.get("columns", ())


def rows_the_page_shows(sheet: dict[str, Any], rules: str | None) -> int:
    """How many of a truth.json sheet's rows its page marks. A table printed without rules or
    line numbers shows nothing of the blank rows after its last entry: no reader can find them,
    and they hold no signature. The benchmarks count them apart (`rules`: the case's layout's,
    truth.json's "layout")."""
    lines = sheet["lines"]
    if blank_rows_marked(sheet, rules):
        return len(lines)
    return max((k + 1 for k, ln in enumerate(lines) if not ln["blank"]), default=0)
