"""The review's audit store: every decision and every event, appended, never edited.

By default one SQLite file in the case's report folder (`review.sqlite`); with a store URL
(`postgresql://...`, `petitions dashboard --store URL`) a PostgreSQL database, each case in its
own schema (`petitions_<case id>`) holding the same two tables. Either way the database refuses
UPDATE and DELETE on both tables (SQLite: triggers; PostgreSQL: statement triggers, TRUNCATE
too), so the store is append-only by construction, not by convention. A decision row keeps who,
when, what was in force before, what is in force after and why; an undo is one more decision
(the one in force before the undone one, or a plain "judge it as read" when there was none).
Events are the rest of the review's history: batches assigned, certification, reopening,
imports.

The decisions file of `petitions check --decisions` (JSON Lines) is imported into and exported
from this store unchanged (pipeline/decisions.py reads and writes its lines).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pipeline.decisions import decision_to_dict, load_decisions
from pipeline.errors import DependencyMissingError, ExitCode, PetitionError
from pipeline.records import ReviewAction, ReviewDecision

__all__ = [
    "AUDIT_FILE",
    "AuditStore",
    "Event",
    "check_store_url",
    "StoreError",
    "StoredDecision",
    "open_store",
    "undo_of",
]

AUDIT_FILE = "review.sqlite"
APPEND_ONLY = "the audit store is append-only"

# The two tables, as both databases define them (`seq` is each one's own counter).
_TABLES = """
CREATE TABLE IF NOT EXISTS decisions (
    seq {seq},
    line_id TEXT NOT NULL,          -- a line id, or a page id for a sheet-level decision
    action TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    corrections TEXT NOT NULL,      -- JSON object
    voter_id TEXT,
    reason TEXT NOT NULL,
    before_json TEXT,               -- the decision in force before (JSON) or NULL
    undoes BIGINT                   -- seq of the decision this one undoes, or NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq {seq},
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    kind TEXT NOT NULL,             -- assign, certify, reopen, import, upload, check
    detail TEXT NOT NULL            -- JSON object
);
"""

_SQLITE_SCHEMA = _TABLES.format(seq="INTEGER PRIMARY KEY AUTOINCREMENT") + "".join(
    f"CREATE TRIGGER IF NOT EXISTS {t}_no_{op.lower()} BEFORE {op} ON {t}\n"
    f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END;\n"
    for t in ("decisions", "events")
    for op in ("UPDATE", "DELETE")
)

# PostgreSQL 14 or later (CREATE OR REPLACE TRIGGER). Statement triggers: an UPDATE, DELETE or
# TRUNCATE is refused whatever rows it would touch.
_POSTGRES_SCHEMA = (
    _TABLES.format(seq="BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")
    + f"""
CREATE OR REPLACE FUNCTION append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION '{APPEND_ONLY}'; END $$;
"""
    + "".join(
        f"CREATE OR REPLACE TRIGGER {t}_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON {t}\n"
        "FOR EACH STATEMENT EXECUTE FUNCTION append_only();\n"
        for t in ("decisions", "events")
    )
)


class StoreError(PetitionError):
    """The audit store cannot be opened: a store URL of an unknown kind, or a database that
    cannot be reached (decisions would have nowhere to go)."""

    exit_code = ExitCode.OUTPUT


@dataclass(frozen=True, slots=True)
class StoredDecision:
    seq: int
    decision: ReviewDecision
    before: ReviewDecision | None  # in force on the line before this one
    undoes: int | None = None


@dataclass(frozen=True, slots=True)
class Event:
    seq: int
    at: dt.datetime
    actor: str
    kind: str
    detail: dict[str, Any]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _from_row(row: Sequence[Any]) -> ReviewDecision:
    return ReviewDecision(
        line_id=row[0],
        action=ReviewAction(row[1]),
        reviewer=row[2],
        decided_at=dt.datetime.fromisoformat(row[3]),
        corrections=json.loads(row[4]),
        voter_id=row[5],
        reason=row[6],
    )


def _to_json(d: ReviewDecision | None) -> str | None:
    return None if d is None else json.dumps(decision_to_dict(d), sort_keys=True)


def _from_json(text: str | None) -> ReviewDecision | None:
    if text is None:
        return None
    raw = json.loads(text)
    return _from_row(
        (
            raw["line_id"],
            raw["action"],
            raw["reviewer"],
            raw["decided_at"],
            json.dumps(raw["corrections"]),
            raw["voter_id"],
            raw["reason"],
        )
    )


def undo_of(target: StoredDecision, reviewer: str, at: dt.datetime) -> ReviewDecision:
    """The decision that undoes `target`: what was in force before it, decided again now; or,
    when nothing was, a correction that corrects nothing (the line is judged as read)."""
    before = target.before
    if before is None:
        return ReviewDecision(
            target.decision.line_id, ReviewAction.CORRECT, reviewer, at, reason="undo"
        )
    return ReviewDecision(
        before.line_id,
        before.action,
        reviewer,
        at,
        dict(before.corrections),
        before.voter_id,
        before.reason or "undo",
    )


class _Database(Protocol):
    """What the store needs of a database: statements with `?` parameters, inserts that
    return the new row's seq."""

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]: ...

    def insert(self, sql: str, params: Sequence[Any]) -> int: ...

    def close(self) -> None: ...


