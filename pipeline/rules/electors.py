"""Who is an elector of the village, on the register and on a given day.

Shared by every petition kind signed by electors or voters. The NYS export has a town but no
village column, so the case file gives the village by its wards and election districts (an empty
list means the register file is the village's own list).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence

from matchers.normalize import normalize_address

from ..casefile import MunicipalityConfig, StreetRange
from ..records import RegisterEntry

__all__ = [
    "PURGED",
    "PREREGISTERED",
    "count_electors_on",
    "in_village",
    "on_a_village_street",
    "on_register_on",
]

PURGED = "P"
PREREGISTERED = "17"  # pre-registered 17-year-olds: on the file, not yet electors


def _district(code: str) -> str:
    """ "003" and "3" are the same election district."""
    code = code.strip()
    if code.isdigit():
        return code.lstrip("0") or "0"
    return code.upper()


def in_village(entry: RegisterEntry, village: MunicipalityConfig) -> bool:
    """True when the register places the voter inside the village's territory."""
    if entry.town_city and entry.town_city.strip().upper() != village.town.strip().upper():
        return False
    if village.election_districts:
        districts = {_district(d) for d in village.election_districts}
        if _district(entry.election_district) not in districts:
            return False
    if village.wards:
        wards = {_district(w) for w in village.wards}
        if _district(entry.ward) not in wards:
            return False
    return not village.streets or on_a_village_street(entry, village.streets)


def on_a_village_street(entry: RegisterEntry, streets: Sequence[StreetRange]) -> bool:
    """The entry's residence is within one of the street ranges. A residence without a house
    number is placed only by a range that covers the whole street."""
    street = normalize_address(
        " ".join(p for p in (entry.pre_direction, entry.street_name, entry.post_direction) if p)
    )
    digits = re.match(r"\d+", entry.house_number.strip())
    number = int(digits.group()) if digits else None
    for r in streets:
        if normalize_address(r.street) != street:
            continue
        if number is None:
            if r.low == 0 and r.high >= 999_999 and r.side == "both":
                return True
            continue
        side_ok = r.side == "both" or (number % 2 == 1) == (r.side == "odd")
        if r.low <= number <= r.high and side_ok:
            return True
    return False


def on_register_on(entry: RegisterEntry, day: dt.date) -> bool:
    """Was the entry a registered elector on `day`? Registered on or before it, not a
    pre-registrant, and not purged on or before it (a voter purged later still counts)."""
    if entry.status.strip() == PREREGISTERED:
        return False
    if entry.registration_date is not None and entry.registration_date > day:
        return False
    if entry.status.strip().upper() == PURGED:
        # Purged with no date: we cannot place the purge, so the entry is not counted.
        return entry.purge_date is not None and entry.purge_date > day
    return True


def count_electors_on(
    entries: Iterable[RegisterEntry], village: MunicipalityConfig, day: dt.date
) -> int:
    """The electors of the village on the register as it stood on `day`."""
    return sum(1 for e in entries if in_village(e, village) and on_register_on(e, day))
