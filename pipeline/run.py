"""The stages in order: one case from its file to its report.

Each stage is a plain function of records; this module holds the few that join the others
(`collect_pages`, `read_sheets`, `load_register`, `match_lines`) and `check_case`, the whole run
without Prefect. `flows/check.py` runs the same stages as Prefect tasks, pages in parallel.

Pages already read by this reader are taken from the case's page cache (`pipeline.cache`) and
only the others are read, each stored as soon as it is read; matching and judging always run.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Protocol

from matchers import BaselineMatcher, FSMatcher, RegisterRead, read_register
from matchers.assessment_roll import RollRead, read_roll
from matchers.store import RegisterStore, open_import, open_store

from .cache import PageCache
from .case import CaseConfig, PetitionKind, RegisterConfig
from .errors import CaseFileError, PetitionError
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
from .scan.context import ReadContext

__all__ = [
    "LARGE_REGISTER_BYTES",
    "Readings",
    "RegisterData",
    "StoredRegister",
    "check_case",
    "collect_pages",
    "ingest_one",
    "load_register",
    "match_lines",
    "page_cache",
    "read_one",
    "read_sheets",
    "rules_for",
    "split_results",
]

log = logging.getLogger(__name__)

Mapper = Callable[[Callable, Iterable], Iterable]


class Progress(Protocol):
    """Told how far a stage has come (`pipeline.progress.ProgressBar` draws it)."""

    def start(self, stage: str, total: int, done: int = 0) -> None: ...

    def advance(self, label: str, n: int = 1) -> None: ...


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


def read_one(ref: PageRef, context: ReadContext | None = None) -> Sheet | FileError:
    """One page read, or the reason it could not be; scans are read with the context's engine
    and write each line's crop into its `crops_dir` for the review queue."""
    try:
        return read_page(ref, context)
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


def page_cache(case: CaseConfig) -> PageCache:
    """The case's page cache: in its cache folder, beside the register imports."""
    return PageCache.in_folder(case.matching.cache)


def read_and_store(
    ref: PageRef, context: ReadContext | None = None, cache: PageCache | None = None
) -> Sheet | FileError:
    """One page read (`read_one`) and its reading stored in `cache` at once, so a run stopped
    later keeps it."""
    result = read_one(ref, context)
    if cache is not None and isinstance(result, Sheet):
        try:
            cache.put(result, context)
        except OSError as err:  # a full or read-only cache folder costs a re-read, no more
            log.warning("page %s of %s: reading not cached (%s)", ref.page_index + 1, ref.path, err)
    return result


@dataclass(frozen=True, slots=True)
class Readings:
    """The pages' readings in filing order, what could not be read, and how many pages were
    read this run (the others came from the cache)."""

    sheets: list[Sheet]
    errors: list[FileError]
    pages_read: int


def read_sheets(
    pages: Sequence[PageRef],
    mapper: Mapper = map,
    context: ReadContext | None = None,
    cache: PageCache | None = None,
    progress: Progress | None = None,
) -> Readings:
    """Every page's Sheet: from `cache` when it holds the page's reading, otherwise read through
    `mapper` (the builtin `map`, a process pool's, a Prefect task's) and stored."""
    results: list[Sheet | FileError | None] = [None] * len(pages)
    todo: list[int] = []
    for i, ref in enumerate(pages):
        hit = cache.get(ref, context) if cache is not None else None
        if hit is None:
            todo.append(i)
        else:
            results[i] = hit
    if progress is not None:
        progress.start("pages read", len(pages), done=len(pages) - len(todo))
    read = partial(read_and_store, context=context, cache=cache)
    for i, result in zip(todo, mapper(read, [pages[i] for i in todo]), strict=True):
        results[i] = result
        if progress is not None:
            progress.advance(f"{Path(pages[i].path).name} p{pages[i].page_index + 1}")
    if todo or cache is not None:
        log.info("pages: %d read, %d from the cache", len(todo), len(pages) - len(todo))
    sheets, errors = split_results(r for r in results if r is not None)
    return Readings(sheets, errors, len(todo))


LARGE_REGISTER_BYTES = 64 * 1024 * 1024  # [matching] store = "auto": DuckDB from this size on
STORE_MEMORY = "1GB"  # DuckDB's memory limit for a stored register


