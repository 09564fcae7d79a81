"""A large register is matched in DuckDB (imported once into the case's cache) instead of held
in memory: the bundled synthetic demo case, forced into the store, must be judged exactly as it
is from memory, and the import must be reused by the next run."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import run
from pipeline.case import load_case
from pipeline.errors import CaseFileError

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "demo" / "case.toml"


def _case(tmp_path: Path, store: str):
    case = load_case(DEMO)
    matching = case.matching.model_copy(update={"store": store, "cache": tmp_path / "cache"})
    return case.model_copy(update={"matching": matching})


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("store")
    memory = run.check_case(_case(tmp, "memory"))
    duck_case = _case(tmp, "duckdb")
    duckdb = run.check_case(duck_case)
    return memory, duckdb, duck_case


def test_the_store_judges_every_line_as_memory_does(both) -> None:
    memory, duckdb, _ = both
    assert duckdb.verdict == memory.verdict
    assert duckdb.totals == memory.totals
    assert duckdb.verdict_reason == memory.verdict_reason  # states the electors counted
    got = {j.line.line_id: (j.status, j.match.voter_id if j.match else None) for j in duckdb.lines}
    want = {j.line.line_id: (j.status, j.match.voter_id if j.match else None) for j in memory.lines}
    assert got == want
    assert [f.code for f in duckdb.findings] == [f.code for f in memory.findings]


def test_the_closed_world_reads_in_the_store_s_town_as_in_memory(
    both, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A register kept in DuckDB gives the closed-world stage the same voters and addresses
    as the register held in memory (not none: the hand-read fields would then have only the
    dates to be read among)."""
    _, _, duck_case = both
    given: list[set[str]] = []

    def resolve(sheets, case, entries):
        given.append({e.voter_id for e in entries})
        return list(sheets)

    monkeypatch.setattr(run, "resolve_sheets", resolve)
    memory_case = _case(tmp_path, "memory")
    run.read_in_closed_world(memory_case, [], run.load_register(memory_case))
    stored = run.load_register(duck_case)
    assert stored.stored is not None and not stored.entries
    run.read_in_closed_world(duck_case, [], stored)
    in_memory, in_store = given
    assert in_store and in_store == in_memory


def test_the_import_is_made_once_and_reused(both) -> None:
    _, _, case = both
    imports = list((case.matching.cache).glob("register-*.duckdb"))
    assert len(imports) == 1
    before = imports[0].stat().st_mtime_ns
    data = run.load_register(case)
    assert data.stored is not None and not data.entries
    assert imports[0].stat().st_mtime_ns == before


def test_auto_keeps_a_village_register_in_memory(tmp_path: Path) -> None:
    data = run.load_register(_case(tmp_path, "auto"))
    assert data.stored is None and data.entries
    assert not (tmp_path / "cache").exists()


def test_the_baseline_matcher_needs_the_register_in_memory(tmp_path: Path) -> None:
    case = _case(tmp_path, "duckdb")
    case = case.model_copy(
        update={"matching": case.matching.model_copy(update={"method": "baseline"})}
    )
    data = run.load_register(case)
    assert data.stored is not None
    store = data.stored.open()
    try:
        with pytest.raises(CaseFileError, match="baseline"):
            run.make_matcher(data, case, store)
    finally:
        store.close()
