"""Invented people for the other petition kinds: voters on a register, owners on a roll.

Every name, street and number is made up from the small lists below (copied here so that the
9-902 generator's lists can change without changing these fixtures); no real person's data.
The register is written in the NYS BOE 45-field export layout; the assessment roll in our CSV
layout (matchers/assessment_roll.py).
"""

from __future__ import annotations

import csv
import datetime as dt
import difflib
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from matchers.assessment_roll import ROLL_COLUMNS
from matchers.register import NYSBOE_45_FIELDS

__all__ = [
    "FIRST_NAMES",
    "MIDDLE_NAMES",
    "NOT_LISTED_SURNAMES",
    "OUTSIDE_STREETS",
    "ROLL_HEADER",
    "SURNAMES",
    "VILLAGE_STREETS",
    "NamePool",
    "Owner",
    "Parcel",
    "Voter",
    "rand_date",
    "write_register",
    "write_roll",
]

FIRST_NAMES = (
    "Abel", "Agnes", "Alma", "Amos", "Ansel", "Beatrix", "Bram", "Calla", "Cyrus", "Delia",
    "Edda", "Elias", "Enid", "Ezra", "Flora", "Gideon", "Greta", "Hollis", "Ida", "Jasper",
    "Juno", "Kit", "Lark", "Linus", "Mabel", "Milo", "Nell", "Odette", "Orin", "Pell", "Quinn",
    "Rhoda", "Rufus", "Sable", "Silas", "Tamsin", "Thea", "Ulric", "Vesta", "Wren", "Yves",
    "Zora", "Otis", "Hazel", "Cora", "Jonah", "Ruth",
)  # fmt: skip
MIDDLE_NAMES = (
    "Ann", "Bell", "Claire", "Dale", "Eve", "Fay", "Grant", "Hope", "Jay", "Lee", "Mae",
    "Neil", "Pearl", "Rose", "Scott", "Troy", "Wade",
)  # fmt: skip
SURNAMES = (
    "Alderwick", "Brambleton", "Copperfield", "Dunmore", "Elderberry", "Fernsby", "Gladwell",
    "Hollowell", "Ingleby", "Juniper", "Kettleby", "Larkspur", "Millbrook", "Nettlefold",
    "Oakhurst", "Pennywhistle", "Quillby", "Rookwood", "Sallowby", "Thistlewood", "Underhill",
    "Vantwerp", "Willowmere", "Yarrowby", "Ashgrove", "Birchall", "Cresswold", "Dovecote",
    "Emberly", "Foxglove", "Galloway", "Heathcote",
)  # fmt: skip
# Surnames only for signers who are on neither the register nor the roll.
NOT_LISTED_SURNAMES = ("Zephyrwood", "Quartermoon", "Brightwater", "Xandersley")
VILLAGE_STREETS = (
    "Maple Ave", "Mill St", "Orchard Ln", "Birch Rd", "Church St", "Willow Way", "Cedar Ct",
    "Hillcrest Dr",
)  # fmt: skip
OUTSIDE_STREETS = ("Quarry Rd", "Stone Hill Rd", "Old Farm Rd")
# Owners who live elsewhere get their tax bills here.
AWAY_STREETS = ("Lake Shore Dr", "Harbor View Rd", "Summit Ave", "Riverside Pl")
AWAY_CITIES = ("Stonebridge", "Port Halden", "Westmere")


