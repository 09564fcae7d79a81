"""The assessment roll: parcels, their owners and values, for the petitions owners sign
(Village Law § 2-202 by owners, Town Law § 191).

Our CSV layout (a header row; README "The assessment roll"), one row per owner of a parcel:

    parcel_id, town, property_address, owner_name, mailing_address, resident, assessed_value,
    taxable, share_inside

Co-owners are several rows with the same parcel_id (and the same value, taxable flag and share).
`owner_name` is written as rolls write it, "SMITH JOHN A"; companies and trusts as they are
("ELMWOOD HOLDINGS LLC"). `resident` (Y/N): the owner lives in the territory or district.
`taxable` (Y/N): N for an exempt parcel. `share_inside` (0..1, default 1): the part of the parcel
inside, as the assessor (2-202) or the town board (191) apportions it. `[roll.columns]` in the
case file maps these names to other headers.

Owners become `RegisterEntry` records (the owner id in `voter_id`), so the same matcher that finds
voters on the register finds owners on the roll; `holdings` feed the valuation.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from pipeline.casefile import LimitsConfig, RollConfig
from pipeline.errors import InputMissingError, UnreadableInputError
from pipeline.records import Holding, RegisterEntry

from .normalize import normalize_address, normalize_name
from .register import BadRow, limited_lines, stop_on_junk

__all__ = ["ROLL_COLUMNS", "RollRead", "owner_id", "parse_owner_name", "read_roll"]

log = logging.getLogger(__name__)

ROLL_COLUMNS = (
    "parcel_id",
    "town",
    "property_address",
    "owner_name",
    "mailing_address",
    "resident",
    "assessed_value",
    "taxable",
    "share_inside",
)
_REQUIRED = ("parcel_id", "town", "owner_name", "assessed_value")

# Words that make an owner an organisation, not a person: its name is kept whole.
_ORGANISATION_WORDS = frozenset(
    [
        "LLC",
        "INC",
        "CORP",
        "CORPORATION",
        "CO",
        "COMPANY",
        "LP",
        "LLP",
        "LTD",
        "TRUST",
        "TRUSTEE",
        "TRUSTEES",
        "ESTATE",
        "ASSOC",
        "ASSOCIATION",
        "BANK",
        "CHURCH",
        "SCHOOL",
        "DISTRICT",
        "VILLAGE",
        "TOWN",
        "COUNTY",
        "STATE",
        "AUTHORITY",
        "PARTNERS",
        "HOLDINGS",
        "REALTY",
        "PROPERTIES",
        "FUND",
        "FOUNDATION",
        "SOCIETY",
    ]
)
_HOUSE = re.compile(r"^\s*(?P<n>\d+(?:-\d+)?[A-Z]?)(?:\s+(?P<half>\d/\d))?\s+(?P<rest>.+)$", re.I)
_APT = re.compile(r"\s+(?:APT|APARTMENT|UNIT|#)\s*\.?\s*(?P<apt>\S+)\s*$", re.I)


def owner_id(owner_name: str, mailing_address: str) -> str:
    """A stable id for an owner: the same person at the same mailing address owning several
    parcels is one owner (credited for each)."""
    key = f"{normalize_name(owner_name)}|{normalize_address(mailing_address)}"
    return "OWN-" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:10].upper()


_JOIN = re.compile(r"\s*(?:&|\bAND\b)\s*", re.IGNORECASE)


def split_co_owners(owner_name: str) -> list[str]:
    """The owners one roll entry names: "SMITH JOHN A & MARY B" is SMITH JOHN A and SMITH MARY
    B (a co-owner written with given names only shares the first owner's surname). An
    organisation's name is one owner ("SMITH & SONS INC")."""
    if parse_owner_name(owner_name)[3]:
        return [owner_name.strip()]
    parts = [p.strip() for p in _JOIN.split(owner_name) if p.strip()]
    if len(parts) <= 1:
        return [owner_name.strip()]
    surname = parts[0].split()[0]
    return [parts[0]] + [p if len(p.split()) > 2 else f"{surname} {p}" for p in parts[1:]]


def parse_owner_name(name: str) -> tuple[str, str, str, bool]:
    """(last, first, middle, is_organisation) from a roll's "SMITH JOHN A"."""
    words = name.replace(",", " ").split()
    if not words:
        return "", "", "", False
    if any(w.upper().strip(".") in _ORGANISATION_WORDS for w in words) or len(words) == 1:
        return " ".join(words), "", "", True
    return words[0], words[1], " ".join(words[2:]), False


def _split_address(text: str) -> tuple[str, str, str, str, str]:
    """(house_number, half_code, street, apartment, city) from "12 1/2 Mill St Apt 3, Elmwood"."""
    street_part, _, city = text.partition(",")
    apartment = ""
    if m := _APT.search(street_part):
        apartment = m["apt"]
        street_part = street_part[: m.start()]
    if m := _HOUSE.match(street_part):
        return m["n"], m["half"] or "", m["rest"].strip(), apartment, city.strip()
    return "", "", street_part.strip(), apartment, city.strip()


# No parcel is assessed at ten trillion dollars: a larger value is a typo or a hostile file
# (and "1e999999999" would be a number of a billion digits).
_MOST_DIGITS = 13


def _decimal(text: str, what: str) -> Fraction:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"{what} {text[:40]!r} is not a number") from None
    if not value.is_finite():
        raise ValueError(f"{what} {text[:40]!r} is not a finite number")
    if value < 0 or (value and value.adjusted() >= _MOST_DIGITS):
        raise ValueError(f"{what} {text[:40]!r} is not a plausible value (0 to 10^{_MOST_DIGITS})")
    return Fraction(value)


