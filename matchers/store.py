"""The register in an embedded DuckDB database: imported once per register file, then reused.

`open_store(cfg, cache_dir)` hashes the register file (sha256) and opens
`<cache_dir>/register-<sha256[:16]>.duckdb` if an earlier run imported that very file; otherwise
it imports it (DuckDB's CSV reader, with DuckDB's progress bar when `progress=True`) into a new
database file, written under a temporary name and renamed when complete, so a killed import never
leaves a half database that a later case would trust.

What an import keeps, per voter: every `RegisterEntry` field (status with its inactive and purge
dates, registration date, town, ward, election district), the source row, and the normalized
fields and blocking keys the matcher uses (computed in SQL, `NORMALIZED_SQL`). The `meta` table
holds the file's path, sha256, layout, row counts and the import date and time; `bad_rows` every row
that could not be read and why. Rows are never dropped silently: `rows_read == entries +
bad_rows`.

`RegisterStore.from_entries(entries)` builds the same tables in memory from records (a village
register already read, or a test's hand-made entries), so the matcher has one code path.

`entries(as_of=day)` is the register as it stood on `day`: registered on or before it (or no
registration date), and not purged on or before it. `status_on(entry, day)` is the status then.

The SQL normalizers mirror the Python ones in `matchers.normalize` closely but not byte for byte
(exotic letters such as "ß" differ); both sides of every comparison go through the SQL ones, so
they agree with each other exactly. `soundex_sql` is checked against `normalize.soundex`.
"""

from __future__ import annotations

import csv
import datetime as dt
import logging
import os
import random
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path

import duckdb
import pandas as pd

from pipeline.casefile import LimitsConfig, RegisterConfig, RegisterFormat
from pipeline.errors import UnreadableInputError
from pipeline.records import ADDRESS_FIELDS, RegisterEntry, entry_display, street_address

from .nicknames import NICKNAMES, canonical_given_name
from .normalize import ADDRESS_WORDS, DIRECTIONALS, STREET_SUFFIXES
from .register import (
    JUNK_ROWS,
    JUNK_SHARE,
    NYSBOE_45_FIELDS,
    NYSBOE_47_FIELDS,
    NYSBOE_DATE_FIELDS,
    NYSBOE_TEXT_FIELDS,
    BadRow,
    FileFacts,
    check_mapping,
    is_junk,
    junk_error,
    long_line_error,
    scan_file,
    stop_on_junk_at_the_start,
)

__all__ = [
    "BLOCKING_KEYS",
    "HASH_COLUMNS",
    "SCHEMA_VERSION",
    "NORMALIZED_SQL",
    "ImportInfo",
    "RegisterStore",
    "open_store",
    "soundex_sql",
    "status_on",
]

log = logging.getLogger(__name__)

# 9: street suffixes as USPS Publication 28 writes them; 10: the state-scale blocking keys;
# 11: the given name with the address in its postcode (k_given_house_zip, k_given_street_zip)
SCHEMA_VERSION = 11

_TEXT_FIELDS = tuple(
    f.name
    for f in fields(RegisterEntry)
    if f.name not in {"registration_date", "inactive_date", "purge_date", "source_row"}
)
_DATE_FIELDS = ("registration_date", "inactive_date", "purge_date")

_GENERIC_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%Y%m%d")

# The blocking keys, by pass name; each is a column of `entries` and of the lines' table.
BLOCKING_KEYS: tuple[str, ...] = (
    "k_address",  # house number + the street's first 3 letters (directions skipped)
    "k_name",  # soundex(surname) + given initial (nicknames mapped to the formal name first)
    "k_surname_house",  # soundex(surname) + house number
    "k_zip_initials",  # ZIP + surname's first 2 letters + given name's initial
    "k_given_house",  # soundex(given name) + house number + street's initial
    "k_qgram",  # surname's last 3 letters + given name's first 2 (an OCR slip at the start)
    "k_address_initial",  # house number + street's first 3 letters + surname initial
    "k_name_street",  # soundex(surname) + given initial + street's first 3 letters
    "k_surname_street",  # soundex(surname) + street's first 3 letters (no given name, no house)
    "k_prefix",  # surname's first 3 letters + given name's first 3 (a slip late in both)
    # A state's register: the keys above on a common value outgrow max_block, and a line
    # without an address (or with a slip in it) has only its name. The whole surname, or the
    # whole given name, with a part of the other: small blocks among 13 million, and one slip
    # anywhere in a name leaves one of them intact.
    "k_last_initial",  # surname + given name's initial (a slip after it, or only an initial)
    "k_last_given_end",  # surname + given name's last 3 letters (a slip at its start)
    "k_given_last_head",  # given name + surname's first 4 letters (a slip late in the surname)
    "k_given_last_tail",  # given name + surname's last 4 letters (a slip early in it)
    "k_address_initials",  # k_address_initial + the given name's initial
    # A surname changed (marriage), replaced or left out: the given name's start with the
    # address inside its postcode, which no key above has without the surname
    "k_given_house_zip",  # given name's first 2 letters + house number + ZIP
    "k_given_street_zip",  # given name's first 2 letters + street's first 3 letters + ZIP
)
# k_address_initial and k_name_street are the first two made narrower: in a state-sized
# register a house number and a street (or a common surname and an initial) are shared by
# thousands, and a block larger than the matcher's max_block is skipped; the narrower key keeps
# such a voter findable.

# Each key's 64-bit hash, a column of `entries` beside the key (`k_name` -> `h_name`): a blocking
# pass is then one join on integers, and the table `blocks` (pass, h, n) holds each key value's
# block size, so a block too large to use is skipped without counting it at match time. Two key
# values with one hash would share a block: with 13 million values, odds of about 1 in 200,000.
HASH_COLUMNS: dict[str, str] = {key: "h_" + key.removeprefix("k_") for key in BLOCKING_KEYS}


