"""Reading the register of voters: the NYS Board of Elections export, or any CSV with a header.

`read_register` streams the file with the csv module (a county export has hundreds of thousands
of rows), turns every good row into a `RegisterEntry` and every bad one into a `BadRow` with its
row number and what is wrong with it. Nothing is dropped silently: `rows_read` equals
`len(entries) + len(bad_rows)`.

Row numbers are 1-based CSV records of the file, counting a header row if there is one, so they
are the row numbers a spreadsheet shows (for files without line breaks inside quoted values).

The NYS export comes in two layouts, told apart by the number of fields in its rows:

- 45 fields: the layout in the BOE document (shared/reference/voter-file-layouts/).
- 47 fields: the newer export; see `NYSBOE_47_FIELDS` for where its order comes from.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import hashlib
import io
import itertools
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import IO

from pipeline.casefile import LimitsConfig, RegisterConfig, RegisterFormat
from pipeline.errors import CaseFileError, InputMissingError, PetitionError, UnreadableInputError
from pipeline.records import RegisterEntry

__all__ = [
    "BadRow",
    "FileFacts",
    "JUNK_ROWS",
    "JUNK_SHARE",
    "JunkFileError",
    "check_file",
    "check_mapping",
    "is_junk",
    "junk_error",
    "limited_lines",
    "long_line_error",
    "scan_file",
    "stop_on_junk",
    "stop_on_junk_at_the_start",
    "NYSBOE_45_FIELDS",
    "NYSBOE_47_FIELDS",
    "RegisterRead",
    "read_register",
]

log = logging.getLogger(__name__)

# The official 45-field layout ("Data File Layout for voter list exports from NYSVoter",
# shared/reference/voter-file-layouts/nysboe-voter-file-layout.txt), in field order.
NYSBOE_45_FIELDS: tuple[str, ...] = (
    "LASTNAME", "FIRSTNAME", "MIDDLENAME", "NAMESUFFIX",
    "RADDNUMBER", "RHALFCODE", "RAPARTMENT", "RPREDIRECTION", "RSTREETNAME", "RPOSTDIRECTION",
    "RCITY", "RZIP5", "RZIP4",
    "MAILADD1", "MAILADD2", "MAILADD3", "MAILADD4",
    "DOB", "GENDER", "ENROLLMENT", "OTHERPARTY",
    "COUNTYCODE", "ED", "LD", "TOWNCITY", "WARD", "CD", "SD", "AD",
    "LASTVOTEDDATE", "PREVYEARVOTED", "PREVCOUNTY", "PREVADDRESS", "PREVNAME",
    "COUNTYVRNUMBER", "REGDATE", "VRSOURCE", "IDREQUIRED", "IDMET",
    "STATUS", "REASONCODE", "INACT_DATE", "PURGE_DATE", "SBOEID", "VoterHistory",
)  # fmt: skip

# The 47-field layout. THIS IS OUR READING, NOT AN OFFICIAL DOCUMENT: we do not have the BOE's
# 47-field layout. What we know (shared/README.md): the newer export adds RAPARTMENTTYPE and
# RADDRNONSTD and renames LASTVOTEDDATE to LASTVOTERDATE. The order below is the one the New York
# State Senate's SAGE geocoder uses to parse the statewide voter file (github.com/nysenate/GeoApi,
# src/main/java/gov/nysenate/sage/scripts/streetfinder/scripts/utils/VoterFileField.java):
# RAPARTMENTTYPE and RAPARTMENT come after RPOSTDIRECTION, then RADDRNONSTD, and LASTVOTERDATE
# stands where LASTVOTEDDATE stood. If an official document says otherwise, fix this one table.
NYSBOE_47_FIELDS: tuple[str, ...] = (
    "LASTNAME", "FIRSTNAME", "MIDDLENAME", "NAMESUFFIX",
    "RADDNUMBER", "RHALFCODE", "RPREDIRECTION", "RSTREETNAME", "RPOSTDIRECTION",
    "RAPARTMENTTYPE", "RAPARTMENT", "RADDRNONSTD",
    "RCITY", "RZIP5", "RZIP4",
    "MAILADD1", "MAILADD2", "MAILADD3", "MAILADD4",
    "DOB", "GENDER", "ENROLLMENT", "OTHERPARTY",
    "COUNTYCODE", "ED", "LD", "TOWNCITY", "WARD", "CD", "SD", "AD",
    "LASTVOTERDATE", "PREVYEARVOTED", "PREVCOUNTY", "PREVADDRESS", "PREVNAME",
    "COUNTYVRNUMBER", "REGDATE", "VRSOURCE", "IDREQUIRED", "IDMET",
    "STATUS", "REASONCODE", "INACT_DATE", "PURGE_DATE", "SBOEID", "VoterHistory",
)  # fmt: skip

_NYSBOE_LAYOUTS: Mapping[int, tuple[str, tuple[str, ...]]] = {
    len(NYSBOE_45_FIELDS): ("nysboe-45", NYSBOE_45_FIELDS),
    len(NYSBOE_47_FIELDS): ("nysboe-47", NYSBOE_47_FIELDS),
}

# RegisterEntry field <- NYS BOE field (both layouts).
NYSBOE_TEXT_FIELDS: Mapping[str, str] = {
    "voter_id": "SBOEID",
    "last_name": "LASTNAME",
    "first_name": "FIRSTNAME",
    "middle_name": "MIDDLENAME",
    "suffix": "NAMESUFFIX",
    "house_number": "RADDNUMBER",
    "half_code": "RHALFCODE",
    "apartment": "RAPARTMENT",
    "pre_direction": "RPREDIRECTION",
    "street_name": "RSTREETNAME",
    "post_direction": "RPOSTDIRECTION",
    "city": "RCITY",
    "zip5": "RZIP5",
    "town_city": "TOWNCITY",
    "ward": "WARD",
    "election_district": "ED",
    "county_code": "COUNTYCODE",
    "status": "STATUS",
    "reason_code": "REASONCODE",
}
NYSBOE_DATE_FIELDS: Mapping[str, str] = {
    "registration_date": "REGDATE",
    "inactive_date": "INACT_DATE",
    "purge_date": "PURGE_DATE",
}

_DATE_FIELDS = frozenset({"registration_date", "inactive_date", "purge_date"})
_ENTRY_FIELDS = tuple(f.name for f in fields(RegisterEntry) if f.name != "source_row")
_REQUIRED = ("voter_id",)  # a row without these is a bad row ...
# ... and one with neither name. A row lacking one name (a voter registered under one name, a
# surname lost in an export) is kept: the voter can still be matched on the rest.
_NAMES = ("last_name", "first_name")
_GENERIC_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%Y%m%d")
_SNIFF_BYTES = 8192
_MAX_PROBLEMS_SHOWN = 5
# A file whose rows are mostly not register rows is not a register: reading stops once this
# many rows are bad and they are more than this share of the rows read.
JUNK_ROWS = 1000
JUNK_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class BadRow:
    """A row of the register file that could not become an entry, and why."""

    row: int  # 1-based record number in the file (a header row counts)
    problem: str


@dataclass(frozen=True, slots=True)
class RegisterRead:
    """What reading one register file produced."""

    path: str
    layout: str  # "nysboe-45" | "nysboe-47" | "csv"
    sha256: str  # of the file's bytes
    entries: tuple[RegisterEntry, ...]
    bad_rows: tuple[BadRow, ...]
    rows_read: int  # data rows (a header row is not one): len(entries) + len(bad_rows)
    # entries kept though they lack a surname or a given name (matched on the rest): for a
    # finding, so that a person knows why such a voter's lines score lower
    incomplete: tuple[BadRow, ...] = ()


class _BadRowError(Exception):
    """Internal: this row cannot become an entry."""


# --------------------------------------------------------------------------------------------
# The file: existence, hash, text or not, encoding
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileFacts:
    """What one pass over a register file's bytes finds, before it is parsed."""

    sha256: str
    utf8: bool  # every byte sequence is UTF-8 (else the file is read as Latin-1)
    lines: int  # lines with something on them (a CSV record may take several)
    longest: int  # the longest line, in bytes
    longest_at: int  # its 1-based line number