class _SQLite:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SQLITE_SCHEMA)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self._db.execute(sql, params).fetchall()

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        return int(self._db.execute(sql + " RETURNING seq", params).fetchone()[0])

    def close(self) -> None:
        self._db.close()


def schema_name(case_id: str) -> str:
    """The PostgreSQL schema of one case: `petitions_` and the case id in [a-z0-9_]."""
    return "petitions_" + re.sub(r"[^a-z0-9_]+", "_", case_id.lower()).strip("_")[:48]


def _redacted(url: str) -> str:
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


class _Postgres:
    """One connection (autocommit: each append is its own transaction), its search path the
    case's schema, created with its tables and triggers on first use."""

    def __init__(self, url: str, case_id: str | None) -> None:
        """Connect; with a case, make its schema ready (without one: only connect)."""
        if url.split("://", 1)[0] not in ("postgresql", "postgres"):
            raise StoreError(
                f"{_redacted(url)}: not a store URL (postgresql://USER@HOST/DB, or none for SQLite)"
            )
        try:
            import psycopg
        except ImportError:
            raise DependencyMissingError(
                "a PostgreSQL audit store needs psycopg 3: pip install 'petitions[postgres]'"
            ) from None
        self._psycopg = psycopg
        self.url = url
        self.schema = schema_name(case_id) if case_id is not None else "public"
        self._db = self._connect()
        if case_id is None:
            return
        with self._db.transaction():
            # Two servers opening the same case at once: one creates, the other waits.
            self._db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self.schema,))
            self._db.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
            self._db.execute(_POSTGRES_SCHEMA)

    def _connect(self):
        try:
            return self._psycopg.connect(
                self.url, autocommit=True, options=f"-c search_path={self.schema}"
            )
        except self._psycopg.Error as err:
            raise StoreError(
                f"the audit store {_redacted(self.url)} cannot be reached: "
                f"{str(err).strip().splitlines()[0]}"
            ) from None

    def _live(self):
        if self._db.broken or self._db.closed:  # the server restarted: connect again
            self._db = self._connect()
        return self._db

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self._live().execute(sql.replace("?", "%s"), params).fetchall()

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        row = self._live().execute(sql.replace("?", "%s") + " RETURNING seq", params).fetchone()
        return int(row[0])

    def close(self) -> None:
        self._db.close()


def open_store(out_dir: Path, case_id: str, url: str | None = None) -> AuditStore:
    """The audit store of one case: `review.sqlite` in its report folder, or, with a
    `postgresql://` (or `postgres://`) URL, the case's schema in that database."""
    if not url:
        return AuditStore(_SQLite(Path(out_dir) / AUDIT_FILE))
    return AuditStore(_Postgres(url, case_id))