def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _address_map_sql() -> str:
    pairs = ", ".join(f"{_sql_str(k)}: {_sql_str(v)}" for k, v in sorted(ADDRESS_WORDS.items()))
    return "MAP {" + pairs + "}"


def soundex_sql(expr: str) -> str:
    """SQL for `normalize.soundex` of a squashed upper-case name."""
    letters = f"regexp_replace({expr}, '[^A-Z]', '', 'g')"
    digits = f"translate(substr({letters}, 2), 'BFPVCGJKQSXZDTLMNRAEIOUYHW', '111122222222334556')"
    for d in "123456":
        digits = f"regexp_replace({digits}, '{d}+', '{d}', 'g')"
    return f"(left({letters}, 1) || left({digits}, 3))"


def _macros(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        "CREATE OR REPLACE TEMP MACRO fold(s) AS "
        "regexp_replace(upper(strip_accents(coalesce(trim(s), ''))), '[''’‘`´]', '', 'g')"
    )
    con.execute(
        "CREATE OR REPLACE TEMP MACRO nsq(s) AS regexp_replace(fold(s), '[^A-Z0-9]', '', 'g')"
    )
    con.execute(
        "CREATE OR REPLACE TEMP MACRO nwords(s) AS "
        "trim(regexp_replace(regexp_replace(fold(s), '[^A-Z0-9]', ' ', 'g'), ' +', ' ', 'g'))"
    )
    con.execute(
        "CREATE OR REPLACE TEMP MACRO naddr(s) AS array_to_string(list_transform(list_filter("
        "string_split(regexp_replace(replace(fold(s), '#', ' APT '), '[^A-Z0-9/-]', ' ', 'g'), "
        "' '), lambda t: t <> ''), lambda t: coalesce(map_extract_value("
        + _address_map_sql()
        + ", t), t)), ' ')"
    )
    con.execute(f"CREATE OR REPLACE TEMP MACRO sdx(s) AS {soundex_sql('s')}")
    con.execute(
        "CREATE OR REPLACE TEMP MACRO street3(s) AS coalesce(left(list_filter(string_split(s, ' '),"
        " lambda t: t NOT IN ('N','S','E','W','NE','NW','SE','SW'))[1], 3), '')"
    )
    con.execute(
        "CREATE OR REPLACE TEMP MACRO nunit(s) AS "
        "trim(regexp_replace(naddr(s), '^(APT )+|^APT$', '', 'g'))"
    )
    # k(a, b, ...) : '' when any part is '', else the parts joined with '|'
    con.execute(
        "CREATE OR REPLACE TEMP MACRO k2(a, b) AS CASE WHEN a = '' OR b = '' THEN NULL "
        "ELSE a || '|' || b END"
    )
    con.execute(
        "CREATE OR REPLACE TEMP MACRO k3(a, b, c) AS CASE WHEN a = '' OR b = '' OR c = '' "
        "THEN NULL ELSE a || '|' || b || '|' || c END"
    )
    nick = pd.DataFrame(
        {
            "nick": list(NICKNAMES),
            "canon": [canonical_given_name(n) for n in NICKNAMES],
        }
    )
    con.register("nick_df", nick)
    con.execute("CREATE OR REPLACE TEMP TABLE nick AS SELECT * FROM nick_df")
    con.unregister("nick_df")
    # USPS Publication 28's street suffixes (normalize.STREET_SUFFIXES), looked up by a join
    # at the suffix's place only (`sfxat`: 1-based, 0 for none; normalize.suffix_position)
    sfx = pd.DataFrame({"word": list(STREET_SUFFIXES), "std": list(STREET_SUFFIXES.values())})
    con.register("sfx_df", sfx)
    con.execute("CREATE OR REPLACE TEMP TABLE sfx AS SELECT * FROM sfx_df")
    con.unregister("sfx_df")
    dirs = ", ".join(_sql_str(d) for d in sorted(DIRECTIONALS))
    con.execute(
        "CREATE OR REPLACE TEMP MACRO sfxlast(t) AS CASE WHEN len(t) >= 2 AND "
        f"t[len(t)] IN ({dirs}) THEN len(t) - 1 ELSE len(t) END"
    )
    con.execute(
        "CREATE OR REPLACE TEMP MACRO sfxat(t) AS CASE WHEN sfxlast(t) >= 2 AND "
        f"len(list_filter(t[1:sfxlast(t) - 1], lambda y: y NOT IN ({dirs}))) > 0 "
        "THEN sfxlast(t) ELSE 0 END"
    )