def check_file(path: Path, limits: LimitsConfig | None = None) -> str:
    """The file's sha256; raises if it is missing, too large or is not text."""
    return scan_file(path, limits).sha256


def scan_file(path: Path, limits: LimitsConfig | None = None) -> FileFacts:
    """One pass over the file: its hash, whether it is UTF-8, its lines and the longest one;
    raises if it is missing, too large or is not text."""
    limits = limits or LimitsConfig()
    if not path.exists():
        raise InputMissingError(
            f"{path}: the register file does not exist. Check [register] path in the case file "
            "(a relative path is read from the case file's folder), or put the register export "
            "there."
        )
    if not path.is_file():
        raise InputMissingError(
            f"{path}: the register path is not a file. Point [register] path in the case file "
            "at the register export itself."
        )
    size = path.stat().st_size
    if size > limits.register_bytes:
        raise UnreadableInputError(
            f"{path}: the register file is {size:,} bytes, over the limit of "
            f"{limits.register_bytes:,} ([limits] register_bytes)"
        )
    digest = hashlib.sha256()
    utf8 = codecs.getincrementaldecoder("utf-8")()
    is_utf8, lines, longest, longest_at, numbered, carry = True, 0, 0, 0, 0, b""
    # A line is held while it is read: one over this (any text of line_chars characters is
    # shorter in UTF-8) stops the read, whatever the file holds.
    cap = 4 * limits.line_chars
    try:
        with path.open("rb") as fh:
            head = fh.read(_SNIFF_BYTES)
            for chunk in itertools.chain([head], iter(lambda: fh.read(1 << 20), b"")):
                digest.update(chunk)
                if is_utf8:
                    try:
                        utf8.decode(chunk)
                    except UnicodeDecodeError:
                        is_utf8 = False
                parts = (carry + chunk).split(b"\n")
                carry = parts.pop()
                if parts and (size := max(map(len, parts))) > longest:
                    longest = size
                    longest_at = numbered + [len(x) for x in parts].index(size) + 1
                lines += len(parts) - parts.count(b"") - parts.count(b"\r")
                numbered += len(parts)
                if len(carry) > cap:
                    longest, longest_at = len(carry), numbered + 1
                    break
    except OSError as err:
        raise UnreadableInputError(f"{path}: the register file cannot be opened: {err}") from None
    if carry.strip():
        lines += 1
        if len(carry) > longest:
            longest, longest_at = len(carry), numbered + 1
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UnreadableInputError(
            f"{path}: the register file is UTF-16 text (Excel's 'Unicode Text'); save it as "
            "'CSV UTF-8' and point [register] path at that file."
        )
    if b"\x00" in head:
        what = "a PDF" if head.startswith(b"%PDF") else "a binary file"
        raise UnreadableInputError(
            f"{path}: the register file is {what}, not a CSV text file. Give the voter file as "
            "the CSV export (NYS BOE layout, or a CSV with a header row and format = 'csv')."
        )
    if head.startswith(b"%PDF"):
        raise UnreadableInputError(
            f"{path}: the register file is a PDF, not a CSV text file. Give the voter file as "
            "the CSV export (NYS BOE layout, or a CSV with a header row and format = 'csv')."
        )
    if longest > cap:  # then over line_chars characters, whatever the encoding
        raise long_line_error(path, longest_at, limits.line_chars, "register file")
    return FileFacts(digest.hexdigest(), is_utf8, lines, longest, longest_at)


