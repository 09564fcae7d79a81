"""The values a field can hold, each in the forms people write it.

- a date: every day of the signing window and a month either side, in the ways people write
  dates (10/21/2026, 10/21/26, 10-21-2026, 10.21.26, Oct 21, 2026, October 21, 21 Oct 2026,
  with or without leading zeros);
- a residence: the addresses on the register (or the roll) in the municipality's town, as the
  register writes them and with the street's suffix and the unit spelled out or abbreviated;
- a name: the voters (owners), as "First Last", with the middle initial or name, the suffix,
  and the nicknames of the given name (a signer writes "Bill" for William).

Every value keeps its forms apart: the form that explains the reading best is what the field
says (read as written: "Bill Hale" stays Bill, the matcher knows the nickname).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from matchers.nicknames import given_name_forms

from ..case import CaseConfig
from ..records import RegisterEntry

__all__ = [
    "Choices",
    "address_choices",
    "date_choices",
    "date_forms",
    "date_window",
    "district_choices",
    "district_forms",
    "name_forms",
]

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# Days either side of the signing window whose dates are still candidates: a date a little
# outside it is a defect to find (DATE_AFTER_FILING), read as the day it is.
MARGIN_DAYS = 31
# Signing windows of the kinds with no adoption date: the days before the filing considered.
DEFAULT_WINDOW_DAYS = 120
# The prior weight of a day in the margins against a day inside the window.
OUTSIDE_WEIGHT = 0.25
# Street suffixes and units as written out and as abbreviated (USPS); either may be written.
SUFFIXES = {
    "St": "Street",
    "Ave": "Avenue",
    "Rd": "Road",
    "Dr": "Drive",
    "Ln": "Lane",
    "Ct": "Court",
    "Pl": "Place",
    "Blvd": "Boulevard",
    "Ter": "Terrace",
    "Cir": "Circle",
    "Way": "Way",
    "Pkwy": "Parkway",
    "Hwy": "Highway",
}


@dataclass(frozen=True, slots=True)
class Choices:
    """Candidate values and their forms: `forms[k]` writes `values[owner[k]]`."""

    values: tuple[object, ...]
    forms: tuple[str, ...]
    owner: tuple[int, ...]
    weights: tuple[float, ...] = ()  # the values' prior weights (uniform when empty)
    form_costs: tuple[float, ...] = ()  # each form's cost beside its reading (0 when empty)
    # The field then says the value itself, not the form that explained the reads (a ward's
    # forms include how its tiled re-read reads it, "333").
    says_value: bool = False

    @property
    def folded(self) -> list[str]:
        return [f.casefold() for f in self.forms]


def _build(items: Iterable[tuple[object, Iterable[str]]]) -> Choices:
    values: list[object] = []
    forms: list[str] = []
    owner: list[int] = []
    for value, written in items:
        k = len(values)
        values.append(value)
        for form in dict.fromkeys(written):
            forms.append(form)
            owner.append(k)
    return Choices(tuple(values), tuple(forms), tuple(owner))


def date_forms(d: dt.date, with_year: bool = False) -> tuple[str, ...]:
    """The ways one day is written (`with_year`: only those that write its year)."""
    m, day, y, yy = d.month, d.day, d.year, d.year % 100
    mon, month = MONTHS[m - 1][:3], MONTHS[m - 1]
    out = []
    for sep in "/-.":
        out += [
            f"{m:02d}{sep}{day:02d}{sep}{y}",
            f"{m}{sep}{day}{sep}{y}",
            f"{m}{sep}{day}{sep}{yy:02d}",
            f"{m:02d}{sep}{day:02d}{sep}{yy:02d}",
        ]
    out += [
        f"{mon} {day}, {y}",
        f"{mon}. {day}, {y}",
        f"{month} {day}, {y}",
        f"{day} {mon} {y}",
        f"{day} {month} {y}",
    ]
    if not with_year:
        out += [f"{month} {day}", f"{mon} {day}"]
    return tuple(dict.fromkeys(out))


def date_window(case: CaseConfig) -> tuple[dt.date, dt.date]:
    """The first and last day a line's date is looked for among: the signing window (from the
    adoption, else DEFAULT_WINDOW_DAYS before the filing, to the filing) and MARGIN_DAYS either
    side."""
    filed = case.dates.filed
    start = case.dates.adopted or filed - dt.timedelta(days=DEFAULT_WINDOW_DAYS)
    margin = dt.timedelta(days=MARGIN_DAYS)
    return start - margin, filed + margin


def date_choices(case: CaseConfig) -> Choices:
    """Every day from `date_window`, the days of the signing window itself weighted
    1 / OUTSIDE_WEIGHT times the margins' (most lines are dated inside it)."""
    first, last = date_window(case)
    days = [first + dt.timedelta(days=k) for k in range((last - first).days + 1)]
    margin = dt.timedelta(days=MARGIN_DAYS)
    weights = tuple(1.0 if first + margin <= d <= last - margin else OUTSIDE_WEIGHT for d in days)
    return replace(_build((d, date_forms(d)) for d in days), weights=weights)