# Normalized fields and blocking keys from the raw columns of `src` (register or lines).
NORMALIZED_SQL = """
WITH n AS (
    SELECT s.*,
        nsq(s.first_name) AS n_first,
        nwords(s.middle_name) AS n_middle,
        nsq(s.last_name) AS n_last,
        CASE nsq(s.suffix) WHEN 'JUNIOR' THEN 'JR' WHEN 'SENIOR' THEN 'SR' WHEN '2ND' THEN 'II'
            WHEN '3RD' THEN 'III' WHEN '4TH' THEN 'IV' ELSE nsq(s.suffix) END AS n_suffix,
        naddr(trim(coalesce(s.house_number, '') || ' ' || coalesce(s.half_code, ''))) AS n_house,
        string_split(naddr(concat_ws(' ', s.pre_direction, s.street_name, s.post_direction)),
            ' ') AS st_words,
        nunit(s.apartment) AS n_unit,
        left(nsq(s.zip5), 5) AS n_zip
    FROM {src} s
), c AS (
    SELECT n.* EXCLUDE (st_words), coalesce(nick.canon, n.n_first) AS n_first_canon,
        -- the street's suffix as USPS Publication 28 writes it (normalize.standard_suffix)
        CASE WHEN sfx.std IS NULL THEN array_to_string(n.st_words, ' ')
            ELSE array_to_string(list_concat(n.st_words[1:sfxat(n.st_words) - 1], [sfx.std],
                n.st_words[sfxat(n.st_words) + 1:]), ' ') END AS n_street
    FROM n LEFT JOIN nick ON nick.nick = n.n_first
    LEFT JOIN sfx ON sfxat(n.st_words) > 0 AND sfx.word = n.st_words[sfxat(n.st_words)]
)
SELECT c.*,
    k2(n_house, street3(n_street)) AS k_address,
    k2(sdx(n_last), left(n_first_canon, 1)) AS k_name,
    k2(sdx(n_last), n_house) AS k_surname_house,
    k3(n_zip, left(n_last, 2), left(n_first_canon, 1)) AS k_zip_initials,
    k3(sdx(n_first_canon), n_house, left(street3(n_street), 1)) AS k_given_house,
    k2(CASE WHEN length(n_last) >= 4 THEN right(n_last, 3) ELSE '' END, left(n_first_canon, 2))
        AS k_qgram,
    k3(n_house, street3(n_street), left(n_last, 1)) AS k_address_initial,
    k3(sdx(n_last), left(n_first_canon, 1), street3(n_street)) AS k_name_street,
    k2(sdx(n_last), street3(n_street)) AS k_surname_street,
    k2(CASE WHEN length(n_last) >= 3 THEN left(n_last, 3) ELSE '' END,
        CASE WHEN length(n_first_canon) >= 3 THEN left(n_first_canon, 3) ELSE '' END) AS k_prefix,
    k2(n_last, left(n_first_canon, 1)) AS k_last_initial,
    k2(n_last, CASE WHEN length(n_first_canon) >= 4 THEN right(n_first_canon, 3) ELSE '' END)
        AS k_last_given_end,
    k2(n_first_canon, CASE WHEN length(n_last) >= 5 THEN left(n_last, 4) ELSE '' END)
        AS k_given_last_head,
    k2(n_first_canon, CASE WHEN length(n_last) >= 5 THEN right(n_last, 4) ELSE '' END)
        AS k_given_last_tail,
    CASE WHEN n_first_canon <> '' THEN k3(n_house, street3(n_street), left(n_last, 1)) || '|'
        || left(n_first_canon, 1) END AS k_address_initials,
    k3(CASE WHEN length(n_first_canon) >= 2 THEN left(n_first_canon, 2) ELSE '' END, n_house,
        n_zip) AS k_given_house_zip,
    k3(CASE WHEN length(n_first_canon) >= 2 THEN left(n_first_canon, 2) ELSE '' END,
        street3(n_street), n_zip) AS k_given_street_zip
FROM c
"""


@dataclass(frozen=True, slots=True)
class ImportInfo:
    """How and when a register file became a store."""

    path: str
    sha256: str
    layout: str  # "nysboe-45" | "nysboe-47" | "csv" | "records"
    rows_read: int  # data rows: entries + bad_rows
    entries: int
    bad_rows: int
    imported_at: dt.datetime
    seconds: float
    bad_examples: tuple[BadRow, ...] = ()  # the first few, for the report
    duplicate_rows: int = 0  # rows that repeat another row of their voter id exactly
    conflicting_ids: int = 0  # voter ids whose rows disagree (`RegisterStore.conflicting_ids`)


def status_on(entry: RegisterEntry, day: dt.date) -> str:
    """The entry's status as it stood on `day`: "purged", "inactive", "active" or
    "not registered" (registered after `day`)."""
    if entry.registration_date is not None and entry.registration_date > day:
        return "not registered"
    if entry.purge_date is not None and entry.purge_date <= day:
        return "purged"
    if entry.inactive_date is not None and entry.inactive_date <= day:
        return "inactive"
    return "active"


_ENTRY_COLUMNS = ", ".join((*_TEXT_FIELDS, *_DATE_FIELDS, "source_row"))
# what a candidate shows: its voter id, name (`entry_display`'s order) and address
_SHOWN = ("voter_id", "first_name", "middle_name", "last_name", "suffix", *ADDRESS_FIELDS)