def long_line_error(path: Path, line: int, limit: int, what: str) -> UnreadableInputError:
    return UnreadableInputError(
        f"{path}: line {line:,} of the {what} is over {limit:,} characters: not a CSV export "
        "([limits] line_chars)"
    )


def _with_encoding_fallback(path: Path, read: Callable[[IO[str]], RegisterRead]) -> RegisterRead:
    """Run `read` on the file as UTF-8; if a byte is not UTF-8, run it again as Latin-1 (state
    exports are sometimes Latin-1). Latin-1 decodes any byte, so the second run never fails on
    encoding."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            return read(fh)
    except UnicodeDecodeError as err:
        log.info("%s: not UTF-8 (byte %d); reading it as Latin-1", path, err.start)
    with path.open(encoding="latin-1", newline="") as fh:
        return read(fh)


class _Lines:
    """The file's lines, each at most `limit` characters (a longer one stops the read: no
    register has it, and a file without line breaks would be held whole), counted."""

    def __init__(self, path: Path, fh: IO[str], limit: int, what: str) -> None:
        self.path, self.fh, self.limit, self.what = path, fh, limit, what
        self.count = 0

    def __iter__(self) -> Iterator[str]:
        while line := self.fh.readline(self.limit + 1):
            self.count += 1
            if len(line) > self.limit:
                raise long_line_error(self.path, self.count, self.limit, self.what)
            yield line


def limited_lines(path: Path, fh: IO[str], limit: int, what: str) -> _Lines:
    return _Lines(path, fh, limit, what)


def _records(path: Path, fh: IO[str], limit: int) -> Iterator[tuple[int, list[str], int]]:
    """(1-based record number, stripped values, physical lines it took) for every CSV record
    in the file. A record over several lines is a value with line breaks in it, in a register
    almost always an unterminated quote that took in the rows after it."""
    lines = limited_lines(path, fh, limit, "register file")
    reader = csv.reader(lines, strict=False)
    n = 0
    while True:
        before = lines.count
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            raise UnreadableInputError(
                f"{path}: the register file is not readable as CSV at row {n + 1}: {err}"
            ) from None
        n += 1
        yield n, [v.strip() for v in row], lines.count - before


def _swallowed(row: int, values: Sequence[str], taken: int) -> list[BadRow] | None:
    """The bad rows of a record that took in `taken` lines through an unterminated quote: one
    for each line, so that every row a voter may be on is counted."""
    if taken <= 1 or not any("\n" in v for v in values):
        return None
    problem = f"an unterminated quote: one value runs over {taken} lines from row {row}"
    return [BadRow(row, problem)] * taken


def stop_on_junk(path: Path, good: int, bad: Sequence[BadRow], what: str = "register") -> None:
    """Stops reading a file that is mostly not rows of a `what`: memory and time stay bounded
    whatever the file holds."""
    if is_junk(good, len(bad)):
        raise junk_error(path, good, len(bad), bad[0], what)


def is_junk(good: int, bad: int) -> bool:
    """Whether a file's first `good + bad` rows, `bad` of them bad, show it is not a register."""
    return bad >= JUNK_ROWS and bad > JUNK_SHARE * (good + bad)