def district_forms(value: str) -> tuple[str, ...]:
    """A ward's or district's number as written, and as its tiled re-read reads it (the
    number three times: `scan.cells.tile`)."""
    v = value.lstrip("0") or value
    return (v, v * 3, " ".join([v] * 3), value)


def district_choices(
    listed: Sequence[str], entries: Iterable[RegisterEntry], ward: bool
) -> Choices:
    """The municipality's wards or districts (the case's list, else the register's)."""
    values = [v.lstrip("0") or v for v in listed]
    if not values:
        found = {(e.ward if ward else e.election_district) for e in entries}
        values = sorted({v.lstrip("0") or v for v in found if v}, key=lambda v: (len(v), v))
    return replace(_build((v, district_forms(v)) for v in dict.fromkeys(values)), says_value=True)


def _address_forms(e: RegisterEntry) -> list[str]:
    base = " ".join(e.address.split())
    if not base:
        return []
    out = [base]
    words = base.split(" ")
    for k, w in enumerate(words):
        long = SUFFIXES.get(w)
        if long and long != w and k > 0:
            out.append(" ".join([*words[:k], long, *words[k + 1 :]]))
    if e.apartment:
        out += [f.replace(f" Apt {e.apartment}", f" #{e.apartment}") for f in list(out)]
    return out


def address_choices(entries: Iterable[RegisterEntry]) -> Choices:
    """Every distinct address of the entries (as the register writes it), with its forms."""
    seen: dict[str, RegisterEntry] = {}
    for e in entries:
        key = " ".join(e.address.split()).casefold()
        if key and key not in seen:
            seen[key] = e
    return _build((" ".join(e.address.split()), _address_forms(e)) for e in seen.values())


def _title(word: str) -> str:
    return "-".join(p[:1].upper() + p[1:].lower() for p in word.split("-")) if word else ""


def name_forms(e: RegisterEntry) -> tuple[str, ...]:
    """How a voter may write their name: given names (and nicknames), the middle initial or
    name or none, the surname, with or without the suffix."""
    last = _title(e.last_name)
    if not last:
        return ()
    firsts = [_title(e.first_name)] if e.first_name else [""]
    firsts += sorted(
        _title(n) for n in given_name_forms(e.first_name.upper()) if n != e.first_name.upper()
    )
    middles = [""]
    if e.middle_name:
        middles += [
            _title(e.middle_name)[:1],
            _title(e.middle_name)[:1] + ".",
            _title(e.middle_name),
        ]
    roman = e.suffix.upper() in ("II", "III", "IV")
    suffixes = [""] + ([e.suffix.upper() if roman else _title(e.suffix)] if e.suffix else [])
    out = []
    for first in firsts[:4]:
        for middle in middles:
            for suffix in suffixes:
                out.append(" ".join(p for p in (first, middle, last, suffix) if p))
    return tuple(dict.fromkeys(out))


def names_of(entries: Sequence[RegisterEntry]) -> Choices:
    """The voters' names; a form with a nickname of the registered given name costs the log
    of the number of given names the voter might write (a signer writes the registered name
    more often than any one nickname)."""
    built = _build((e.voter_id, name_forms(e)) for e in entries)
    firsts = [_title(e.first_name) for e in entries]
    counts = [len(given_name_forms(e.first_name.upper())) for e in entries]
    costs = tuple(
        0.0 if not firsts[v] or form.startswith(firsts[v] + " ") else math.log(max(2, counts[v]))
        for form, v in zip(built.forms, built.owner, strict=True)
    )
    return replace(built, form_costs=costs)