def check_store_url(url: str | None) -> None:
    """Refuse (StoreError) a store URL of another kind, or a database that cannot be reached,
    before a server starts on it."""
    if url:
        _Postgres(url, None).close()


class AuditStore:
    """The append-only store of one case. Safe to share between the server's threads."""

    def __init__(self, db: _Database) -> None:
        self._db = db
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    # decisions ------------------------------------------------------------------------------

    def decisions(self) -> list[StoredDecision]:
        with self._lock:
            rows = self._db.rows(
                "SELECT line_id, action, reviewer, decided_at, corrections, voter_id, reason, "
                "seq, before_json, undoes FROM decisions ORDER BY seq"
            )
        return [StoredDecision(r[7], _from_row(r), _from_json(r[8]), r[9]) for r in rows]

    def in_force(self) -> dict[str, StoredDecision]:
        """The latest decision on each line (or sheet), in the order they were made."""
        latest: dict[str, StoredDecision] = {}
        for s in self.decisions():
            latest[s.decision.line_id] = s
        return latest

    def append(self, decision: ReviewDecision, undoes: int | None = None) -> StoredDecision:
        with self._lock:
            rows = self._db.rows(
                "SELECT line_id, action, reviewer, decided_at, corrections, voter_id, reason "
                "FROM decisions WHERE line_id = ? ORDER BY seq DESC LIMIT 1",
                (decision.line_id,),
            )
            before = _from_row(rows[0]) if rows else None
            seq = self._db.insert(
                "INSERT INTO decisions (line_id, action, reviewer, decided_at, corrections, "
                "voter_id, reason, before_json, undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    decision.line_id,
                    str(decision.action),
                    decision.reviewer,
                    decision.decided_at.isoformat(),
                    json.dumps(dict(decision.corrections), sort_keys=True),
                    decision.voter_id,
                    decision.reason,
                    _to_json(before),
                    undoes,
                ),
            )
        return StoredDecision(seq, decision, before, undoes)

    def get(self, seq: int) -> StoredDecision | None:
        return next((s for s in self.decisions() if s.seq == seq), None)

    def import_jsonl(self, path: Path, actor: str) -> int:
        """Append every decision of a decisions file (pipeline/decisions.py's format), in file
        order. A malformed line refuses the whole file (UnreadableInputError)."""
        decisions = load_decisions(path)
        for d in decisions:
            self.append(d)
        self.event(actor, "import", {"file": Path(path).name, "decisions": len(decisions)})
        return len(decisions)

    def export_jsonl(self) -> str:
        """Every decision, in the order made: the file `petitions check --decisions` reads."""
        return "".join(json.dumps(decision_to_dict(s.decision)) + "\n" for s in self.decisions())

    # events ---------------------------------------------------------------------------------

    def event(self, actor: str, kind: str, detail: dict[str, Any]) -> Event:
        at = _now()
        with self._lock:
            seq = self._db.insert(
                "INSERT INTO events (at, actor, kind, detail) VALUES (?, ?, ?, ?)",
                (at.isoformat(), actor, kind, json.dumps(detail, sort_keys=True)),
            )
        return Event(seq, at, actor, kind, detail)

    def events(self, kinds: Iterable[str] | None = None) -> list[Event]:
        with self._lock:
            rows = self._db.rows("SELECT seq, at, actor, kind, detail FROM events ORDER BY seq")
        wanted = set(kinds) if kinds is not None else None
        return [
            Event(r[0], dt.datetime.fromisoformat(r[1]), r[2], r[3], json.loads(r[4]))
            for r in rows
            if wanted is None or r[3] in wanted
        ]

    def certified(self) -> Event | None:
        """The certification in force: the latest certify event not followed by a reopen."""
        state = None
        for e in self.events(("certify", "reopen")):
            state = e if e.kind == "certify" else None
        return state

    def assignments(self) -> dict[str, str]:
        """Line id -> the reviewer whose batch it is in (the latest assignment wins)."""
        out: dict[str, str] = {}
        for e in self.events(("assign",)):
            for line_id in e.detail.get("lines", []):
                out[line_id] = e.detail["reviewer"]
        return out
