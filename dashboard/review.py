"""One case under review: its stored judging inputs, its audit store, and its report judged
again from them after every decision.

Nothing here reads a page: the sheets as read, their matches and the register facts the rules
need were kept by `petitions check` (pipeline/judging.py). The register itself is opened only
when a reviewer searches it or corrects a name or an address (that line is matched again).
"""

from __future__ import annotations

import datetime as dt
import gc
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline import run
from pipeline.errors import PetitionError
from pipeline.judge import SheetMemo
from pipeline.judging import JudgingInputs, judge_inputs, load_judging, matched_on
from pipeline.records import (
    Field,
    Finding,
    JudgedLine,
    LineStatus,
    Match,
    RegisterEntry,
    ReviewAction,
    ReviewDecision,
    Severity,
    Sheet,
    SignatureLine,
    Source,
    SufficiencyReport,
    Verdict,
)

from .audit import Event, StoredDecision, open_store, undo_of

__all__ = [
    "REASONS",
    "CaseFrozenError",
    "CaseReview",
    "NotYoursError",
    "QueueItem",
    "Settle",
    "SheetItem",
]

log = logging.getLogger(__name__)

# Reasons a reviewer rejects a line for: the statute's grounds, and the signature check.
REASONS = (
    "signature does not match the registration record",
    "signer is not a registered voter of the village",
    "signer's residence is not in the village",
    "signature not dated, or dated after the filing",
    "residence missing or incomplete",
    "signed the petition more than once",
    "signature not made by the signer (printed by another hand)",
    "line is illegible",
)


class CaseFrozenError(PetitionError):
    """A decision on a certified case: it must be reopened first."""


class NotYoursError(PetitionError):
    """A reviewer changing another reviewer's decision: reopening it is a supervisor's."""


@dataclass(frozen=True, slots=True)
class Settle:
    """How many decisions, at the least, settle the verdict either way (count kinds)."""

    to_sufficient: int | None  # more valid lines that make it sufficient
    to_insufficient: int | None  # more invalid lines that make it insufficient
    valid_first: bool  # the queue puts the lines likeliest valid first

    @property
    def needed(self) -> int | None:
        options = [n for n in (self.to_sufficient, self.to_insufficient) if n is not None]
        return min(options) if options else None


@dataclass(frozen=True, slots=True)
class QueueItem:
    judged: JudgedLine
    assigned_to: str | None
    doubts: int  # review findings; fatal ones count three

    @property
    def line_id(self) -> str:
        return self.judged.line.line_id


@dataclass(frozen=True, slots=True)
class SheetItem:
    sheet: Sheet
    findings: tuple[Finding, ...]  # the sheet's own review findings
    lines_waiting: int


def _doubts(j: JudgedLine) -> int:
    return sum(
        3 if f.severity is Severity.FATAL else 1
        for f in j.findings
        if f.severity is not Severity.NOTE
    )