def _money(text: str) -> Fraction:
    return _decimal(text.replace(",", "").replace("$", "").strip(), "assessed_value")


def _share(text: str) -> Fraction:
    if not text.strip():
        return Fraction(1)
    share = _decimal(text.strip(), "share_inside")
    if not 0 <= share <= 1:
        raise ValueError(f"share_inside {text!r} is not between 0 and 1")
    return share


def _flag(text: str, default: bool) -> bool:
    t = text.strip().upper()
    if not t:
        return default
    if t in ("Y", "YES", "TRUE", "1"):
        return True
    if t in ("N", "NO", "FALSE", "0"):
        return False
    raise ValueError(f"expected Y or N, got {text!r}")


@dataclass(frozen=True, slots=True)
class RollRead:
    path: str
    sha256: str
    holdings: tuple[Holding, ...]
    owners: tuple[RegisterEntry, ...]  # one per owner id
    bad_rows: tuple[BadRow, ...]
    rows_read: int


def _encoding(path: Path, limits: LimitsConfig) -> str:
    """UTF-8 (with or without a byte-order mark), or Latin-1 when a byte is not UTF-8. The file
    is read in chunks: its size is checked first and it is never held whole."""
    size = path.stat().st_size
    if size > limits.roll_bytes:
        raise UnreadableInputError(
            f"{path}: the assessment roll is {size:,} bytes, over the limit of "
            f"{limits.roll_bytes:,} ([limits] roll_bytes)"
        )
    with path.open("rb") as fh:
        head = fh.read(4096)
        if head[:4] == b"%PDF" or b"\x00" in head:
            raise UnreadableInputError(f"{path}: not a CSV assessment roll (binary or PDF content)")
        fh.seek(0)
        decoder = codecs.getincrementaldecoder("utf-8")()
        try:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return "latin-1"
    return "utf-8-sig"


def _rows(
    path: Path, columns: Mapping[str, str], limits: LimitsConfig
) -> Iterator[tuple[int, dict[str, str]]]:
    fh = path.open(encoding=_encoding(path, limits), newline="")
    with fh:
        yield from _dict_rows(path, columns, limited_lines(path, fh, limits.line_chars, "roll"))