@dataclass(frozen=True, slots=True)
class StoredRegister:
    """A register matched in DuckDB, imported once into the case's cache (matchers/store.py):
    what it takes to open it again, in this process or another (it pickles; a connection
    would not). Once the import is known (`sha256`), it is opened without reading the register
    file again."""

    config: RegisterConfig
    cache: Path
    sha256: str = ""

    def open(self) -> RegisterStore:
        # DuckDB's share of the 2 GB budget; Python's records take the rest at state scale.
        if self.sha256:
            store = open_import(self.cache, self.sha256, memory_limit=STORE_MEMORY)
            if store is not None:
                return store
        return open_store(
            self.config, self.cache, memory_limit=STORE_MEMORY, progress=sys.stderr.isatty()
        )


@dataclass(frozen=True, slots=True)
class RegisterData:
    """Whom the signers are matched against (voters, or owners on the roll), and the
    threshold's inputs. A village's register is held in memory (`entries`); a large one stays
    in DuckDB (`stored`, `entries` empty) and only the entries the report needs are fetched."""

    entries: Mapping[str, RegisterEntry]
    electors: int | None  # the threshold's denominator, when it is a count of electors
    electors_source: str
    findings: tuple[Finding, ...]  # about the register or roll itself (bad rows)
    holdings: tuple[Holding, ...] = ()  # the roll's parcels, for owner-signed kinds
    stored: StoredRegister | None = None


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
        _bad_rows_finding(
            read.path,
            len(read.bad_rows),
            read.rows_read,
            read.bad_rows[0].problem,
            [b.row for b in read.bad_rows[:20]],
        )
    ]


def _bad_rows_finding(path: str, bad: int, rows: int, first: str, examples: list[int]) -> Finding:
    return Finding(
        code="REGISTER_BAD_ROWS",
        severity=Severity.NOTE,
        citation="",
        message=(
            f"{bad} of {rows} rows of {Path(path).name} could not be read; a signer on one of "
            "them would not be found"
        ),
        evidence={"rows": examples, "first": first},
    )


def _in_duckdb(case: CaseConfig, cfg: RegisterConfig) -> bool:
    """Whether this register is matched in DuckDB rather than held in memory."""
    if case.matching.store != "auto":
        return case.matching.store == "duckdb"
    try:
        return Path(cfg.path).stat().st_size >= LARGE_REGISTER_BYTES
    except OSError:
        return False  # reading it reports the missing file


def _electors_in_store(store: RegisterStore, case: CaseConfig) -> int:
    """The village's electors on the day the threshold counts: only the town's entries leave
    the database, then the same rules as in memory (`rules.electors`) place and date them."""
    day = case.denominator_as_of
    return count_electors_on(store.entries_in_town(case.municipality.town), case.municipality, day)


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
            tuple(_bad_rows(roll) + dup),
            roll.holdings,
        )
    cfg = case.register_file
    if cfg is None:  # the case file's validation prevents this
        raise PetitionError("this kind of petition needs [register] in the case file")
    if _in_duckdb(case, cfg):
        # A large register: imported on first use (later runs reuse the import).
        store = StoredRegister(cfg, case.matching.cache).open()
        try:
            electors, source, more = _electors(case, (), store)
            findings = _store_findings(store) + more
            stored = StoredRegister(cfg, case.matching.cache, store.info.sha256)
        finally:
            store.close()
        return RegisterData({}, electors, source, tuple(findings), stored=stored)
    read = read_register(cfg)
    entries, dup = _by_id(read.entries, read.path)
    electors, source, more = _electors(case, read.entries, None)
    return RegisterData(entries, electors, source, tuple(_bad_rows(read) + dup + more))


def _electors(
    case: CaseConfig, held: Sequence[RegisterEntry], store: RegisterStore | None
) -> tuple[int | None, str, list[Finding]]:
    """The threshold's count of electors, where it comes from, and findings about a separate
    denominator register. `held` / `store` is the matching register, already read."""
    if case.denominator.electors is not None:
        return case.denominator.electors, "given in the case file (denominator.electors)", []
    assert case.register_file is not None
    cfg = case.denominator_register or case.register_file
    day = case.denominator_as_of
    source = f"counted from {Path(cfg.path).name} as it stood on {day.isoformat()}"
    if cfg.path == case.register_file.path:
        if store is not None:
            return _electors_in_store(store, case), source, []
        return count_electors_on(held, case.municipality, day), source, []
    if _in_duckdb(case, cfg):
        other_store = StoredRegister(cfg, case.matching.cache).open()
        try:
            return _electors_in_store(other_store, case), source, _store_findings(other_store)
        finally:
            other_store.close()
    other = read_register(cfg)
    return count_electors_on(other.entries, case.municipality, day), source, _bad_rows(other)


