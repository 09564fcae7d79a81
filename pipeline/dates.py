"""Dates as people write them on petition lines: 10/3/26, 03-04-2026, Oct 3, 2026, March 4.

US order (month first). A date written without a year takes the year of a reference date (the
filing date), moved back a year when that would put it after the reference: nobody dates a line
in the future of the filing.
"""

from __future__ import annotations

import datetime as dt
import functools
import re

__all__ = ["parse_written_date"]

_MONTHS = {
    name: i
    for i, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}

_NUMERIC = re.compile(r"^\s*(\d{1,2})\s*[/\-.]\s*(\d{1,2})(?:\s*[/\-.]\s*(\d{2}|\d{4}))?\s*$")
_ISO = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})\s*$")
_WORDS = re.compile(r"^\s*([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\s*(?:,?\s*(\d{2}|\d{4}))?\s*$")


def _year(text: str | None, reference: dt.date | None) -> int | None:
    if text is None:
        return None
    year = int(text)
    if len(text) == 2:
        year += 2000
    return year


def _build(year: int | None, month: int, day: int, reference: dt.date | None) -> dt.date | None:
    if year is None:
        if reference is None:
            return None
        year = reference.year
        try:
            candidate = dt.date(year, month, day)
        except ValueError:
            return None
        return candidate if candidate <= reference else _build(year - 1, month, day, None)
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


@functools.lru_cache(maxsize=1 << 14)  # a case's dates are weighed day by day, many times
def parse_written_date(text: str, reference: dt.date | None = None) -> dt.date | None:
    """The date a person wrote, or None when it cannot be read as one date.

    >>> parse_written_date("10/3/26")
    datetime.date(2026, 10, 3)
    >>> parse_written_date("March 4", reference=dt.date(2026, 10, 9))
    datetime.date(2026, 3, 4)
    """
    text = text.strip()
    if not text:
        return None
    if m := _ISO.match(text):
        return _build(int(m[1]), int(m[2]), int(m[3]), reference)
    if m := _NUMERIC.match(text):
        return _build(_year(m[3], reference), int(m[1]), int(m[2]), reference)
    if m := _WORDS.match(text):
        month = _MONTHS.get(m[1].lower())
        if month is None:
            return None
        return _build(_year(m[3], reference), month, int(m[2]), reference)
    return None