class JunkFileError(UnreadableInputError):
    """A file whose rows are mostly not rows of what it should be (`is_junk`)."""


def junk_error(path: Path, good: int, bad: int, first: BadRow, what: str) -> JunkFileError:
    return JunkFileError(
        f"{path}: {bad:,} of the first {good + bad:,} rows are not {what} rows (row "
        f"{first.row}: {first.problem}): not a {what} file; reading stopped. Check the file and "
        "its format in the case file."
    )


def stop_on_junk_at_the_start(
    cfg: RegisterConfig, facts: FileFacts, limits: LimitsConfig, rows: int = 20_000
) -> None:
    """The stream's reading of the file's first `rows` lines (16 M characters at most): raises
    JunkFileError where they show a file mostly of junk, as `read_register` would, before the
    whole file is imported into DuckDB (`matchers.store`). Other problems of the first lines
    are left to the import, which reads them all."""
    path = Path(cfg.path)
    with path.open(encoding="utf-8-sig" if facts.utf8 else "latin-1", newline="") as fh:
        head: list[str] = []
        size = 0
        while len(head) < rows and size < 1 << 24 and (line := fh.readline(4 * limits.line_chars)):
            head.append(line)
            size += len(line)
    text = io.StringIO("".join(head))
    try:
        if cfg.format is RegisterFormat.CSV:
            _read_generic(path, facts.sha256, dict(cfg.columns), text, limits.line_chars)
        else:
            _read_nysboe(path, facts.sha256, text, limits.line_chars)
    except JunkFileError:
        raise
    except PetitionError:
        pass


# --------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------


def _parse_date(value: str, formats: Sequence[str], column: str) -> dt.date | None:
    if not value:
        return None
    for fmt in formats:
        if fmt == "%Y%m%d" and not (len(value) == 8 and value.isdigit()):
            continue  # strptime alone would take "2019111" (7 digits) as 2019-11-01
        try:
            return dt.datetime.strptime(value, fmt).date()
        except ValueError:
            continue
    expected = " or ".join(
        f.replace("%Y", "YYYY").replace("%m", "MM").replace("%d", "DD") for f in formats
    )
    raise _BadRowError(f"{column} {value!r} is not a date ({expected})")


def _nysboe_date(value: str, column: str) -> dt.date | None:
    return _parse_date(value, ("%Y%m%d",), column)


