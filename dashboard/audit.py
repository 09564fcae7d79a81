"""The review's audit store: every decision and every event, appended, never edited.

One SQLite file in the case's report folder (`review.sqlite`). Triggers refuse UPDATE and
DELETE on both tables, so the store is append-only by construction, not by convention. A
decision row keeps who, when, what was in force before, what is in force after and why; an
undo is one more decision (the one in force before the undone one, or a plain "judge it as
read" when there was none). Events are the rest of the review's history: batches assigned,
certification, reopening, imports.

The decisions file of `petitions check --decisions` (JSON Lines) is imported into and exported
from this store unchanged (pipeline/decisions.py reads and writes its lines).

PostgreSQL is not supported yet: the store speaks the SQLite dialect through the standard
library's sqlite3.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.decisions import decision_to_dict, load_decisions
from pipeline.records import ReviewAction, ReviewDecision

__all__ = ["AUDIT_FILE", "AuditStore", "Event", "StoredDecision", "undo_of"]

AUDIT_FILE = "review.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS decisions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    line_id TEXT NOT NULL,          -- a line id, or a page id for a sheet-level decision
    action TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    corrections TEXT NOT NULL,      -- JSON object
    voter_id TEXT,
    reason TEXT NOT NULL,
    before_json TEXT,               -- the decision in force before (JSON) or NULL
    undoes INTEGER                  -- seq of the decision this one undoes, or NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    kind TEXT NOT NULL,             -- assign, certify, reopen, import, upload, check
    detail TEXT NOT NULL            -- JSON object
);
CREATE TRIGGER IF NOT EXISTS decisions_no_update BEFORE UPDATE ON decisions
BEGIN SELECT RAISE(ABORT, 'the audit store is append-only'); END;
CREATE TRIGGER IF NOT EXISTS decisions_no_delete BEFORE DELETE ON decisions
BEGIN SELECT RAISE(ABORT, 'the audit store is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the audit store is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the audit store is append-only'); END;
"""


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


class AuditStore:
    """The append-only store of one case. Safe to share between the server's threads."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    # decisions ------------------------------------------------------------------------------

    def decisions(self) -> list[StoredDecision]:
        with self._lock:
            rows = self._db.execute(
                "SELECT line_id, action, reviewer, decided_at, corrections, voter_id, reason, "
                "seq, before_json, undoes FROM decisions ORDER BY seq"
            ).fetchall()
        return [StoredDecision(r[7], _from_row(r), _from_json(r[8]), r[9]) for r in rows]

    def in_force(self) -> dict[str, StoredDecision]:
        """The latest decision on each line (or sheet), in the order they were made."""
        latest: dict[str, StoredDecision] = {}
        for s in self.decisions():
            latest[s.decision.line_id] = s
        return latest

    def append(self, decision: ReviewDecision, undoes: int | None = None) -> StoredDecision:
        with self._lock:
            row = self._db.execute(
                "SELECT line_id, action, reviewer, decided_at, corrections, voter_id, reason "
                "FROM decisions WHERE line_id = ? ORDER BY seq DESC LIMIT 1",
                (decision.line_id,),
            ).fetchone()
            before = _from_row(row) if row else None
            cur = self._db.execute(
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
            seq = cur.lastrowid
        assert seq is not None
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
            cur = self._db.execute(
                "INSERT INTO events (at, actor, kind, detail) VALUES (?, ?, ?, ?)",
                (at.isoformat(), actor, kind, json.dumps(detail, sort_keys=True)),
            )
        assert cur.lastrowid is not None
        return Event(cur.lastrowid, at, actor, kind, detail)

    def events(self, kinds: Iterable[str] | None = None) -> list[Event]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, at, actor, kind, detail FROM events ORDER BY seq"
            ).fetchall()
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