def rand_date(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


class NamePool:
    """Draws person names no other person of the case has (first + last unique, and no two
    first names of one surname a letter apart, as Pell and Nell), so that each signer has one
    clear match. Plain state, held by one generator run only."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._used: set[tuple[str, str]] = set()
        self._firsts: dict[str, list[str]] = {}
        self._addresses: set[tuple[str, str]] = set()

    def _close(self, first: str, surname: str) -> bool:
        return any(
            difflib.SequenceMatcher(None, first, other).ratio() >= 0.7
            for other in self._firsts.get(surname, ())
        )

    def name(self, last: str | None = None) -> tuple[str, str, str]:
        """(first, middle, last)."""
        rng = self._rng
        for _ in range(500):
            first = rng.choice(FIRST_NAMES)
            surname = last or rng.choice(SURNAMES)
            if (first, surname) not in self._used and not self._close(first, surname):
                self._used.add((first, surname))
                self._firsts.setdefault(surname, []).append(first)
                middle = rng.choice(MIDDLE_NAMES) if rng.random() < 0.6 else ""
                return first, middle, surname
        raise RuntimeError("name pool exhausted")

    def not_listed(self) -> tuple[str, str, str]:
        first, _, _ = self.name()
        return first, "", self._rng.choice(NOT_LISTED_SURNAMES)

    def address(self, streets: Sequence[str]) -> tuple[str, str]:
        """(house number, street), not used before in this case."""
        for _ in range(1000):
            key = (str(self._rng.randint(1, 180)), self._rng.choice(streets))
            if key not in self._addresses:
                self._addresses.add(key)
                return key
        raise RuntimeError("address pool exhausted")


@dataclass(frozen=True, slots=True)
class Voter:
    sboeid: str
    first: str
    middle: str
    last: str
    house: str
    street: str
    city: str
    town: str
    ed: str
    ward: str
    reg_date: dt.date
    dob: dt.date
    suffix: str = ""  # "Jr", "Sr"
    half: str = ""  # a fractional house number's fraction: "1/2"
    apartment: str = ""
    status: str = "A"  # A active, I inactive, P purged
    purge_date: dt.date | None = None

    @property
    def printed(self) -> str:
        return " ".join(p for p in (self.first, self.middle[:1], self.last, self.suffix) if p)

    @property
    def residence(self) -> str:
        """As a signer writes it: "12 1/2 Mill St Apt 3"."""
        number = f"{self.house} {self.half}".strip()
        street = f"{number} {self.street}"
        return f"{street} Apt {self.apartment}" if self.apartment else street


def _ymd(d: dt.date | None) -> str:
    return d.strftime("%Y%m%d") if d is not None else ""


def write_register(voters: Iterable[Voter], county_code: str, zip5: str, path: Path) -> int:
    """The NYS BOE 45-field export: every field quoted, no header, CR-LF, dates YYYYMMDD."""
    n = 0
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        for v in voters:
            values = {
                "LASTNAME": v.last,
                "FIRSTNAME": v.first,
                "MIDDLENAME": v.middle,
                "RADDNUMBER": v.house,
                "RSTREETNAME": v.street,
                "RCITY": v.city,
                "RZIP5": zip5,
                "DOB": _ymd(v.dob),
                "GENDER": "U",
                "ENROLLMENT": "BLK",
                "COUNTYCODE": county_code,
                "ED": v.ed,
                "TOWNCITY": v.town,
                "WARD": v.ward,
                "COUNTYVRNUMBER": v.sboeid[-7:],
                "REGDATE": _ymd(v.reg_date),
                "VRSOURCE": "MAIL",
                "IDREQUIRED": "N",
                "IDMET": "Y",
                "STATUS": v.status,
                "REASONCODE": "MOVED" if v.status == "P" else "",
                "PURGE_DATE": _ymd(v.purge_date),
                "NAMESUFFIX": v.suffix,
                "RHALFCODE": v.half,
                "RAPARTMENT": v.apartment,
                "SBOEID": v.sboeid,
            }
            writer.writerow([values.get(name, "") for name in NYSBOE_45_FIELDS])
            n += 1
    return n


@dataclass(frozen=True, slots=True)
class Owner:
    """An owner of record. A person's roll name is "LAST FIRST M"; an organisation's is as
    written, and it has no printed name to sign with."""

    roll_name: str
    mailing: str  # "12 Maple Ave, Greenfield"
    resident: bool
    first: str = ""
    middle: str = ""
    last: str = ""

    @property
    def person(self) -> bool:
        return bool(self.first)

    @property
    def printed(self) -> str:
        return " ".join(p for p in (self.first, self.middle[:1], self.last) if p)


@dataclass(frozen=True, slots=True)
class Parcel:
    parcel_id: str
    property_address: str
    value: int  # assessed value, whole dollars
    owners: tuple[Owner, ...]
    taxable: bool = True
    share: str = "1"  # share_inside as written: "1", "0.5", "0.25"
    town: str = ""  # "": the case's town


ROLL_HEADER = ROLL_COLUMNS  # the roll reader's layout (matchers/assessment_roll.py)


def write_roll(parcels: Iterable[Parcel], town: str, path: Path) -> int:
    """Our roll CSV: a header row, one row per owner of a parcel."""
    n = 0
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(ROLL_HEADER)
        for p in parcels:
            for o in p.owners:
                writer.writerow(
                    (
                        p.parcel_id,
                        p.town or town,
                        p.property_address,
                        o.roll_name,
                        o.mailing,
                        "Y" if o.resident else "N",
                        str(p.value),
                        "Y" if p.taxable else "N",
                        p.share,
                    )
                )
                n += 1
    return n