def _make_entry(
    values: Mapping[str, str],
    dates: Mapping[str, dt.date | None],
    row: int,
    columns: Mapping[str, str],
) -> RegisterEntry:
    missing = [columns[k] for k in _REQUIRED if not values.get(k)]
    if not any(values.get(k) for k in _NAMES):
        missing.append(" and no ".join(columns.get(k, k) for k in _NAMES))
    if missing:
        raise _BadRowError("no " + " and no ".join(missing))
    # The keys are RegisterEntry fields (checked against its dataclass fields).
    return RegisterEntry(**values, **dates, source_row=row)  # type: ignore[arg-type]


def _finish(
    path: Path, layout: str, sha256: str, entries: list[RegisterEntry], bad: list[BadRow]
) -> RegisterRead:
    if not entries:
        if not bad:
            raise UnreadableInputError(
                f"{path}: the register file has no rows. Check that it is the right file and "
                "that the export finished."
            )
        shown = "; ".join(f"row {b.row}: {b.problem}" for b in bad[:_MAX_PROBLEMS_SHOWN])
        raise UnreadableInputError(
            f"{path}: no row of the register file could be read ({len(bad)} bad rows; {shown}). "
            "Check the register format in the case file ('nysboe' or 'csv' with "
            "[register.columns])."
        )
    log.info(
        "%s: register read as %s: %d entries, %d bad rows", path, layout, len(entries), len(bad)
    )
    return RegisterRead(
        path=str(path),
        layout=layout,
        sha256=sha256,
        entries=tuple(entries),
        bad_rows=tuple(bad),
        rows_read=len(entries) + len(bad),
        incomplete=tuple(
            BadRow(e.source_row, "no " + ("last" if not e.last_name else "first") + " name; kept")
            for e in entries
            if not e.last_name or not e.first_name
        ),
    )


# --------------------------------------------------------------------------------------------
# NYS BOE export
# --------------------------------------------------------------------------------------------


def _nysboe_entry(row_values: Sequence[str], names: Sequence[str], row: int) -> RegisterEntry:
    by_name = dict(zip(names, row_values, strict=True))
    values = {k: by_name[v] for k, v in NYSBOE_TEXT_FIELDS.items()}
    if not values["apartment"] and by_name.get("RAPARTMENTTYPE"):
        values["apartment"] = by_name["RAPARTMENTTYPE"]  # a unit without a number: "REAR", "BSMT"
    if not values["street_name"] and not values["house_number"] and by_name.get("RADDRNONSTD"):
        values["street_name"] = by_name["RADDRNONSTD"]  # a non-standard address, as one text
    dates = {k: _nysboe_date(by_name[v], v) for k, v in NYSBOE_DATE_FIELDS.items()}
    return _make_entry(values, dates, row, NYSBOE_TEXT_FIELDS)


def _is_nysboe_header(values: Sequence[str], names: Sequence[str]) -> bool:
    return [v.upper() for v in values] == [n.upper() for n in names]


def _read_nysboe(path: Path, sha256: str, fh: IO[str], limit: int) -> RegisterRead:
    layout: tuple[str, tuple[str, ...]] | None = None
    detected_at = 0
    entries: list[RegisterEntry] = []
    bad: list[BadRow] = []
    for row, values, taken in _records(path, fh, limit):
        stop_on_junk(path, len(entries), bad)
        if swallowed := _swallowed(row, values, taken):
            bad += swallowed
            continue
        if not any(values):
            bad.append(BadRow(row, "empty row"))
            continue
        if layout is None and len(values) in _NYSBOE_LAYOUTS:
            layout = _NYSBOE_LAYOUTS[len(values)]
            detected_at = row
            log.debug("%s: layout %s (detected at row %d)", path, layout[0], row)
        if layout is None or len(values) != len(layout[1]):
            expected = (
                f"{len(layout[1])} (layout {layout[0]}, from row {detected_at})"
                if layout
                else " or ".join(str(n) for n in _NYSBOE_LAYOUTS)
            )
            bad.append(BadRow(row, f"{len(values)} fields; expected {expected}"))
            continue
        if _is_nysboe_header(values, layout[1]):  # the first row, or exports put together
            log.info("%s: row %d is a header row, not a voter; skipped", path, row)
            continue
        try:
            entries.append(_nysboe_entry(values, layout[1], row))
        except _BadRowError as err:
            bad.append(BadRow(row, str(err)))
    name = layout[0] if layout else "nysboe-45"
    return _finish(path, name, sha256, entries, bad)