class RegisterStore:
    """A register in DuckDB: the `entries` table (RegisterEntry fields, normalized fields and
    blocking keys), `surnames` and `given_names` (distinct), `bad_rows` and `meta`.

    The database connection is the store's own. Whoever needs SQL on the register opens
    `cursor()`, a connection of its own to the same database for one call: its temporary
    tables, registered frames and macros are its own, so two matchers on one store, or two
    threads, never see (or overwrite) each other's. Every method here does the same."""

    def __init__(self, con: duckdb.DuckDBPyConnection, info: ImportInfo) -> None:
        self._con = con
        self._lock = threading.Lock()  # DuckDB's cursor() on one connection, one at a time
        self.info = info

    @contextmanager
    def cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection of its own to the store's database, with the normalizing macros
        (`NORMALIZED_SQL` runs on it), closed when the block ends."""
        with self._lock:
            con = self._con.cursor()
        try:
            _macros(con)
            yield con
        finally:
            con.close()

    # ---- building ------------------------------------------------------------------------

    @classmethod
    def from_entries(cls, entries: Iterable[RegisterEntry]) -> RegisterStore:
        """An in-memory store of the given records (their order is kept)."""
        started = time.perf_counter()
        rows = list(entries)
        con = duckdb.connect(":memory:")
        _macros(con)
        frame = pd.DataFrame(
            {
                **{f: [str(getattr(e, f) or "") for e in rows] for f in _TEXT_FIELDS},
                **{
                    f: pd.Series([getattr(e, f) for e in rows], dtype="object")
                    for f in _DATE_FIELDS
                },
                "source_row": [e.source_row for e in rows],
            }
        )
        con.register("raw_df", frame)
        con.execute(
            "CREATE TEMP TABLE raw AS SELECT row_number() OVER () - 1 AS rid, "
            + ", ".join(f"CAST({f} AS VARCHAR) AS {f}" for f in _TEXT_FIELDS)
            + ", "
            + ", ".join(f"CAST({f} AS DATE) AS {f}" for f in _DATE_FIELDS)
            + ", CAST(source_row AS BIGINT) AS source_row FROM raw_df"
        )
        con.unregister("raw_df")
        _finish_tables(con)
        info = ImportInfo(
            path="",
            sha256="",
            layout="records",
            rows_read=len(rows),
            entries=len(rows),
            bad_rows=0,
            imported_at=dt.datetime.now(dt.UTC),
            seconds=time.perf_counter() - started,
        )
        return cls(con, info)

    # ---- reading -------------------------------------------------------------------------

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        with self._lock:
            con = self._con.cursor()
        try:
            return con.execute(sql, list(params)).fetchall()
        finally:
            con.close()

    def __len__(self) -> int:
        rows = self._rows("SELECT count(*) FROM entries")
        return int(rows[0][0]) if rows else 0  # type: ignore[call-overload]

    def entries(self, as_of: dt.date | None = None) -> tuple[RegisterEntry, ...]:
        """Every entry (in file order), or the register as it stood on `as_of`. Meant for a
        village's register; a state file's millions of rows are for the matcher, not a list."""
        where, params = _as_of_clause(as_of)
        return self._entries_where(where, params)

    def count(self, as_of: dt.date | None = None) -> int:
        where, params = _as_of_clause(as_of)
        rows = self._rows(f"SELECT count(*) FROM entries {where}", params)
        return int(rows[0][0]) if rows else 0  # type: ignore[call-overload]

    def entries_in_town(self, town: str) -> tuple[RegisterEntry, ...]:
        """The entries of one town or city (and those with no town given): what can be in a
        village, without reading a state's register into memory."""
        return self._entries_where(
            "WHERE upper(trim(town_city)) = upper(trim(?)) OR coalesce(trim(town_city), '') = ''",
            [town],
        )

    def get(self, voter_ids: Sequence[str]) -> dict[str, RegisterEntry]:
        """The entries with these voter ids (the last row wins when an id repeats)."""
        if not voter_ids:
            return {}
        found = self._entries_where(
            "WHERE voter_id IN (SELECT unnest(?))", [sorted(set(voter_ids))]
        )
        return {e.voter_id: e for e in found}

    def by_rid(self, rids: Sequence[int]) -> list[RegisterEntry]:
        """Entries by internal row id, in the order given."""
        if not len(rids):
            return []
        got = self._rows(
            f"SELECT rid, {_ENTRY_COLUMNS} FROM entries WHERE rid IN (SELECT unnest(?))",
            [sorted({int(r) for r in rids})],
        )
        by = {row[0]: _entry(row[1:]) for row in got}
        return [by[r] for r in rids]

    def shown(self, rids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """(voter id, `RegisterEntry.display`) by internal row id: what a candidate shows, read
        without the rest of the entry."""
        if not len(rids):
            return {}
        got = self._rows(
            f"SELECT rid, {', '.join(_SHOWN)} FROM entries WHERE rid IN (SELECT unnest(?))",
            [sorted({int(r) for r in rids})],
        )
        shown = {}
        for rid, voter_id, *row in got:
            first, middle, last, suffix, *address = [str(v or "") for v in row]
            display = entry_display(first, middle, last, suffix, street_address(*address))
            shown[int(rid)] = (str(voter_id or ""), display)  # type: ignore[call-overload]
        return shown

    def sample_rids(self, n: int, seed: int) -> list[int]:
        """`n` internal row ids drawn at random (with replacement), reproducibly."""
        with self._lock:
            con = self._con.cursor()
        try:  # an array, not 13 million Python ints
            got = con.execute("SELECT rid FROM entries ORDER BY rid").fetchnumpy()["rid"]
        finally:
            con.close()
        if not len(got):
            return []
        rng = random.Random(seed)
        return [int(got[rng.randrange(len(got))]) for _ in range(n)]

    def conflicting_ids(self) -> frozenset[str]:
        """The voter ids whose rows disagree (one voter id, different data)."""
        if not self.info.conflicting_ids:
            return frozenset()
        return frozenset(str(r[0]) for r in self._rows("SELECT voter_id FROM conflicting_ids"))

    def bad_rows(self) -> tuple[BadRow, ...]:
        got = self._rows("SELECT row, problem FROM bad_rows ORDER BY row")
        return tuple(BadRow(int(r), str(p)) for r, p in got)  # type: ignore[call-overload]

    def _entries_where(self, where: str, params: list[object]) -> tuple[RegisterEntry, ...]:
        got = self._rows(f"SELECT {_ENTRY_COLUMNS} FROM entries {where} ORDER BY rid", params)
        return tuple(_entry(row) for row in got)

    def close(self) -> None:
        self._con.close()

    def with_info(self, info: ImportInfo) -> RegisterStore:
        """The same database with other import information."""
        return RegisterStore(self._con, info)


def _as_of_clause(as_of: dt.date | None) -> tuple[str, list[object]]:
    if as_of is None:
        return "", []
    return (
        "WHERE (registration_date IS NULL OR registration_date <= ?) "
        "AND (purge_date IS NULL OR purge_date > ?)",
        [as_of, as_of],
    )


def _entry(row: Sequence[object]) -> RegisterEntry:
    n = len(_TEXT_FIELDS)
    text = {f: str(v or "") for f, v in zip(_TEXT_FIELDS, row[:n], strict=True)}
    dates = dict(zip(_DATE_FIELDS, row[n : n + 3], strict=True))
    source_row = row[n + 3]
    return RegisterEntry(
        **text,  # type: ignore[arg-type]
        **dates,  # type: ignore[arg-type]
        source_row=int(source_row) if isinstance(source_row, int) else 0,
    )


def _finish_tables(
    con: duckdb.DuckDBPyConnection, bad: str | None = None, raw_is_view: bool = False
) -> None:
    """From the temp table or view `raw` (rid, RegisterEntry columns): `entries` with
    normalized fields, keys and their hashes (`HASH_COLUMNS`) and `vno`, `blocks`, `surnames`
    (distinct), and `bad_rows`.

    `vno` numbers the voters: the first rid of the voter's id. The matcher ranks one row per
    voter id (an id can repeat in a register); grouping on this integer is the same grouping
    as on the id's text, for a fraction of the work. Only the few repeated ids are looked up."""
    con.execute(
        "CREATE TEMP TABLE repeated AS SELECT voter_id, min(rid) AS vno FROM raw "
        "GROUP BY voter_id HAVING count(*) > 1"
    )
    hashes = ", ".join(
        f"CASE WHEN x.{k} IS NULL THEN NULL ELSE hash(x.{k}) END AS {h}"
        for k, h in HASH_COLUMNS.items()
    )
    con.execute(
        f"CREATE TABLE entries AS SELECT x.*, coalesce(r.vno, x.rid) AS vno, {hashes} "
        f"FROM ({NORMALIZED_SQL.format(src='raw')}) x "
        "LEFT JOIN repeated r ON r.voter_id = x.voter_id"
    )
    con.execute("DROP TABLE repeated")
    con.execute(
        "CREATE TABLE blocks AS "
        + " UNION ALL ".join(
            f"SELECT {bit} AS pass, {h} AS h, count(*) AS n FROM entries "
            f"WHERE {h} IS NOT NULL GROUP BY {h}"
            for bit, h in enumerate(HASH_COLUMNS.values())
        )
    )
    con.execute("CREATE TABLE surnames AS SELECT DISTINCT n_last FROM entries WHERE n_last <> ''")
    con.execute(
        "CREATE TABLE given_names AS SELECT DISTINCT n_first FROM entries WHERE n_first <> ''"
    )
    if bad is None:
        con.execute("CREATE TABLE bad_rows (row BIGINT, problem VARCHAR)")
    else:
        con.execute(f"CREATE TABLE bad_rows AS {bad}")
    con.execute("DROP VIEW raw" if raw_is_view else "DROP TABLE raw")


# --------------------------------------------------------------------------------------------
# Importing a file
# --------------------------------------------------------------------------------------------


def _detect_nysboe(path: Path) -> tuple[str, tuple[str, ...]]:
    """The NYS layout from the field count of the first non-empty record."""
    with path.open(encoding="utf-8", errors="replace", newline="") as fh:
        for row in csv.reader(fh):
            if any(v.strip() for v in row):
                if len(row) == len(NYSBOE_47_FIELDS):
                    return "nysboe-47", NYSBOE_47_FIELDS
                return "nysboe-45", NYSBOE_45_FIELDS
    return "nysboe-45", NYSBOE_45_FIELDS


def _read_csv_sql(path: Path, columns: Sequence[str] | None, facts: FileFacts) -> str:
    """DuckDB's reader of the file (UTF-8: `_as_utf8`): every field text; bad records skipped,
    or kept in `reject_errors` where `_KEEP_REJECTS` is replaced by `store_rejects`."""
    cols = (
        "columns = {" + ", ".join(f"{_sql_str(c)}: 'VARCHAR'" for c in columns) + "}, "
        "auto_detect = false, null_padding = false, header = false, "
        if columns
        else "all_varchar = true, header = true, "
    )
    longest = facts.longest * (1 if facts.utf8 else 2)  # a Latin-1 byte is 1 or 2 in UTF-8
    return (
        f"read_csv({_sql_str(str(path))}, {cols}delim = ',', quote = '\"', escape = '\"', "
        f"ignore_errors = true, strict_mode = true, {_KEEP_REJECTS}"
        f"max_line_size = {max(_DUCKDB_LINE, longest + 16)})"
    )


def _as_utf8(path: Path, into: Path) -> Path:
    """A register that is not UTF-8 is read as Latin-1, as `read_register` reads it (every
    byte is a letter; DuckDB's own Latin-1 refuses 0x80-0x9F): copied into UTF-8 first."""
    with path.open("rb") as src, into.open("wb") as dst:
        for chunk in iter(lambda: src.read(1 << 20), b""):
            dst.write(chunk.decode("latin-1").encode("utf-8"))
    return into


_DUCKDB_LINE = 2_097_152  # DuckDB's default max_line_size
# DuckDB keeps each bad record it is asked to keep (`store_rejects`) at ~23 KB whatever its
# size: 200,000 took 4.6 GB. A file with more lines than this that no row took in is imported
# without them: those lines are counted as bad rows, without their own row numbers and reasons.
_REJECTS = 10_000
_KEEP_REJECTS = "/*keep rejects*/"
_NO_REJECTS = (
    "(SELECT NULL::BIGINT AS line, NULL::VARCHAR AS error_type, NULL::VARCHAR AS csv_line "
    "WHERE false)"
)


def _line_numbers(con: duckdb.DuckDBPyConnection, header_lines: int, rejects: str) -> None:
    """Give the rows of `raw0` (rn: 1..n in file order among the rows read) their line in the
    file: the rn-th line that was not rejected, counting a header line."""
    con.execute(f"CREATE TEMP TABLE rej AS SELECT DISTINCT line FROM {rejects} ORDER BY line")
    con.execute(
        "CREATE TEMP TABLE rej_s AS SELECT line - row_number() OVER (ORDER BY line) AS s, "
        "row_number() OVER (ORDER BY line) AS i FROM rej"
    )
    # line(k) = k + #{i : s_i < k} where s_i = r_i - i is non-decreasing: an ASOF join.
    con.execute(
        "CREATE TEMP TABLE rej_u AS SELECT s - " + str(header_lines) + " AS s, max(i) AS i "
        "FROM rej_s GROUP BY s"
    )
    con.execute(
        "CREATE TEMP VIEW raw1 AS SELECT r.*, r.rn + coalesce(j.i, 0) + "
        + str(header_lines)
        + " AS line FROM raw0 r ASOF LEFT JOIN rej_u j ON r.rn > j.s"
    )


def _csv_header(path: Path) -> list[str]:
    """The first non-empty record of a CSV file (its header row)."""
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as fh:
        for row in csv.reader(fh):
            if any(v.strip() for v in row):
                return [v.strip() for v in row]
    return []


def _import(
    con: duckdb.DuckDBPyConnection,
    cfg: RegisterConfig,
    path: Path,
    facts: FileFacts,
    utf8_file: Path,
) -> tuple[str, int, int, int, int]:
    """Import the file into `entries` and `bad_rows`; (layout, entries, bad rows, rows that
    repeat another exactly, ids whose rows disagree).

    Only the columns a RegisterEntry needs are kept from the file (`raw0`, the one temporary
    copy); line numbers, typing, checks and normalization are views evaluated once, into
    `entries`. `utf8_file` is the file as UTF-8 (`path` itself, or `_as_utf8`'s copy). The
    guarantees of `read_register` hold: a header row repeated in the file is not
    a voter; a value running over several lines (an unterminated quote) is a bad row for each
    line it took in, and every line of the file is an entry, a bad row or a header (the lines
    DuckDB's reader cannot place are bad rows); a file mostly of bad rows is refused
    (`is_junk`, over every first part of the file, as the stream is stopped)."""
    if cfg.format is RegisterFormat.CSV:
        layout = "csv"
        header = _csv_header(utf8_file)
        folded = {h.casefold(): h for h in reversed(header)}
        missing = [c for c in cfg.columns.values() if c.strip().casefold() not in folded]
        if missing:
            raise UnreadableInputError(
                f"{path}: the register file has no column {', '.join(map(repr, missing))}. Its "
                f"header row has: {', '.join(map(repr, header))}. Fix [register.columns]."
            )
        mapped = {k: folded[v.strip().casefold()] for k, v in cfg.columns.items()}

        def col(name: str) -> str:
            return '"' + name.replace('"', '""') + '"'

        text = {
            f: f"trim(coalesce({col(mapped[f])}, ''))" if f in mapped else "''"
            for f in _TEXT_FIELDS
        }
        date_sql = {
            f: (
                f"nullif(trim(coalesce({col(mapped[f])}, '')), '')"
                if f in mapped
                else "CAST(NULL AS VARCHAR)"
            )
            for f in _DATE_FIELDS
        }
        formats: tuple[str, ...] = _GENERIC_DATE_FORMATS
        source = _read_csv_sql(utf8_file, None, facts)
        header_lines = 1
        is_header = " AND ".join(
            f"lower(trim(coalesce({col(h)}, ''))) = {_sql_str(h.strip().lower())}"
            for h in mapped.values()
        )
    else:
        layout, names = _detect_nysboe(utf8_file)
        text = {
            f: f"trim(coalesce({NYSBOE_TEXT_FIELDS[f]}, ''))" if f in NYSBOE_TEXT_FIELDS else "''"
            for f in _TEXT_FIELDS
        }
        if "RAPARTMENTTYPE" in names:
            text["apartment"] = (
                "CASE WHEN trim(coalesce(RAPARTMENT, '')) = '' "
                "THEN trim(coalesce(RAPARTMENTTYPE, '')) ELSE trim(RAPARTMENT) END"
            )
            text["street_name"] = (
                "CASE WHEN trim(coalesce(RSTREETNAME, '')) = '' AND "
                "trim(coalesce(RADDNUMBER, '')) = '' THEN trim(coalesce(RADDRNONSTD, '')) "
                "ELSE trim(coalesce(RSTREETNAME, '')) END"
            )
        date_sql = {
            f: f"nullif(trim(coalesce({c}, '')), '')" for f, c in NYSBOE_DATE_FIELDS.items()
        }
        formats = ("%Y%m%d",)
        source = _read_csv_sql(utf8_file, names, facts)
        header_lines = 0
        is_header = " AND ".join(
            f"upper(trim(coalesce({c}, ''))) = '{c.upper()}'"
            for c in ("LASTNAME", "FIRSTNAME", "SBOEID")
        )
    keep = ", ".join(
        [*(f"{expr} AS {f}" for f, expr in text.items())]
        + [f"{date_sql[f]} AS {f}_raw" for f in _DATE_FIELDS]
    )
    raw0 = (
        f"CREATE TEMP TABLE raw0 AS SELECT {keep}, {is_header} AS is_header, "
        f"row_number() OVER () AS rn FROM {source}"
    )
    con.execute(raw0)
    rejects = _NO_REJECTS
    missed = facts.lines - header_lines - _scalar(con, "SELECT count(*) FROM raw0")
    if 0 < missed <= _REJECTS:  # read again, keeping the bad records: their rows and reasons
        con.execute("DROP TABLE raw0")
        con.execute(raw0.replace(_KEEP_REJECTS, "store_rejects = true, "))
        rejects = "reject_errors"
    _line_numbers(con, header_lines=header_lines, rejects=rejects)
    parsed = ", ".join(
        "coalesce("
        + ", ".join(f"try_strptime({f}_raw, '{fmt}')::DATE" for fmt in formats)
        + f") AS {f}"
        for f in _DATE_FIELDS
    )
    problem_expr = (
        "concat_ws('; ', "
        + ", ".join(
            [
                "CASE WHEN lines > 1 THEN 'an unterminated quote: one value runs over ' || "
                "lines || ' lines from row ' || line END",
                "CASE WHEN voter_id = '' THEN 'no voter id' END",
                "CASE WHEN last_name = '' AND first_name = '' THEN 'no last name and no "
                "first name' END",
                *(
                    f"CASE WHEN {f}_raw IS NOT NULL AND {f} IS NULL "
                    f"THEN '{f} ' || {f}_raw || ' is not a date' END"
                    for f in _DATE_FIELDS
                ),
            ]
        )
        + ")"
    )
    con.execute(
        f"CREATE TEMP VIEW typed AS SELECT *, {parsed}, {_lines_sql(_TEXT_FIELDS)} AS lines "
        "FROM raw1 WHERE NOT is_header"
    )
    con.execute(f"CREATE TEMP VIEW checked AS SELECT *, {problem_expr} AS problem FROM typed")
    con.execute(
        "CREATE TEMP VIEW raw AS SELECT rn - 1 AS rid, "
        + ", ".join(_TEXT_FIELDS)
        + ", "
        + ", ".join(_DATE_FIELDS)
        + ", line AS source_row FROM checked WHERE problem = ''"
    )
    headers = _scalar(con, "SELECT count(*) FROM raw0 WHERE is_header") + header_lines
    # A bad row for each line a bad record took in (a record over k lines is k bad rows).
    _finish_tables(
        con,
        bad=(
            "SELECT line AS row, problem FROM checked, range(lines) WHERE problem <> '' "
            "UNION ALL SELECT line AS row, problem FROM (SELECT line, "
            "'not readable as a register row: ' || lower(any_value(error_type)) AS problem, "
            "greatest(1, len(list_filter(string_split(any_value(csv_line), chr(10)), "
            "lambda x: trim(x, chr(13) || ' ') <> ''))) AS lines "
            f"FROM {rejects} GROUP BY line), range(lines) ORDER BY row"
        ),
        raw_is_view=True,
    )
    for v in ("checked", "typed", "raw1"):
        con.execute(f"DROP VIEW IF EXISTS {v}")
    for t in ("raw0", "rej", "rej_s", "rej_u"):
        con.execute(f"DROP TABLE IF EXISTS {t}")
    n_entries = _scalar(con, "SELECT count(*) FROM entries")
    n_bad = _scalar(con, "SELECT count(*) FROM bad_rows")
    if (unplaced := facts.lines - headers - n_entries - n_bad) > 0:
        log.info("%s: %d lines not in any row DuckDB read; bad rows", path, unplaced)
        con.execute(
            "INSERT INTO bad_rows SELECT greatest((SELECT max(row) FROM bad_rows), "
            "(SELECT max(source_row) FROM entries), 0), "
            "'a line of the file that no row took in (a malformed row, or a quote never closed)' "
            f"FROM range({unplaced})"
        )
        n_bad += unplaced
    _stop_on_junk(con, path, n_bad)
    return layout, n_entries, n_bad, *_repeated_ids(con)


def _lines_sql(columns: Sequence[str]) -> str:
    """The physical lines a record's values take (1 for a record on one line)."""
    return "1 + " + " + ".join(f"(len({c}) - len(replace({c}, chr(10), '')))" for c in columns)


def _stop_on_junk(con: duckdb.DuckDBPyConnection, path: Path, n_bad: int) -> None:
    """`is_junk` over every first part of the file (in row order), as `read_register` stops."""
    if not is_junk(0, n_bad):  # fewer bad rows in the whole file than it takes
        return
    got = con.execute(
        "SELECT n - nbad, nbad FROM (SELECT row, bad, sum(bad) OVER w AS nbad, "
        "count(*) OVER w AS n FROM (SELECT source_row AS row, 0 AS bad FROM entries "
        "UNION ALL SELECT row, 1 AS bad FROM bad_rows) "
        "WINDOW w AS (ORDER BY row, bad ROWS UNBOUNDED PRECEDING)) "
        f"WHERE nbad >= {JUNK_ROWS} AND nbad > n * {JUNK_SHARE} ORDER BY n LIMIT 1"
    ).fetchall()
    if got:
        good, bad = (int(v) for v in got[0])
        row, problem = con.execute(
            "SELECT row, problem FROM bad_rows ORDER BY row LIMIT 1"
        ).fetchall()[0]
        raise junk_error(path, good, bad, BadRow(int(row), str(problem)), "register")


def _repeated_ids(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """The table `conflicting_ids`, the voter ids whose rows disagree; (rows that repeat
    another of their id exactly: the same export given twice, one voter; conflicting ids)."""
    cols = ", ".join((*_TEXT_FIELDS, *_DATE_FIELDS))
    # the repeated ids first (one column), then only their rows compared whole (comparing
    # every row's 20 fields cost 7 times the CPU on a register of a million)
    con.execute(
        f"CREATE TEMP TABLE id_repeats AS SELECT voter_id, count(*) AS n, "
        f"count(DISTINCT ({cols})) AS variants FROM entries WHERE voter_id IN (SELECT voter_id "
        "FROM entries GROUP BY voter_id HAVING count(*) > 1) GROUP BY voter_id"
    )
    con.execute(
        "CREATE TABLE conflicting_ids AS SELECT voter_id FROM id_repeats WHERE variants > 1 "
        "ORDER BY voter_id"
    )
    repeats = _scalar(con, "SELECT coalesce(sum(n - 1), 0) FROM id_repeats WHERE variants = 1")
    conflicting = _scalar(con, "SELECT count(*) FROM conflicting_ids")
    con.execute("DROP TABLE id_repeats")
    return repeats, conflicting


def _scalar(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    row = con.execute(sql).fetchall()[0]
    return int(row[0]) if row else 0


def _read_meta(con: duckdb.DuckDBPyConnection) -> ImportInfo | None:
    try:
        row = con.execute(
            "SELECT path, sha256, layout, rows_read, entries, bad_rows, imported_at, seconds, "
            "schema_version, duplicate_rows, conflicting_ids FROM meta"
        ).fetchall()[0]
    except duckdb.Error:
        return None
    if row is None or int(row[8]) != SCHEMA_VERSION:
        return None
    imported = row[6]
    if isinstance(imported, dt.datetime) and imported.tzinfo is None:
        imported = imported.replace(tzinfo=dt.UTC)
    return ImportInfo(
        path=str(row[0]),
        sha256=str(row[1]),
        layout=str(row[2]),
        rows_read=int(row[3]),
        entries=int(row[4]),
        bad_rows=int(row[5]),
        imported_at=imported,
        seconds=float(row[7]),
        duplicate_rows=int(row[9]),
        conflicting_ids=int(row[10]),
    )


def open_store(
    cfg: RegisterConfig,
    cache_dir: str | Path,
    *,
    progress: bool = False,
    memory_limit: str = "2GB",
    threads: int | None = None,
    limits: LimitsConfig | None = None,
) -> RegisterStore:
    """The register file of `cfg` as a store, imported into `cache_dir` on first use.

    Raises InputMissingError / UnreadableInputError like `read_register` (missing file, not
    text, over the case's limits, a mapped column missing, no readable row, mostly junk);
    CaseFileError for an unknown mapped field.
    """
    path = Path(cfg.path)
    limits = limits or LimitsConfig()
    if cfg.format is RegisterFormat.CSV:
        check_mapping(cfg.columns)
    facts = scan_file(path, limits)
    if facts.longest > limits.line_chars:
        raise long_line_error(path, facts.longest_at, limits.line_chars, "register file")
    stop_on_junk_at_the_start(cfg, facts, limits)  # a junk file stops here, in a second
    sha256 = facts.sha256
    cache = Path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    db = import_path(cache, sha256)
    settings = _settings(cache, memory_limit, threads)
    if db.exists():
        reused = open_import(cache, sha256, memory_limit=memory_limit, threads=threads)
        if reused is not None:
            log.info("register %s: reusing the import of %s", path.name, reused.info.imported_at)
            return reused
        log.info("register %s: the cached import is stale; importing again", path.name)
    tmp = db.with_suffix(f".tmp-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    started = time.perf_counter()
    con = duckdb.connect(str(tmp), config=settings)
    try:
        con.execute(f"SET enable_progress_bar = {str(progress).lower()}")
        _macros(con)
        text = path if facts.utf8 else _as_utf8(path, tmp.with_suffix(".utf-8.csv"))
        try:
            layout, n_entries, n_bad, repeats, conflicting = _import(con, cfg, path, facts, text)
        except duckdb.InvalidInputException as err:  # what ignore_errors does not take in
            problem = str(err).strip().splitlines()[0][:200]
            raise UnreadableInputError(
                f"{path}: the register file cannot be read as CSV ({problem})"
            ) from None
        finally:
            if text != path:
                text.unlink(missing_ok=True)
        if n_entries == 0:
            raise UnreadableInputError(
                f"{path}: no row of the register file could be read ({n_bad} bad rows). Check "
                "the register format in the case file ('nysboe' or 'csv' with "
                "[register.columns])."
            )
        seconds = time.perf_counter() - started
        now = dt.datetime.now(dt.UTC)
        con.execute(
            "CREATE TABLE meta AS SELECT ? AS path, ? AS sha256, ? AS layout, ? AS rows_read, "
            "? AS entries, ? AS bad_rows, ? AS imported_at, ? AS seconds, ? AS schema_version, "
            "? AS duplicate_rows, ? AS conflicting_ids",
            [
                str(path),
                sha256,
                layout,
                n_entries + n_bad,
                n_entries,
                n_bad,
                now.replace(tzinfo=None),
                seconds,
                SCHEMA_VERSION,
                repeats,
                conflicting,
            ],
        )
        con.execute("CHECKPOINT")
        con.close()
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, db)
    con = duckdb.connect(str(db), read_only=True, config=settings)
    info = _read_meta(con)
    if info is None:  # pragma: no cover - we just wrote it
        raise UnreadableInputError(f"{db}: the register import did not complete")
    log.info(
        "register %s imported as %s: %d entries, %d bad rows, %.1f s",
        path.name,
        layout,
        n_entries,
        n_bad,
        seconds,
    )
    return _with_examples(RegisterStore(con, info))


def import_path(cache_dir: str | Path, sha256: str) -> Path:
    """Where the import of the register file with this hash lives in the cache."""
    return Path(cache_dir) / f"register-{sha256[:16]}.duckdb"


def open_import(
    cache_dir: str | Path,
    sha256: str,
    *,
    memory_limit: str = "2GB",
    threads: int | None = None,
) -> RegisterStore | None:
    """The earlier import of the register file with this hash, read-only, without reading the
    file again; None when there is none (or it is of an older schema, or incomplete)."""
    db = import_path(cache_dir, sha256)
    if not db.exists():
        return None
    con = duckdb.connect(
        str(db), read_only=True, config=_settings(cache_dir, memory_limit, threads)
    )
    info = _read_meta(con)
    if info is None or info.sha256 != sha256:
        con.close()
        return None
    return _with_examples(RegisterStore(con, info))


def _settings(
    cache_dir: str | Path, memory_limit: str, threads: int | None
) -> dict[str, str | bool | int | float | list[str]]:
    settings: dict[str, str | bool | int | float | list[str]] = {
        "memory_limit": memory_limit,
        "temp_directory": str(Path(cache_dir) / "duckdb-tmp"),
    }
    if threads:
        settings["threads"] = str(threads)
    return settings


def _with_examples(store: RegisterStore) -> RegisterStore:
    """The store with the first few bad rows in its import info, for the report."""
    info = store.info
    examples = store.bad_rows()[:5] if info.bad_rows else ()
    return store.with_info(replace(info, bad_examples=examples))
