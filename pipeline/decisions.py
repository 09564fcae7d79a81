"""Reviewers' decisions, kept as an append-only JSON Lines log (one decision a line).

Nothing is edited in place: a new decision on a line is appended, the latest wins, and the log
keeps who decided what and when. The report is recomputed from the sheets plus this log.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from .errors import UnreadableInputError
from .records import ReviewAction, ReviewDecision

__all__ = ["append_decision", "decision_to_dict", "load_decisions"]


def decision_to_dict(d: ReviewDecision) -> dict:
    return {
        "line_id": d.line_id,
        "action": str(d.action),
        "reviewer": d.reviewer,
        "decided_at": d.decided_at.isoformat(),
        "corrections": dict(d.corrections),
        "voter_id": d.voter_id,
        "reason": d.reason,
    }


def _from_dict(raw: dict, where: str) -> ReviewDecision:
    try:
        decided_at = dt.datetime.fromisoformat(raw["decided_at"])
        if decided_at.tzinfo is None:
            raise ValueError("decided_at needs a time zone (e.g. 2026-10-12T14:03:00+00:00)")
        corrections = raw.get("corrections") or {}
        if not isinstance(corrections, dict):
            raise ValueError("corrections must be an object of field name -> text")
        return ReviewDecision(
            line_id=str(raw["line_id"]),
            action=ReviewAction(raw["action"]),
            reviewer=str(raw["reviewer"]),
            decided_at=decided_at,
            corrections={str(k): str(v) for k, v in corrections.items()},
            voter_id=raw.get("voter_id") or None,
            reason=str(raw.get("reason", "")),
        )
    except KeyError as err:
        raise UnreadableInputError(f"{where}: missing key {err}") from None
    except (ValueError, TypeError) as err:
        raise UnreadableInputError(f"{where}: {err}") from None


def load_decisions(path: Path) -> list[ReviewDecision]:
    """Every decision in the log, in file order. A malformed line stops the run (a reviewer's
    decision must never be ignored silently) with the file and line number."""
    path = Path(path)
    if not path.is_file():
        raise UnreadableInputError(f"{path}: the decisions file is not a regular file")
    out = []
    with path.open("rb") as f:
        for n, raw_line in enumerate(f, start=1):
            where = f"{path} line {n}"
            try:
                text = raw_line.decode("utf-8-sig" if n == 1 else "utf-8")
            except UnicodeDecodeError as err:
                raise UnreadableInputError(
                    f"{where}: not UTF-8 text (byte {err.start + 1}); save the decisions file "
                    "as UTF-8"
                ) from None
            if not text.strip():
                continue
            try:
                raw = json.loads(text)
            except (json.JSONDecodeError, RecursionError) as err:
                msg = err.msg if isinstance(err, json.JSONDecodeError) else "nested too deeply"
                raise UnreadableInputError(f"{where}: not JSON ({msg})") from None
            if not isinstance(raw, dict):
                raise UnreadableInputError(f"{where}: expected a JSON object")
            out.append(_from_dict(raw, where))
    return out


def append_decision(path: Path, decision: ReviewDecision) -> None:
    with Path(path).open("a", encoding="utf-8") as f:
        f.write(json.dumps(decision_to_dict(decision)) + "\n")