# --------------------------------------------------------------------------------------------
# Generic CSV with a header row
# --------------------------------------------------------------------------------------------


def check_mapping(columns: Mapping[str, str]) -> None:
    problems = [
        f"unknown register field {k!r} (known: {', '.join(_ENTRY_FIELDS)})"
        for k in columns
        if k not in _ENTRY_FIELDS
    ]
    problems += [
        f"{k}: a register field needs a column name" for k, v in columns.items() if not v.strip()
    ]
    if problems:
        raise CaseFileError("[register.columns]", problems)


def _find_columns(path: Path, header: Sequence[str], columns: Mapping[str, str]) -> dict[str, int]:
    """RegisterEntry field -> index in the header. Exact header names first, then
    case-insensitive; a mapped column the header does not have is an error."""
    exact = {h: i for i, h in reversed(list(enumerate(header)))}
    folded = {h.casefold(): i for i, h in reversed(list(enumerate(header)))}
    found: dict[str, int] = {}
    missing: list[str] = []
    for entry_field, column in columns.items():
        col = column.strip()
        index = exact.get(col, folded.get(col.casefold()))
        if index is None:
            missing.append(f"{col!r} (for {entry_field})")
        else:
            found[entry_field] = index
    if missing:
        raise UnreadableInputError(
            f"{path}: the register file has no column {', '.join(missing)}. Its header row has: "
            f"{', '.join(repr(h) for h in header)}. Fix [register.columns] in the case file."
        )
    return found


def _generic_entry(
    values: Sequence[str], index: Mapping[str, int], row: int, columns: Mapping[str, str]
) -> RegisterEntry:
    text = {k: values[i] for k, i in index.items() if k not in _DATE_FIELDS}
    dates = {
        k: _parse_date(values[i], _GENERIC_DATE_FORMATS, columns[k])
        for k, i in index.items()
        if k in _DATE_FIELDS
    }
    return _make_entry(text, dates, row, columns)


def _read_generic(
    path: Path, sha256: str, columns: Mapping[str, str], fh: IO[str], limit: int
) -> RegisterRead:
    records = _records(path, fh, limit)
    header: list[str] | None = None
    for _row, values, _taken in records:
        if any(values):
            header = values
            break
    if header is None:
        raise UnreadableInputError(
            f"{path}: the register file is empty; format = 'csv' needs a header row and rows."
        )
    index = _find_columns(path, header, columns)
    folded = [h.casefold() for h in header]
    entries: list[RegisterEntry] = []
    bad: list[BadRow] = []
    for row, values, taken in records:
        stop_on_junk(path, len(entries), bad)
        if swallowed := _swallowed(row, values, taken):
            bad += swallowed
            continue
        if not any(values):
            bad.append(BadRow(row, "empty row"))
            continue
        if [v.casefold() for v in values] == folded:  # exports put together, headers and all
            log.info("%s: row %d repeats the header row; skipped", path, row)
            continue
        if len(values) < len(header) or any(values[len(header) :]):
            bad.append(BadRow(row, f"{len(values)} fields; the header has {len(header)}"))
            continue
        try:
            entries.append(_generic_entry(values, index, row, columns))
        except _BadRowError as err:
            bad.append(BadRow(row, str(err)))
    return _finish(path, "csv", sha256, entries, bad)


# --------------------------------------------------------------------------------------------


def read_register(cfg: RegisterConfig, limits: LimitsConfig | None = None) -> RegisterRead:
    """Read the register file named by `cfg`.

    Raises InputMissingError if the file does not exist; UnreadableInputError if it is not a
    CSV text file, a mapped column is missing (format "csv"), or no row can be read;
    CaseFileError if [register.columns] names a field RegisterEntry does not have.
    """
    path = Path(cfg.path)
    limits = limits or LimitsConfig()
    if cfg.format is RegisterFormat.CSV:
        check_mapping(cfg.columns)
    sha256 = check_file(path, limits)
    limit = limits.line_chars
    if cfg.format is RegisterFormat.CSV:
        columns = dict(cfg.columns)
        return _with_encoding_fallback(
            path, lambda fh: _read_generic(path, sha256, columns, fh, limit)
        )
    return _with_encoding_fallback(path, lambda fh: _read_nysboe(path, sha256, fh, limit))