class CaseReview:
    """A checked case's report folder (`out_dir`), opened for review."""

    def __init__(self, out_dir: Path, case_id: str, store_url: str | None = None) -> None:
        self.out_dir = Path(out_dir)
        self.case_id = case_id
        self.audit = open_store(self.out_dir, case_id, store_url)
        self._lock = threading.RLock()
        self._register: run.RegisterData | None = None
        self.reload()

    # state ----------------------------------------------------------------------------------

    def reload(self) -> None:
        """Read the judging inputs again (after a check) and judge."""
        with self._lock:
            self.inputs: JudgingInputs = load_judging(self.out_dir)
            self.rules = run.rules_for(self.inputs.case)
            self._register = None
            self._memo: SheetMemo = {}
            self._rematched: dict[tuple, Match] = {}
            self._queue: tuple[SufficiencyReport, list[QueueItem]] | None = None
            self._rejudge()
        # The case's records live as long as the server: moved out of the garbage
        # collector's sight, so that a full collection does not walk them on a request
        # (it cost 100-200 ms at 5,000 lines; bench/dashboard.py).
        gc.collect()
        gc.freeze()

    def _rejudge(self) -> None:
        decisions = [s.decision for s in self.audit.decisions()]
        report = judge_inputs(
            self.inputs,
            decisions,
            self.rules,
            rematch=self._rematch_once,
            lookup=self._lookup,
            memo=self._memo,
        )
        self.report: SufficiencyReport = report
        self.by_id: dict[str, JudgedLine] = {j.line.line_id: j for j in report.lines}
        self.sheets: dict[str, Sheet] = {s.page.page_id: s for s in report.sheets}
        self.in_force: dict[str, StoredDecision] = self.audit.in_force()

    @property
    def case(self):
        return self.inputs.case

    @property
    def certified(self) -> Event | None:
        return self.audit.certified()

    # the register, opened on demand ---------------------------------------------------------

    def register(self) -> run.RegisterData:
        if self._register is None:
            self._register = run.load_register(self.inputs.case)
        return self._register

    def _rematch(self, lines: Sequence[SignatureLine]) -> list[Match]:
        register = self.register()
        store = register.stored.open() if register.stored is not None else None
        try:
            return list(run.make_matcher(register, self.inputs.case, store).match_all(lines))
        finally:
            if store is not None:
                store.close()

    def _rematch_once(self, lines: Sequence[SignatureLine]) -> list[Match]:
        """Each corrected reading matched once: the same Match object every time after, so
        the sheet it is on is not judged again for nothing."""
        todo = [ln for ln in lines if (ln.line_id, matched_on(ln)) not in self._rematched]
        if todo:
            got = {m.line_id: m for m in self._rematch(todo)}
            for ln in todo:
                self._rematched[(ln.line_id, matched_on(ln))] = got[ln.line_id]
        return [self._rematched[(ln.line_id, matched_on(ln))] for ln in lines]

    def _lookup(self, ids: Sequence[str]) -> Mapping[str, RegisterEntry]:
        register = self.register()
        if register.stored is None:
            return {i: register.entries[i] for i in ids if i in register.entries}
        store = register.stored.open()
        try:
            return store.get(list(ids))
        finally:
            store.close()

    def search(self, query: str, limit: int = 20) -> list[RegisterEntry]:
        """Register entries whose name and address hold every word of the query."""
        words = query.upper().split()
        if not words:
            return []
        register = self.register()
        if register.stored is not None:
            # A register in DuckDB: the matcher's candidates for the query read as a name.
            line = SignatureLine("search", 1, (Field("name", query, 1.0, Source.REVIEWER),))
            (match,) = self._rematch([line])
            found = self._lookup([c.voter_id for c in match.candidates])
            return list(found.values())[:limit]
        out = []
        for e in register.entries.values():
            text = f"{e.display} {e.voter_id}"
            if all(w in text for w in words):
                out.append(e)
                if len(out) >= limit:
                    break
        return out

    def entry(self, voter_id: str | None) -> RegisterEntry | None:
        if not voter_id:
            return None
        got = self.inputs.entries.get(voter_id)
        return got if got is not None else self._lookup([voter_id]).get(voter_id)

    # deciding -------------------------------------------------------------------------------

    def decide(
        self, decision: ReviewDecision, undoes: int | None = None, supervisor: bool = False
    ) -> StoredDecision:
        """Store a decision and judge again. A reviewer decides what nobody has decided, or
        changes their own decision; another's is reopened by a supervisor."""
        with self._lock:
            if self.certified is not None:
                raise CaseFrozenError(
                    "the case is certified: a supervisor must reopen it before any decision"
                )
            if decision.line_id not in self.by_id and decision.line_id not in self.sheets:
                raise PetitionError(f"{decision.line_id}: no such line or sheet in this case")
            current = self.in_force.get(decision.line_id)
            by = current.decision.reviewer if current is not None else decision.reviewer
            if by != decision.reviewer and not supervisor:
                raise NotYoursError(
                    f"decided by {by}: a supervisor reopens another reviewer's decision"
                )
            stored = self.audit.append(decision, undoes)
            self._rejudge()
            return stored

    def undo(self, line_id: str, reviewer: str, supervisor: bool = False) -> StoredDecision | None:
        """Undo the decision in force on a line (or sheet): one more decision."""
        with self._lock:
            target = self.in_force.get(line_id)
            if target is None:
                return None
            made = undo_of(target, reviewer, dt.datetime.now(dt.UTC))
            return self.decide(made, target.seq, supervisor)

    def assign(self, actor: str, reviewer: str, line_ids: Sequence[str]) -> None:
        self.audit.event(actor, "assign", {"reviewer": reviewer, "lines": list(line_ids)})
        self._queue = None

    # the queue ------------------------------------------------------------------------------

    def settle(self) -> Settle:
        t, required = self.report.totals, self.report.totals.required
        if required is None or self.report.verdict is not Verdict.UNDETERMINED:
            return Settle(None, None, True)  # (a share of valuation: no count settles it)
        to_sufficient = required - t.valid if t.valid + t.needs_review >= required else None
        to_insufficient = t.valid + t.needs_review - required + 1
        valid_first = to_sufficient is not None and to_sufficient <= to_insufficient
        return Settle(to_sufficient, to_insufficient, valid_first)

    def _ordered(self) -> list[QueueItem]:
        """Every line in review, in queue order: computed once per judging."""
        if self._queue is None or self._queue[0] is not self.report:
            assigned = self.audit.assignments()
            settle = self.settle()
            items = [
                QueueItem(j, assigned.get(j.line.line_id), _doubts(j))
                for j in self.report.lines
                if j.status is LineStatus.NEEDS_REVIEW
            ]
            sign = 1 if settle.valid_first else -1
            rank = {s.page.page_id: i for i, s in enumerate(self.report.sheets)}
            items.sort(
                key=lambda q: (
                    sign * q.doubts,
                    rank.get(q.judged.line.page_id, 0),
                    q.judged.line.line_no,
                )
            )
            self._queue = (self.report, items)
        return self._queue[1]

    def queue(
        self,
        sheet: str | None = None,
        reason: str | None = None,
        reviewer: str | None = None,
    ) -> list[QueueItem]:
        """The lines in review, those likeliest to settle the verdict first: while more valid
        lines settle it sooner, the lines with the fewest doubts; else the most."""
        return [
            q
            for q in self._ordered()
            if (not sheet or q.judged.line.page_id == sheet)
            and (not reason or reason in {f.code for f in q.judged.findings})
            and (not reviewer or q.assigned_to == reviewer)
        ]

    def sheets_in_review(self) -> list[SheetItem]:
        waiting: dict[str, int] = {}
        for j in self.report.lines:
            if j.status is LineStatus.NEEDS_REVIEW:
                waiting[j.line.page_id] = waiting.get(j.line.page_id, 0) + 1
        out = []
        for s in self.report.sheets:
            own = tuple(
                f
                for f in self.report.findings
                if f.page_id == s.page.page_id
                and f.line_no is None
                and f.severity is Severity.REVIEW
            )
            if own:
                out.append(SheetItem(s, own, waiting.get(s.page.page_id, 0)))
        return out

    def reasons_in_queue(self) -> list[str]:
        codes = {
            f.code
            for j in self.report.lines
            if j.status is LineStatus.NEEDS_REVIEW
            for f in j.findings
            if f.severity is not Severity.NOTE
        }
        return sorted(codes)

    def neighbours(self, line_id: str) -> tuple[str | None, str | None]:
        """The lines before and after this one in the queue (the line itself may have left
        it: then the first line still in review after its place)."""
        ids = [q.line_id for q in self.queue()]
        if line_id in ids:
            i = ids.index(line_id)
            return (ids[i - 1] if i else None), (ids[i + 1] if i + 1 < len(ids) else None)
        return None, (ids[0] if ids else None)

    def history(self, line_id: str) -> list[StoredDecision]:
        return [s for s in self.audit.decisions() if s.decision.line_id == line_id]


def decision(
    line_id: str,
    action: ReviewAction,
    reviewer: str,
    *,
    corrections: Mapping[str, str] | None = None,
    voter_id: str | None = None,
    reason: str = "",
) -> ReviewDecision:
    return ReviewDecision(
        line_id,
        action,
        reviewer,
        dt.datetime.now(dt.UTC),
        dict(corrections or {}),
        voter_id,
        reason,
    )
