"""The stages in order: one case from its file to its report.

Each stage is a plain function of records; this module holds the few that join the others
(`collect_pages`, `read_sheets`, `load_register`, `match_lines`) and `check_case`, the whole run
without Prefect. `flows/check.py` runs the same stages as Prefect tasks, pages in parallel.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from matchers import BaselineMatcher, FSMatcher, RegisterRead, read_register
from matchers.assessment_roll import RollRead, read_roll

from .case import CaseConfig, PetitionKind
from .errors import PetitionError
from .ingest import discover, ingest_file, read_page, sha256_file
from .judge import apply_corrections, judge, latest_decisions
from .records import (
    FileError,
    Finding,
    Holding,
    Match,
    PageRef,
    RegisterEntry,
    ReviewDecision,
    Severity,
    Sheet,
    SufficiencyReport,
)
from .rules import town_191, village_2202, village_9902, village_nomination
from .rules.base import RuleSet
from .rules.electors import count_electors_on

__all__ = [
    "RegisterData",
    "check_case",
    "collect_pages",
    "ingest_one",
    "load_register",
    "match_lines",
    "read_one",
    "rules_for",
    "split_results",
]

log = logging.getLogger(__name__)

Mapper = Callable[[Callable, Iterable], Iterable]


def rules_for(case: CaseConfig) -> RuleSet:
    """The rule set of the case's petition kind (and, for 2-202, its petitioners' basis)."""
    if case.kind is PetitionKind.INCORPORATION:
        return village_2202.rules_for_case(case)
    rule_sets = {
        PetitionKind.PERMISSIVE_REFERENDUM: village_9902.RULES,
        PetitionKind.INDEPENDENT_NOMINATION: village_nomination.RULES,
        PetitionKind.IMPROVEMENT_DISTRICT: town_191.RULES,
    }
    return rule_sets[case.kind]


def ingest_one(path: Path) -> list[PageRef] | FileError:
    """The pages of one file, or the reason it could not be read."""
    try:
        return ingest_file(path)
    except PetitionError as err:
        log.warning("%s", err.message)
        return FileError(str(path), err.message)


def read_one(ref: PageRef, crops_dir: Path | None = None) -> Sheet | FileError:
    """One page read, or the reason it could not be; scans write each line's crop into
    `crops_dir` for the review queue."""
    try:
        return read_page(ref, crops_dir)
    except PetitionError as err:
        log.warning("%s", err.message)
        return FileError(ref.path, err.message, ref.page_index)


def collect_pages(
    results: Iterable[tuple[Path, list[PageRef] | FileError]],
) -> tuple[list[PageRef], list[FileError]]:
    """Pages from every file in filing order. The same page content twice (a sheet uploaded
    twice) is read once and the copy is reported, so no line is counted twice."""
    pages: list[PageRef] = []
    errors: list[FileError] = []
    seen: dict[str, PageRef] = {}
    for _, result in results:
        if isinstance(result, FileError):
            errors.append(result)
            continue
        for ref in result:
            first = seen.get(ref.content_hash)
            if first is not None:
                errors.append(
                    FileError(
                        ref.path,
                        f"page {ref.page_index + 1} is identical to page {first.page_index + 1} "
                        f"of {first.path}; read once",
                        ref.page_index,
                    )
                )
                continue
            seen[ref.content_hash] = ref
            pages.append(ref)
    return pages, errors


def split_results(results: Iterable[Sheet | FileError]) -> tuple[list[Sheet], list[FileError]]:
    sheets: list[Sheet] = []
    errors: list[FileError] = []
    for result in results:
        if isinstance(result, FileError):
            errors.append(result)
        else:
            sheets.append(result)
    return sheets, errors


@dataclass(frozen=True, slots=True)
class RegisterData:
    """Whom the signers are matched against (voters, or owners on the roll), and the
    threshold's inputs."""

    entries: Mapping[str, RegisterEntry]
    electors: int | None  # the threshold's denominator, when it is a count of electors
    electors_source: str
    reads: tuple[RegisterRead | RollRead, ...]
    findings: tuple[Finding, ...]  # about the register or roll itself (bad rows)
    holdings: tuple[Holding, ...] = ()  # the roll's parcels, for owner-signed kinds


def _by_id(
    entries: Sequence[RegisterEntry], path: str
) -> tuple[dict[str, RegisterEntry], list[Finding]]:
    by_id: dict[str, RegisterEntry] = {}
    repeated: list[str] = []
    for e in entries:
        if e.voter_id in by_id:
            repeated.append(e.voter_id)
        by_id.setdefault(e.voter_id, e)
    findings = []
    if repeated:
        findings.append(
            Finding(
                code="REGISTER_DUPLICATE_IDS",
                severity=Severity.NOTE,
                citation="",
                message=(
                    f"{len(repeated)} ids appear more than once in {Path(path).name}; the first "
                    "row of each is used"
                ),
                evidence={"ids": sorted(set(repeated))[:20]},
            )
        )
    return by_id, findings


