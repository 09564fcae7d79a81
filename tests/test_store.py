"""The DuckDB register store: import once per file, reuse, bad rows counted, as_of queries.

Every register here is synthetic (written by the tests or by matchers.weights' generator).
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

import pytest

from matchers.register import NYSBOE_45_FIELDS, NYSBOE_47_FIELDS, read_register
from matchers.store import HASH_COLUMNS, RegisterStore, open_store, status_on
from matchers.weights import write_synthetic_register
from pipeline.case import RegisterConfig
from pipeline.errors import InputMissingError, UnreadableInputError
from pipeline.records import RegisterEntry

COLUMNS = {
    "voter_id": "Voter ID",
    "last_name": "Last",
    "first_name": "First",
    "house_number": "No",
    "street_name": "Street",
    "status": "Status",
    "registration_date": "Registered",
    "purge_date": "Purged",
}


def write_generic(path: Path) -> Path:
    rows = [
        ["Voter ID", "Last", "First", "No", "Street", "Status", "Registered", "Purged"],
        ["G1", "Smith", "John", "12", "Main St", "A", "2020-01-02", ""],
        ["G2", "Jones"],  # too few fields
        ["G3", "Brown", "Ann", "4", "Oak Ave", "A", "13/40/2020", ""],  # not a date
        ["", "Green", "Al", "5", "Elm St", "A", "", ""],  # no voter id
        ["G5", "White", "Bo", "9", "Elm St", "P", "01/02/2019", "20210301"],
        ["G6", "Black", "Cy", "7", "Elm St", "A", "2026-05-01", ""],
    ]
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return path


@pytest.fixture
def generic(tmp_path: Path) -> RegisterConfig:
    return RegisterConfig(
        path=write_generic(tmp_path / "register.csv"), format="csv", columns=COLUMNS
    )


def test_generic_csv_import_counts_bad_rows_with_their_row_numbers(generic, tmp_path):
    store = open_store(generic, tmp_path / "cache")
    info = store.info
    assert info.layout == "csv"
    assert (info.rows_read, info.entries, info.bad_rows) == (6, 3, 3)
    bad = {b.row: b.problem for b in store.bad_rows()}
    assert set(bad) == {3, 4, 5}
    assert "not a date" in bad[4] and "no voter id" in bad[5]
    entries = store.entries()
    assert [e.voter_id for e in entries] == ["G1", "G5", "G6"]
    assert [e.source_row for e in entries] == [2, 6, 7]
    assert entries[1].purge_date == dt.date(2021, 3, 1)
    assert entries[0].registration_date == dt.date(2020, 1, 2)


def test_the_import_is_reused_for_the_same_file(generic, tmp_path):
    first = open_store(generic, tmp_path / "cache")
    first_info = first.info
    first.close()
    again = open_store(generic, tmp_path / "cache")
    assert again.info.imported_at == first_info.imported_at
    assert again.info.sha256 == first_info.sha256
    assert len(list((tmp_path / "cache").glob("register-*.duckdb"))) == 1
    assert not list((tmp_path / "cache").glob("*.tmp-*"))


def test_a_changed_file_is_imported_again(generic, tmp_path):
    open_store(generic, tmp_path / "cache").close()
    with Path(generic.path).open("a", encoding="utf-8") as fh:
        fh.write("G7,Gray,Di,3,Elm St,A,2020-01-01,\n")
    store = open_store(generic, tmp_path / "cache")
    assert store.info.entries == 4
    assert len(list((tmp_path / "cache").glob("register-*.duckdb"))) == 2


def test_as_of_is_the_register_as_it_stood(generic, tmp_path):
    store = open_store(generic, tmp_path / "cache")
    # 2020-06-01: G1 registered, G5 registered and not yet purged, G6 not yet registered
    assert [e.voter_id for e in store.entries(as_of=dt.date(2020, 6, 1))] == ["G1", "G5"]
    # 2021-03-01: G5 purged on that day
    assert store.count(as_of=dt.date(2021, 3, 1)) == 1
    assert store.count() == 3
    g5 = store.get(["G5"])["G5"]
    assert status_on(g5, dt.date(2020, 6, 1)) == "active"
    assert status_on(g5, dt.date(2021, 3, 1)) == "purged"
    assert status_on(store.get(["G6"])["G6"], dt.date(2026, 1, 1)) == "not registered"


def test_a_missing_column_is_reported(tmp_path):
    cfg = RegisterConfig(
        path=write_generic(tmp_path / "r.csv"),
        format="csv",
        columns={**COLUMNS, "ward": "Ward"},
    )
    with pytest.raises(UnreadableInputError, match="Ward"):
        open_store(cfg, tmp_path / "cache")


def test_a_missing_file_is_reported(tmp_path):
    with pytest.raises(InputMissingError):
        open_store(RegisterConfig(path=tmp_path / "nope.csv"), tmp_path / "cache")


@pytest.mark.parametrize("layout", [45, 47])
def test_nysboe_import_agrees_with_read_register(tmp_path, layout):
    path = tmp_path / f"nys-{layout}.csv"
    write_synthetic_register(path, 300, seed=3, layout=layout)
    with path.open("a", encoding="utf-8") as fh:
        fh.write('"ONLY","THREE","FIELDS"\r\n')
    cfg = RegisterConfig(path=path)
    store = open_store(cfg, tmp_path / "cache")
    read = read_register(cfg)
    assert store.info.layout == f"nysboe-{layout}" == read.layout
    assert store.info.bad_rows == len(read.bad_rows) == 1
    assert [b.row for b in store.bad_rows()] == [b.row for b in read.bad_rows] == [301]
    assert store.entries() == read.entries


def test_nysboe_header_row_is_skipped(tmp_path):
    path = tmp_path / "h.csv"
    write_synthetic_register(path, 5, seed=1)
    body = path.read_text(encoding="utf-8")
    path.write_text(",".join(NYSBOE_45_FIELDS) + "\n" + body, encoding="utf-8")
    store = open_store(RegisterConfig(path=path), tmp_path / "cache")
    assert store.info.entries == 5 and store.info.bad_rows == 0
    assert [e.source_row for e in store.entries()] == [2, 3, 4, 5, 6]
    assert len(NYSBOE_47_FIELDS) == 47


def test_from_entries_round_trips():
    entries = (
        RegisterEntry("V1", "Smith", "John", house_number="12", street_name="Main St"),
        RegisterEntry(
            "V2", "O'Brien-Smith", "Ann", registration_date=dt.date(2001, 2, 3), source_row=9
        ),
    )
    store = RegisterStore.from_entries(entries)
    assert store.entries() == entries
    assert len(store) == 2
    assert store.by_rid([1, 0]) == [entries[1], entries[0]]
    with store.cursor() as con:
        row = con.execute("SELECT n_last FROM entries WHERE voter_id = 'V2'").fetchall()
    assert row == [("OBRIENSMITH",)]


def test_block_sizes_and_key_hashes_are_stored():
    """Each blocking key's hash (`HASH_COLUMNS`) and each key value's block size (`blocks`)
    are stored with the entries: the matcher joins on the hash and skips a large block by its
    stored size. They must agree with the key text itself."""
    entries = tuple(
        RegisterEntry(f"V{i}", "Smith" if i % 3 else "Jones", "John", house_number=str(i % 4))
        for i in range(24)
    ) + (RegisterEntry("V99", "Brown", "", street_name="Oak Ave"),)
    with RegisterStore.from_entries(entries).cursor() as con:
        _check_block_sizes(con)


def _check_block_sizes(con):
    for bit, (key, h) in enumerate(HASH_COLUMNS.items()):
        by_text = con.execute(
            f"SELECT hash({key}), count(*) FROM entries WHERE {key} IS NOT NULL GROUP BY {key}"
        ).fetchall()
        stored = con.execute(f"SELECT h, n FROM blocks WHERE pass = {bit}").fetchall()
        assert sorted(stored) == sorted(by_text), key
        mismatched = con.execute(
            f"SELECT count(*) FROM entries WHERE {h} IS DISTINCT FROM "
            f"CASE WHEN {key} IS NULL THEN NULL ELSE hash({key}) END"
        ).fetchall()
        assert mismatched == [(0,)], key
    sizes = dict(con.execute("SELECT n, count(*) FROM blocks WHERE pass = 1 GROUP BY n").fetchall())
    assert sizes == {16: 1, 8: 1}  # k_name: SMITH|J (16 rows) and JONES|J (8); Brown has none


def test_a_repeated_voter_id_shares_one_voter_number():
    """`vno` is one number per voter id (its first row), so the matcher's one-row-per-voter
    grouping on it is the grouping on the id's text."""
    entries = (
        RegisterEntry("A", "Smith", "John"),
        RegisterEntry("B", "Smith", "Jane"),
        RegisterEntry("A", "Smith", "Jon"),
        RegisterEntry("C", "Smith", "Jo"),
        RegisterEntry("B", "Smith", "Janet"),
    )
    with RegisterStore.from_entries(entries).cursor() as con:
        got = con.execute("SELECT rid, voter_id, vno FROM entries ORDER BY rid").fetchall()
    assert got == [(0, "A", 0), (1, "B", 1), (2, "A", 0), (3, "C", 3), (4, "B", 1)]
