"""The audit store in PostgreSQL (`petitions dashboard --store postgresql://...`), against a real
server this module starts from binaries on the machine (tests/postgres_server.py): the same
append-only guarantees as SQLite's (UPDATE, DELETE and TRUNCATE refused by the database), the
same tables, one schema per case, the JSON Lines decisions file imported and exported unchanged,
and the dashboard's decisions surviving a restart. Fixture: the bundled synthetic demo case.
Slow (a server starts): CI runs them in their own step (`-m postgres`), where a missing server
fails them instead of skipping them."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboard.accounts import Accounts
from dashboard.app import create_app
from dashboard.audit import AUDIT_FILE, open_store, schema_name
from pipeline.records import ReviewAction, ReviewDecision

from .dashboard_fixtures import FAST_HASH, PASSWORD, REVIEW_LINES, csrf_of, make_workspace
from .postgres_server import postgres_url

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

psycopg = pytest.importorskip("psycopg", reason="psycopg 3 is not installed (the test extra)")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

AT = dt.datetime(2026, 10, 12, 14, 3, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def pg() -> Iterator[str]:
    with postgres_url() as url:
        if url is None:
            message = (
                "no PostgreSQL server binaries (initdb, pg_ctl) on this machine: apt-get "
                "install postgresql, or pip install pgserver, or set PETITIONS_TEST_POSTGRES_URL"
            )
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
        yield url


def _decision(line: str, action: ReviewAction, **kw) -> ReviewDecision:
    return ReviewDecision(line, action, "rita", AT, **kw)


def test_the_store_is_append_only_and_reopens_as_it_was(pg: str, tmp_path: Path) -> None:
    store = open_store(tmp_path, "append-only", pg)
    first = store.append(_decision("l-1", ReviewAction.ACCEPT))
    second = store.append(
        _decision("l-1", ReviewAction.CORRECT, corrections={"date": "10/01/2026"}),
        undoes=first.seq,
    )
    assert second.before == first.decision and second.undoes == first.seq
    store.event("sam", "certify", {"note": "done"})
    assert not (tmp_path / AUDIT_FILE).exists()  # nothing in the report folder

    with psycopg.connect(pg, autocommit=True) as db:
        schema = schema_name("append-only")
        for sql in (
            f"UPDATE {schema}.decisions SET action = 'reject'",
            f"DELETE FROM {schema}.decisions",
            f"TRUNCATE {schema}.decisions",
            f"UPDATE {schema}.events SET kind = 'reopen'",
            f"DELETE FROM {schema}.events WHERE seq > 0",
            f"TRUNCATE {schema}.events",
        ):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                db.execute(sql)
        columns = db.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = %s ORDER BY table_name, ordinal_position",
            (schema,),
        ).fetchall()
    store.close()

    # the same tables as SQLite's
    sqlite_store = open_store(tmp_path, "append-only")
    sqlite_db = sqlite_store._db._db  # type: ignore[attr-defined]
    expected = [
        (t, row[1]) for t in ("decisions", "events") for row in sqlite_db.execute(
            f"PRAGMA table_info({t})"
        )
    ]  # fmt: skip
    assert columns == expected

    again = open_store(tmp_path, "append-only", pg)
    assert [s.decision for s in again.decisions()] == [first.decision, second.decision]
    assert again.certified() is not None
    assert again.get(second.seq) == second
    # another case, another schema: nothing shared
    assert open_store(tmp_path, "another case", pg).decisions() == []


def test_the_decisions_file_goes_in_and_out_unchanged(pg: str, tmp_path: Path) -> None:
    lines = [
        {"line_id": "a-01", "action": "accept", "reviewer": "clerk", "decided_at": AT.isoformat()},
        {
            "line_id": "a-02",
            "action": "reject",
            "reviewer": "clerk",
            "decided_at": AT.isoformat(),
            "reason": "signature does not match the registration record",
        },
        {
            "line_id": "a-03",
            "action": "correct",
            "reviewer": "clerk",
            "decided_at": AT.isoformat(),
            "voter_id": "V0001",
        },
    ]
    path = tmp_path / "decisions.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    pg_store, sqlite_store = open_store(tmp_path, "io", pg), open_store(tmp_path, "io")
    assert pg_store.import_jsonl(path, "sam") == sqlite_store.import_jsonl(path, "sam") == 3
    assert pg_store.export_jsonl() == sqlite_store.export_jsonl()
    assert [json.loads(x)["line_id"] for x in pg_store.export_jsonl().splitlines()] == [
        "a-01",
        "a-02",
        "a-03",
    ]
    assert [e.kind for e in pg_store.events()] == ["import"]


def test_the_dashboard_keeps_its_decisions_in_postgres_across_a_restart(
    pg: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = make_workspace(tmp_path_factory.mktemp("pgdash"))

    def client() -> tuple[TestClient, str]:
        app = create_app(
            root, Accounts(root / "users.sqlite", FAST_HASH), secret="s" * 32, store_url=pg
        )
        c = TestClient(app)
        token = csrf_of(c.get("/login").text)
        r = c.post("/login", data={"name": "rita", "password": PASSWORD, "csrf": token})
        return c, csrf_of(r.text)

    c, token = client()
    r = c.post(f"/c/demo/line/{REVIEW_LINES[0]}/decide", data={"action": "accept", "csrf": token})
    assert r.status_code == 200
    assert not (root / "demo" / "out" / AUDIT_FILE).exists()
    again, _ = client()
    exported = again.get("/c/demo/decisions.jsonl").text
    assert [json.loads(x)["line_id"] for x in exported.splitlines()] == [REVIEW_LINES[0]]
    assert 'id="verdict">SUFFICIENT' in again.get("/c/demo/queue").text
    shutil.rmtree(root, ignore_errors=True)