def _store_findings(store: RegisterStore) -> list[Finding]:
    info = store.info
    if not info.bad_rows:
        return []
    first = info.bad_examples[0].problem if info.bad_examples else ""
    return [
        _bad_rows_finding(
            info.path, info.bad_rows, info.rows_read, first, [b.row for b in info.bad_examples]
        )
    ]


def make_matcher(
    register: RegisterData, case: CaseConfig, store: RegisterStore | None = None
) -> BaselineMatcher | FSMatcher:
    """The case's matcher over the register in memory, or over `store` (an open
    `register.stored`)."""
    if store is not None:
        if case.matching.method == "baseline":
            raise CaseFileError(
                "[matching]",
                ["method = 'baseline' works on a register held in memory; use store = 'memory'"],
            )
        return FSMatcher(store, case.matching)
    entries = list(register.entries.values())
    if case.matching.method == "baseline":
        return BaselineMatcher(entries, case.matching)
    return FSMatcher(entries, case.matching)


MATCH_CHUNK = 250  # lines matched at a time when progress is shown


def match_lines(
    sheets: Sequence[Sheet],
    matcher: BaselineMatcher | FSMatcher,
    progress: Progress | None = None,
) -> dict[str, Match]:
    """Every signed line matched, in one batch (or, to show progress, in chunks: each line is
    matched on its own, so the matches are the same)."""
    lines = [line for sheet in sheets for line in sheet.lines if not line.blank]
    if progress is None:
        return {m.line_id: m for m in matcher.match_all(lines)}
    progress.start("lines matched", len(lines))
    matches: dict[str, Match] = {}
    for start in range(0, len(lines), MATCH_CHUNK):
        chunk = lines[start : start + MATCH_CHUNK]
        matches.update((m.line_id, m) for m in matcher.match_all(chunk))
        progress.advance(chunk[-1].line_id, len(chunk))
    return matches


def people_named_in_the_petition(
    case: CaseConfig,
    matcher: BaselineMatcher | FSMatcher,
    entries: Callable[[Sequence[Match]], Mapping[str, RegisterEntry]],
) -> list[Finding]:
    """People the petition names who must be registered voters of the village (the nominating
    petition's committee to fill vacancies), looked up on the register like signers."""
    if case.nomination is None or not case.nomination.committee:
        return []
    people = village_nomination.committee_lines(case.nomination.committee)
    matches = matcher.match_all(people)
    return list(village_nomination.committee_registered(case, people, matches, entries(matches)))


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
    progress: Progress | None = None,
) -> SufficiencyReport:
    """Corrections, matching and judging: everything after the pages are read."""
    in_force = latest_decisions(decisions)
    sheets = apply_corrections(sheets, in_force)
    store = register.stored.open() if register.stored is not None else None
    try:
        matcher = make_matcher(register, case, store)
        matches = match_lines(sheets, matcher, progress)

        def entries(found: Iterable[Match]) -> Mapping[str, RegisterEntry]:
            """The entries the judge may look at: every matched or chosen voter."""
            if store is None:
                return register.entries
            ids = {m.voter_id for m in found if m.voter_id}
            ids |= {d.voter_id for d in in_force.values() if d.voter_id}
            return store.get(sorted(ids))

        report = judge(
            case,
            rules_for(case),
            sheets,
            matches,
            entries(matches.values()),
            register.electors,
            decisions=in_force,
            file_errors=errors,
            inputs=inputs,
            holdings=register.holdings,
            petition_findings=people_named_in_the_petition(case, matcher, entries),
        )
    finally:
        if store is not None:
            store.close()
    if register.findings:
        report = replace(report, findings=register.findings + report.findings)
    return report


def check_case(
    case: CaseConfig,
    decisions: Sequence[ReviewDecision] = (),
    mapper: Mapper = map,
    context: ReadContext | None = None,
    cache: PageCache | None = None,
    progress: Progress | None = None,
) -> SufficiencyReport:
    """The whole run without Prefect. `mapper` runs per-file and per-page work (the builtin
    `map`, or a process pool's); scans are read with the context's engine, their lines' crops
    written to its `crops_dir`; pages already read are taken from `cache` (`page_cache(case)`;
    None: every page is read)."""
    files, errors = discover(case.sheets)
    register = load_register(case)  # before reading: a missing register stops the run early
    pages, page_errors = collect_pages(zip(files, mapper(ingest_one, files), strict=True))
    errors += page_errors
    read = read_sheets(pages, mapper, context, cache, progress)
    return finish(
        case,
        read.sheets,
        errors + read.errors,
        register,
        decisions,
        input_hashes(case, files),
        progress,
    )
