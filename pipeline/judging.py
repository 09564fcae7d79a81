"""What judging needs once the pages are read and matched, kept beside the report.

`run.finish` matches the lines and then judges them through `judge_inputs`; with a folder to
keep them in (`petitions check --out DIR` does), it also writes those inputs to
`DIR/judging.pickle`: the sheets as read, every line's match, the register entries the rules
look at, the threshold's count of electors, the roll's parcels, the case. The review dashboard
loads them and judges the case again after each decision, without reading a page or the
register again (well under a second for thousands of lines). Only a line whose name or address
a reviewer corrected is matched again, through the matcher the caller supplies.

The file is a pickle of these frozen records: written by this program into the report's folder
and read only from there, never from an upload. It carries a format number; a file of another
format is refused with the advice to check the case again.
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

from .case import CaseConfig
from .errors import PetitionError, UnreadableInputError
from .judge import SheetMemo, apply_corrections, judge, latest_decisions
from .records import (
    FileError,
    Finding,
    Holding,
    Match,
    RegisterDoubt,
    RegisterEntry,
    ReviewDecision,
    Sheet,
    SignatureLine,
    SufficiencyReport,
)
from .rules.base import RuleSet

__all__ = [
    "JUDGING_FILE",
    "JudgingInputs",
    "judge_inputs",
    "load_judging",
    "matched_on",
    "save_judging",
]

log = logging.getLogger(__name__)

JUDGING_FILE = "judging.pickle"
FORMAT = 5  # bumped whenever JudgingInputs (or a record in it) changes its fields

Rematch = Callable[[Sequence[SignatureLine]], Iterable[Match]]
Lookup = Callable[[Sequence[str]], Mapping[str, RegisterEntry]]


@dataclass(frozen=True, slots=True)
class JudgingInputs:
    """Everything `judge` needs besides the reviewers' decisions."""

    case: CaseConfig
    sheets: tuple[Sheet, ...]  # as read, before any reviewer's correction
    file_errors: tuple[FileError, ...]
    matches: Mapping[str, Match]  # line id -> its match
    matched_on: Mapping[str, tuple[tuple[str, str], ...]]  # the fields each match was made from
    entries: Mapping[str, RegisterEntry]  # the matched (and reviewer-chosen) voters
    electors: int | None
    holdings: tuple[Holding, ...] = ()
    # About the register itself (bad rows), and found with the matcher (the committee).
    petition_findings: tuple[Finding, ...] = ()
    inputs: Mapping[str, str] = field(default_factory=dict)
    corrected: frozenset[str] = frozenset()  # lines whose fields were corrected when matched
    doubt: RegisterDoubt = RegisterDoubt()  # what the register could not settle


def matched_on(line: SignatureLine) -> tuple[tuple[str, str], ...]:
    """The fields of a line the matcher reads (all but the date): a line whose key changed
    since it was matched (a reviewer corrected the name or address) is matched again."""
    return tuple(sorted((f.name, f.text) for f in line.fields if f.name != "date"))


def judge_inputs(
    inputs: JudgingInputs,
    decisions: Sequence[ReviewDecision],
    rules: RuleSet,
    rematch: Rematch | None = None,
    lookup: Lookup | None = None,
    memo: SheetMemo | None = None,
) -> SufficiencyReport:
    """The report from the stored inputs and every decision: corrections put in place, the
    corrected lines matched again (`rematch`), the voters the matches and decisions name
    taken from `inputs.entries` or else from `lookup`, then `judge` (with `memo`, only the
    sheets whose inputs changed since the last call are judged again)."""
    in_force = latest_decisions(decisions)
    sheets = apply_corrections(inputs.sheets, in_force)
    matches = dict(inputs.matches)
    maybe = inputs.corrected | {i for i, d in in_force.items() if d.corrections}
    stale = [
        line
        for sheet in sheets
        for line in sheet.lines
        if line.line_id in maybe
        and not line.blank
        and inputs.matched_on.get(line.line_id) != matched_on(line)
    ]
    if stale:
        if rematch is None:
            raise PetitionError(
                f"{len(stale)} corrected line(s) must be matched again: the register is needed"
            )
        matches.update({m.line_id: m for m in rematch(stale)})
    wanted = {m.voter_id for m in matches.values() if m.voter_id}
    wanted |= {d.voter_id for d in in_force.values() if d.voter_id}
    entries = dict(inputs.entries)
    missing = sorted(wanted - entries.keys())
    if missing and lookup is not None:
        entries.update(lookup(missing))
    return judge(
        inputs.case,
        rules,
        sheets,
        matches,
        entries,
        inputs.electors,
        decisions=in_force,
        file_errors=inputs.file_errors,
        inputs=inputs.inputs,
        holdings=inputs.holdings,
        petition_findings=inputs.petition_findings,
        doubt=inputs.doubt,
        memo=memo,
    )


def save_judging(inputs: JudgingInputs, folder: Path) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / JUDGING_FILE
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as f:
        pickle.dump((FORMAT, inputs), f, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(path)
    log.info("judging inputs kept in %s", path)
    return path


def _complete(inputs: JudgingInputs) -> bool:
    """Every field present: a file written before a field was added lacks it."""
    return all(hasattr(inputs, f.name) for f in fields(inputs))


def load_judging(folder: Path) -> JudgingInputs:
    """The inputs `save_judging` wrote into `folder` (a checked case's report folder)."""
    path = Path(folder) / JUDGING_FILE
    if not path.is_file():
        raise UnreadableInputError(
            f"{path}: no judging inputs: check the case again with `petitions check` "
            "(this version keeps them beside the report)"
        )
    try:
        with path.open("rb") as f:
            version, inputs = pickle.load(f)
    except Exception as err:  # a truncated or foreign file: say so, and what to do
        raise UnreadableInputError(
            f"{path}: cannot be read ({type(err).__name__}); check the case again"
        ) from None
    if version != FORMAT or not isinstance(inputs, JudgingInputs) or not _complete(inputs):
        raise UnreadableInputError(
            f"{path}: written by another version of petitions; check the case again"
        )
    return inputs