def _dict_rows(
    path: Path, columns: Mapping[str, str], lines: Iterable[str]
) -> Iterator[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(lines)
    try:
        header = [h.lstrip("\ufeff").strip() for h in reader.fieldnames or []]
    except csv.Error as err:
        raise UnreadableInputError(f"{path}: the roll's header is not CSV: {err}") from None
    reader.fieldnames = header
    wanted = {name: columns.get(name, name) for name in ROLL_COLUMNS}
    missing = [
        f"{name} (column {col!r})"
        for name, col in wanted.items()
        if name in _REQUIRED and col not in header
    ]
    if missing:
        raise UnreadableInputError(
            f"{path}: the assessment roll lacks required column(s): {', '.join(missing)}; "
            f"its header is {header}. Map other names with [roll.columns] in the case file."
        )
    n = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            raise UnreadableInputError(
                f"{path}: the roll is not CSV after row {n}: {err}"
            ) from None
        n += 1
        yield n, {name: _text(row.get(col)) for name, col in wanted.items()}


def _text(value: object) -> str:
    """A cell's text; a row longer than the header puts its extra cells in a list (DictReader)."""
    return value.strip() if isinstance(value, str) else ""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_roll(cfg: RollConfig, limits: LimitsConfig | None = None) -> RollRead:
    """Read the roll; bad rows are kept with their row number and problem, never dropped."""
    path = Path(cfg.path)
    limits = limits or LimitsConfig()
    if not path.is_file():
        raise InputMissingError(
            f"{path}: the assessment roll does not exist. Check [roll] path in the case file."
        )
    parcels: dict[str, dict] = {}
    owners: dict[str, RegisterEntry] = {}
    bad: list[BadRow] = []
    rows = 0
    for n, row in _rows(path, cfg.columns, limits):
        rows += 1
        stop_on_junk(path, rows - len(bad), bad, "assessment roll")
        try:
            missing = [c for c in _REQUIRED if not row[c]]
            if missing:
                raise ValueError("empty " + ", ".join(missing))
            value = _money(row["assessed_value"])
            taxable = _flag(row["taxable"], default=True)
            share = _share(row["share_inside"])
            resident = _flag(row["resident"], default=False)
        except ValueError as err:
            bad.append(BadRow(n, str(err)))
            continue
        mailing = row["mailing_address"] or row["property_address"]
        parcel = parcels.setdefault(
            row["parcel_id"],
            {
                "town": row["town"],
                "value": value,
                "taxable": taxable,
                "share": share,
                "owners": [],
                "residents": set(),
                "row": n,
            },
        )
        if (parcel["value"], parcel["taxable"], parcel["share"]) != (value, taxable, share):
            bad.append(BadRow(n, f"parcel {row['parcel_id']} differs from its row {parcel['row']}"))
            continue
        for name in split_co_owners(row["owner_name"]):
            oid = owner_id(name, mailing)
            if oid not in parcel["owners"]:
                parcel["owners"].append(oid)
            if resident:
                parcel["residents"].add(oid)
            if oid in owners:
                continue
            last, first, middle, _ = parse_owner_name(name)
            number, half, street, apartment, city = _split_address(mailing)
            owners[oid] = RegisterEntry(
                voter_id=oid,
                last_name=last,
                first_name=first,
                middle_name=middle,
                house_number=number,
                half_code=half,
                street_name=street,
                apartment=apartment,
                city=city,
                town_city=row["town"],
                status="A",
                source_row=n,
            )
    holdings = tuple(
        Holding(
            parcel_id=pid,
            town=p["town"],
            assessed_value=p["value"],
            owners=tuple(p["owners"]),
            taxable=p["taxable"],
            share_inside=p["share"],
            resident_owners=frozenset(p["residents"]),
        )
        for pid, p in parcels.items()
    )
    if rows and not holdings:
        raise UnreadableInputError(f"{path}: no row of the assessment roll could be read")
    log.info(
        "roll %s: %d parcels, %d owners, %d bad rows",
        path.name,
        len(holdings),
        len(owners),
        len(bad),
    )
    return RollRead(
        path=str(path),
        sha256=_sha256(path),
        holdings=holdings,
        owners=tuple(owners.values()),
        bad_rows=tuple(bad),
        rows_read=rows,
    )