def _bad_rows(read: RegisterRead | RollRead) -> list[Finding]:
    if not read.bad_rows:
        return []
    return [
        Finding(
            code="REGISTER_BAD_ROWS",
            severity=Severity.NOTE,
            citation="",
            message=(
                f"{len(read.bad_rows)} of {read.rows_read} rows of {Path(read.path).name} could "
                "not be read; a signer on one of them would not be found"
            ),
            evidence={
                "rows": [b.row for b in read.bad_rows[:20]],
                "first": read.bad_rows[0].problem,
            },
        )
    ]


def load_register(case: CaseConfig) -> RegisterData:
    """Whom to match signers against, and the count of electors the threshold is a share of
    (for the kinds that count signatures)."""
    if case.roll is not None:
        roll = read_roll(case.roll)
        entries, dup = _by_id(roll.owners, roll.path)
        return RegisterData(
            entries,
            None,
            "the assessment roll",
            (roll,),
            tuple(_bad_rows(roll) + dup),
            roll.holdings,
        )
    if case.register_file is None:  # the case file's validation prevents this
        raise PetitionError("this kind of petition needs [register] in the case file")
    read = read_register(case.register_file)
    reads: list[RegisterRead | RollRead] = [read]
    entries, dup = _by_id(read.entries, read.path)
    electors: int | None
    if case.denominator.electors is not None:
        electors = case.denominator.electors
        source = "given in the case file (denominator.electors)"
    else:
        denom_cfg = case.denominator_register or case.register_file
        if denom_cfg.path == case.register_file.path:
            denom_entries: Sequence[RegisterEntry] = read.entries
        else:
            other = read_register(denom_cfg)
            reads.append(other)
            denom_entries = other.entries
        day = case.denominator_as_of
        electors = count_electors_on(denom_entries, case.municipality, day)
        source = f"counted from {Path(denom_cfg.path).name} as it stood on {day.isoformat()}"
    findings = [f for r in reads for f in _bad_rows(r)] + dup
    return RegisterData(entries, electors, source, tuple(reads), tuple(findings))


def make_matcher(register: RegisterData, case: CaseConfig) -> BaselineMatcher | FSMatcher:
    entries = list(register.entries.values())
    if case.matching.method == "baseline":
        return BaselineMatcher(entries, case.matching)
    return FSMatcher(entries, case.matching)


def match_lines(sheets: Sequence[Sheet], matcher: BaselineMatcher | FSMatcher) -> dict[str, Match]:
    lines = [line for sheet in sheets for line in sheet.lines if not line.blank]
    return {m.line_id: m for m in matcher.match_all(lines)}


def people_named_in_the_petition(
    case: CaseConfig, matcher: BaselineMatcher | FSMatcher, register: RegisterData
) -> list[Finding]:
    """People the petition names who must be registered voters of the village (the nominating
    petition's committee to fill vacancies), looked up on the register like signers."""
    if case.nomination is None or not case.nomination.committee:
        return []
    people = village_nomination.committee_lines(case.nomination.committee)
    matches = matcher.match_all(people)
    return list(village_nomination.committee_registered(case, people, matches, register.entries))


def input_hashes(case: CaseConfig, files: Sequence[Path]) -> dict[str, str]:
    """sha256 of every input, keyed by its path relative to the case file's folder."""
    configs = (case.register_file, case.denominator_register, case.roll)
    paths = [Path(c.path) for c in configs if c is not None] + list(files)
    return {
        _relative(p, case.case_dir): sha256_file(p) for p in dict.fromkeys(paths) if p.is_file()
    }


def _relative(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path)


def finish(
    case: CaseConfig,
    sheets: Sequence[Sheet],
    errors: Sequence[FileError],
    register: RegisterData,
    decisions: Sequence[ReviewDecision],
    inputs: Mapping[str, str],
) -> SufficiencyReport:
    """Corrections, matching and judging: everything after the pages are read."""
    in_force = latest_decisions(decisions)
    sheets = apply_corrections(sheets, in_force)
    matcher = make_matcher(register, case)
    matches = match_lines(sheets, matcher)
    report = judge(
        case,
        rules_for(case),
        sheets,
        matches,
        register.entries,
        register.electors,
        decisions=in_force,
        file_errors=errors,
        inputs=inputs,
        holdings=register.holdings,
        petition_findings=people_named_in_the_petition(case, matcher, register),
    )
    if register.findings:
        report = replace(report, findings=register.findings + report.findings)
    return report


def check_case(
    case: CaseConfig,
    decisions: Sequence[ReviewDecision] = (),
    mapper: Mapper = map,
    crops_dir: Path | None = None,
) -> SufficiencyReport:
    """The whole run without Prefect. `mapper` runs per-file and per-page work (the builtin
    `map`, or a process pool's); scanned lines' crops go to `crops_dir`."""
    files, errors = discover(case.sheets)
    register = load_register(case)  # before reading: a missing register stops the run early
    pages, page_errors = collect_pages(zip(files, mapper(ingest_one, files), strict=True))
    errors += page_errors
    sheets, read_errors = split_results(mapper(partial(read_one, crops_dir=crops_dir), pages))
    return finish(
        case, sheets, errors + read_errors, register, decisions, input_hashes(case, files)
    )
