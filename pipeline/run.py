"""The stages in order: one case from its file to its report.

Each stage is a plain function of records; this module holds the few that join the others
(`collect_pages`, `read_sheets`, `load_register`, `match_signers`, `judge`) and `check_case`,
the one orchestrator: the list of stages (`Stage`), written once. An `Executor` decides where
each stage runs: in this process (`InProcess`, per-page work on the builtin `map` or a process
pool's), or as Prefect tasks on the flow's threads or Dask workers (`flows/check.py`).

Pages already read by this reader are taken from the case's page cache (`pipeline.cache`) and
only the others are read, each stored as soon as it is read; matching and judging always run.
"""

from __future__ import annotations

import datetime as dt
import logging
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar

from matchers import BaselineMatcher, FSMatcher, Matcher, RegisterRead, read_register
from matchers.assessment_roll import RollRead, read_roll
from matchers.store import RegisterStore, open_import, open_store

from .cache import PageCache, world_key
from .case import CaseConfig, LimitsConfig, RegisterConfig
from .closedworld import resolve_sheets
from .closedworld.sheetno import resolve_sheet_numbers
from .errors import CaseFileError, PetitionError, stage
from .ingest import discover, ingest_file, read_page, sha256_file
from .judge import apply_corrections, latest_decisions, name_voters
from .judging import JudgingInputs, judge_inputs, matched_on, save_judging
from .records import (
    FileError,
    Finding,
    Holding,
    Match,
    PageRef,
    RegisterDoubt,
    RegisterEntry,
    ReviewDecision,
    Severity,
    Sheet,
    SufficiencyReport,
)
from .report import write_report
from .rules.base import RuleSet, finding
from .rules.electors import count_electors_on
from .scan.context import ReadContext

__all__ = [
    "LARGE_REGISTER_BYTES",
    "Executor",
    "InProcess",
    "Readings",
    "RegisterData",
    "Stage",
    "StoredRegister",
    "check_case",
    "collect_pages",
    "file_hashes",
    "finish",
    "ingest_one",
    "judge",
    "load_register",
    "match_lines",
    "match_signers",
    "page_cache",
    "read_context_for",
    "read_one",
    "read_sheets",
    "rules_for",
    "split_results",
]

log = logging.getLogger(__name__)

Mapper = Callable[[Callable, Iterable], Iterable]
A = TypeVar("A")
T = TypeVar("T")


class Progress(Protocol):
    """Told how far a stage has come (`pipeline.progress.ProgressBar` draws it)."""

    def start(self, stage: str, total: int, done: int = 0) -> None: ...

    def advance(self, label: str, n: int = 1) -> None: ...


def rules_for(case: CaseConfig) -> RuleSet:
    """The rule set of the case's petition kind in force on its filing day."""
    return case.spec.rules_on(case)


def ingest_one(
    path: Path,
    limits: LimitsConfig | None = None,
    cache: PageCache | None = None,
    digest: str | None = None,
) -> list[PageRef] | FileError:
    """The pages of one file, or the reason it could not be read. `digest`: the file's sha256
    when the caller has it (`file_hashes`: a file is hashed once a run), else it is hashed
    here for the cache. With a `cache`, a file whose bytes were ingested before is not opened
    again (a PDF's pages are parsed to list them)."""
    limits = limits or LimitsConfig()
    try:
        if digest is None and cache is not None:
            digest = file_hashes([path]).get(path)
        known = cache.get_pages(path, digest, limits) if cache and digest else None
        if known is not None:
            return known
        refs = ingest_file(path, limits, digest)
    except PetitionError as err:
        log.info("%s", err.message)  # said once, by the summary and the report
        return FileError(str(path), err.message)
    if digest is not None and cache is not None:
        try:
            cache.put_pages(digest, limits, refs)
        except OSError as err:
            log.warning("%s: pages not cached (%s)", path, err)
    return refs


def _ingest_hashed(
    item: tuple[Path, str | None], limits: LimitsConfig, cache: PageCache | None
) -> list[PageRef] | FileError:
    return ingest_one(item[0], limits, cache, item[1])


def open_files(
    files: Sequence[Path],
    hashes: Mapping[Path, str],
    limits: LimitsConfig,
    mapper: Mapper = map,
    cache: PageCache | None = None,
) -> list[list[PageRef] | FileError]:
    """Each file's pages (or why it could not be opened), in order: those the cache lists
    for the file's bytes taken here, the others opened through `mapper` (a re-check of an
    unchanged case starts no worker for them)."""
    known: dict[Path, list[PageRef]] = {}
    if cache is not None:
        for path in files:
            refs = cache.get_pages(path, hashes[path], limits) if path in hashes else None
            if refs is not None:
                known[path] = refs
    todo = [path for path in files if path not in known]
    ingest = partial(_ingest_hashed, limits=limits, cache=cache)
    opened = dict(zip(todo, mapper(ingest, [(p, hashes.get(p)) for p in todo]), strict=True))
    return [known[path] if path in known else opened[path] for path in files]


def file_hashes(paths: Iterable[Path]) -> dict[Path, str]:
    """sha256 of each regular file that can be read. The others are left out: only a regular
    file is hashed (a pipe would never end), and ingest says what is wrong with the rest."""
    found: dict[Path, str] = {}
    for path in dict.fromkeys(paths):
        try:
            if path.is_file():
                found[path] = sha256_file(path)
        except OSError:
            continue
    return found


def read_one(ref: PageRef, context: ReadContext | None = None) -> Sheet | FileError:
    """One page read, or the reason it could not be; scans are read with the context's engine
    and write each line's crop into its `crops_dir` for the review queue."""
    try:
        return read_page(ref, context)
    except PetitionError as err:
        log.info("%s", err.message)  # said once, by the summary and the report
        return FileError(ref.path, err.message, ref.page_index)


def collect_pages(
    results: Iterable[tuple[Path, list[PageRef] | FileError]],
    limits: LimitsConfig | None = None,
) -> tuple[list[PageRef], list[FileError]]:
    """Pages from every file in filing order. The same page content twice (a sheet uploaded
    twice) is read once and the copy is reported, so no line is counted twice. Files past the
    case's page limit are not read (each is reported)."""
    most = (limits or LimitsConfig()).pages_per_case
    pages: list[PageRef] = []
    errors: list[FileError] = []
    seen: dict[str, PageRef] = {}
    for path, result in results:
        if isinstance(result, FileError):
            errors.append(result)
            continue
        if len(pages) + len(result) > most:
            errors.append(
                FileError(
                    str(path),
                    f"{path}: not read: its {len(result)} pages would take the case past "
                    f"{most} pages ([limits] pages_per_case)",
                )
            )
            continue
        for ref in result:
            first = seen.get(ref.content_hash)
            if first is not None:
                errors.append(_copy_of(ref, first))
                continue
            seen[ref.content_hash] = ref
            pages.append(ref)
    return pages, errors


def _copy_of(ref: PageRef, first: PageRef) -> FileError:
    return FileError(
        ref.path,
        f"page {ref.page_index + 1} is identical to page {first.page_index + 1} of "
        f"{first.path}; read once",
        ref.page_index,
    )


def split_results(results: Iterable[Sheet | FileError]) -> tuple[list[Sheet], list[FileError]]:
    """The sheets read and what could not be read, in filing order. An image page is known by
    its pixels only once read (`pipeline.ingest`): a sheet re-saved with the same pixels (the
    same page twice in two files) is reported as a copy here, so no line is counted twice."""
    sheets: list[Sheet] = []
    errors: list[FileError] = []
    seen: dict[str, PageRef] = {}
    for result in results:
        if isinstance(result, FileError):
            errors.append(result)
        elif (first := seen.get(result.page.content_hash)) is not None:
            errors.append(_copy_of(result.page, first))
        else:
            seen[result.page.content_hash] = result.page
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
            cache.put(result, context, ref)
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
    limits: LimitsConfig | None = None  # the case's; checked before an import

    def open(self) -> RegisterStore:
        # DuckDB's share of the 2 GB budget; Python's records take the rest at state scale.
        if self.sha256:
            store = open_import(self.cache, self.sha256, memory_limit=STORE_MEMORY)
            if store is not None:
                return store
        return open_store(
            self.config,
            self.cache,
            memory_limit=STORE_MEMORY,
            progress=sys.stderr.isatty(),
            limits=self.limits,
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
    doubt: RegisterDoubt = RegisterDoubt()  # unread or disagreeing rows the verdict allows for


def _by_id(
    entries: Sequence[RegisterEntry], path: str
) -> tuple[dict[str, RegisterEntry], list[Finding], frozenset[str]]:
    """One entry per id. Identical rows (the same export given twice) are one voter, counted
    once; an id whose rows disagree is a register problem: its first row is used, and a
    verdict that depends on those voters waits for a person (`RegisterDoubt`)."""
    by_id: dict[str, RegisterEntry] = {}
    repeated = 0
    conflicting: set[str] = set()
    for e in entries:
        first = by_id.setdefault(e.voter_id, e)
        if first is e:
            continue
        if replace(first, source_row=0) == replace(e, source_row=0):
            repeated += 1
        else:
            conflicting.add(e.voter_id)
    findings = _repeat_findings(Path(path).name, repeated, sorted(conflicting))
    return by_id, findings, frozenset(conflicting)


def _repeat_findings(name: str, repeated: int, conflicting: Sequence[str]) -> list[Finding]:
    findings = []
    if repeated:
        findings.append(
            finding(
                "REGISTER_DUPLICATE_ROWS",
                Severity.NOTE,
                "",
                f"{repeated} rows of {name} repeat another row exactly; each voter is counted once",
                rows=repeated,
            )
        )
    if conflicting:
        findings.append(
            finding(
                "REGISTER_CONFLICTING_IDS",
                Severity.NOTE,
                "",
                f"{len(conflicting)} ids of {name} have rows that disagree; the first row of each "
                "is used, and a verdict that depends on them waits for a person",
                ids=list(conflicting[:20]),
            )
        )
    return findings


def _bad_rows(read: RegisterRead | RollRead) -> list[Finding]:
    found = _incomplete_rows(read)
    if not read.bad_rows:
        return found
    return [
        _bad_rows_finding(
            read.path,
            len(read.bad_rows),
            read.rows_read,
            read.bad_rows[0].problem,
            [b.row for b in read.bad_rows[:20]],
        ),
        *found,
    ]


def _incomplete_rows(read: RegisterRead | RollRead) -> list[Finding]:
    """Rows kept though they lack a surname or a given name (matchers.register)."""
    rows = getattr(read, "incomplete", ())
    if not rows:
        return []
    return [
        Finding(
            code="REGISTER_INCOMPLETE_ROWS",
            severity=Severity.NOTE,
            citation="",
            message=(
                f"{len(rows)} of {read.rows_read} rows of {Path(read.path).name} lack a surname "
                "or a given name; they are kept and matched on the rest"
            ),
            evidence={"rows": [b.row for b in rows[:20]], "first": rows[0].problem},
        )
    ]


def _bad_rows_finding(path: str, bad: int, rows: int, first: str, examples: list[int]) -> Finding:
    return finding(
        "REGISTER_BAD_ROWS",
        Severity.NOTE,
        "",
        f"{bad} of {rows} rows of {Path(path).name} could not be read ({first}); a signer or "
        "elector on one of them is not counted, and a verdict they could change waits for a "
        "person",
        rows=examples,
        first=first,
        count=bad,
    )


def _in_duckdb(case: CaseConfig, cfg: RegisterConfig) -> bool:
    """Whether this register is matched in DuckDB rather than held in memory."""
    if case.matching.store != "auto":
        return case.matching.store == "duckdb"
    try:
        return Path(cfg.path).stat().st_size >= LARGE_REGISTER_BYTES
    except OSError:
        return False  # reading it reports the missing file


def _electors_in_store(store: RegisterStore, case: CaseConfig, day: dt.date) -> int:
    """The village's electors on `day`: only the town's entries leave the database, then the
    same rules as in memory (`rules.electors`) place and date them, each id once."""
    entries, _, _ = _by_id(store.entries_in_town(case.municipality.town), store.info.path)
    return count_electors_on(tuple(entries.values()), case.municipality, day)


def load_register(case: CaseConfig) -> RegisterData:
    """Whom to match signers against, and the count of electors the threshold is a share of
    (for the kinds that count signatures)."""
    if case.roll is not None:
        roll = read_roll(case.roll, case.limits)
        entries, dup, conflicting = _by_id(roll.owners, roll.path)
        return RegisterData(
            entries,
            None,
            "the assessment roll",
            tuple(_bad_rows(roll) + dup),
            roll.holdings,
            doubt=RegisterDoubt(unread_rows=len(roll.bad_rows), conflicting_ids=conflicting),
        )
    cfg = case.register_file
    if cfg is None:  # the case file's validation prevents this
        raise PetitionError("this kind of petition needs [register] in the case file")
    if _in_duckdb(case, cfg):
        # A large register: imported on first use (later runs reuse the import).
        store = StoredRegister(cfg, case.matching.cache, limits=case.limits).open()
        try:
            count = _electors(case, (), store)
            findings = _store_findings(store) + count.findings
            stored = StoredRegister(cfg, case.matching.cache, store.info.sha256)
            unread = store.info.bad_rows
            conflicting = store.conflicting_ids()
        finally:
            store.close()
        return RegisterData(
            {},
            count.electors,
            count.source,
            tuple(findings),
            stored=stored,
            doubt=RegisterDoubt(unread, count.unread_rows, conflicting),
        )
    read = read_register(cfg, case.limits)
    entries, dup, conflicting = _by_id(read.entries, read.path)
    count = _electors(case, tuple(entries.values()), None, len(read.bad_rows))
    doubt = RegisterDoubt(len(read.bad_rows), count.unread_rows, conflicting)
    return RegisterData(
        entries,
        count.electors,
        count.source,
        tuple(_bad_rows(read) + dup + count.findings),
        doubt=doubt,
    )


@dataclass(frozen=True, slots=True)
class _Electors:
    electors: int | None
    source: str
    findings: list[Finding]
    unread_rows: int = 0  # rows of the counted register that could not be read


# A count of electors on the threshold's day this far below the register's count on the
# filing day (or a given count this far from the register's) is a mistake until a person says
# otherwise: a wrong year, a register of another village.
IMPLAUSIBLE_RATIO = 2


def _electors(
    case: CaseConfig,
    held: Sequence[RegisterEntry],
    store: RegisterStore | None,
    held_unread: int = 0,
) -> _Electors:
    """The threshold's count of electors, where it comes from, and findings about it. `held` /
    `store` is the matching register, already read (`held_unread` of its rows could not be)."""
    assert case.register_file is not None
    cfg = case.denominator_register or case.register_file
    day = case.denominator_as_of
    source = f"counted from {Path(cfg.path).name} as it stood on {day.isoformat()}"
    if store is not None:
        counted = _electors_in_store(store, case, day)
        today = _electors_in_store(store, case, case.dates.filed)
        unread = store.info.bad_rows
    else:
        counted = count_electors_on(held, case.municipality, day)
        today = count_electors_on(held, case.municipality, case.dates.filed)
        unread = held_unread
    findings: list[Finding] = []
    if cfg.path != case.register_file.path:
        if _in_duckdb(case, cfg):
            other_store = StoredRegister(cfg, case.matching.cache, limits=case.limits).open()
            try:
                counted = _electors_in_store(other_store, case, day)
                findings = _store_findings(other_store)
                unread = other_store.info.bad_rows
            finally:
                other_store.close()
        else:
            other = read_register(cfg, case.limits)
            other_entries, dup, _ = _by_id(other.entries, other.path)
            counted = count_electors_on(tuple(other_entries.values()), case.municipality, day)
            findings = _bad_rows(other) + dup
            unread = len(other.bad_rows)
    given = case.denominator.electors
    if given is not None:
        return _Electors(
            given,
            "given in the case file (denominator.electors)",
            findings + _implausible(given, counted, f"the register counts {counted} on {day}"),
        )
    if counted == 0:
        raise CaseFileError(
            f"the case file in {case.case_dir}",
            [
                f"the register counts 0 electors of the village on {day.isoformat()} (the "
                "threshold's day: dates.previous_general_election or denominator.as_of); "
                f"{today} on the filing day. Is the year right? Are [municipality]'s town and "
                "districts the register's?"
            ],
        )
    return _Electors(
        counted,
        source,
        findings + _implausible(counted, today, f"{today} on the filing day"),
        unread,
    )


def _implausible(electors: int, register: int, what: str) -> list[Finding]:
    if register <= 0 or (register / IMPLAUSIBLE_RATIO <= electors <= register * IMPLAUSIBLE_RATIO):
        return []
    return [
        finding(
            "DENOMINATOR_IMPLAUSIBLE",
            Severity.REVIEW,
            "",
            f"the threshold's denominator is {electors} electors, but {what}: check the case "
            "file's dates and [denominator] before any verdict",
            electors=electors,
            register=register,
        )
    ]


def _store_findings(store: RegisterStore) -> list[Finding]:
    info = store.info
    found = _repeat_findings(
        Path(info.path).name,
        info.duplicate_rows,
        sorted(store.conflicting_ids()) if info.conflicting_ids else [],
    )
    if not info.bad_rows:
        return found
    first = info.bad_examples[0].problem if info.bad_examples else ""
    return [
        _bad_rows_finding(
            info.path, info.bad_rows, info.rows_read, first, [b.row for b in info.bad_examples]
        ),
        *found,
    ]


def make_matcher(
    register: RegisterData, case: CaseConfig, store: RegisterStore | None = None
) -> Matcher:
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


def match_lines(
    sheets: Sequence[Sheet],
    matcher: Matcher,
    progress: Progress | None = None,
) -> dict[str, Match]:
    """Every signed line matched, in one batch: the matcher fits its weights to the lines at
    hand, so the batch is never split (`progress` is told when it starts and when it is done,
    not between)."""
    lines = [line for sheet in sheets for line in sheet.lines if not line.blank]
    if progress is not None:
        progress.start("lines matched", len(lines))
    matches = {m.line_id: m for m in matcher.match_all(lines)}
    if progress is not None:
        progress.advance(f"{len(lines)} lines", len(lines))
    return matches


def people_named_in_the_petition(
    case: CaseConfig,
    matcher: Matcher,
    entries: Callable[[Sequence[Match]], Mapping[str, RegisterEntry]],
) -> list[Finding]:
    """People the petition names who must be registered voters of the village (the nominating
    petition's committee to fill vacancies: the kind's `people_named`), looked up on the
    register like signers."""
    named = case.spec.people_named
    people = named.lines(case) if named is not None else ()
    if named is None or not people:
        return []
    matches = matcher.match_all(people)
    return list(named.check(case, people, matches, entries(matches)))


def input_hashes(
    case: CaseConfig, files: Sequence[Path], hashes: Mapping[Path, str] | None = None
) -> dict[str, str]:
    """sha256 of every input, keyed by its path relative to the case file's folder; the sheet
    files' taken from `hashes` when the caller has them (`file_hashes`)."""
    configs = (case.register_file, case.denominator_register, case.roll)
    paths = [Path(c.path) for c in configs if c is not None] + list(files)
    known = dict(hashes or {})
    known |= file_hashes(p for p in paths if p not in known)
    return {_relative(p, case.case_dir): known[p] for p in dict.fromkeys(paths) if p in known}


def _relative(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path)


def read_in_closed_world(
    case: CaseConfig,
    sheets: Sequence[Sheet],
    register: RegisterData,
    cache: PageCache | None = None,
) -> list[Sheet]:
    """The lines' unsure fields read as the values they can hold (pipeline.closedworld): the
    dates near the window, the register's (or roll's) addresses and people; the sheets'
    numbers among the case's (`closedworld.sheetno`). A register kept in DuckDB gives its
    town's entries, as the electors' count takes them (`_electors_in_store`). With a `cache`,
    a sheet read before in the same world is taken from it (`PageCache.get_resolved`); each
    sheet is read in the world on its own, so the others are read together as before."""
    sheets = resolve_sheet_numbers(sheets)
    entries = list(register.entries.values())
    if not entries and register.stored is not None:
        store = register.stored.open()
        try:
            town, _, _ = _by_id(store.entries_in_town(case.municipality.town), store.info.path)
        finally:
            store.close()
        entries = list(town.values())
    if cache is None:
        return resolve_sheets(sheets, case, entries)
    world = world_key(case.model_dump_json(), entries)
    known = [cache.get_resolved(world, sheet) for sheet in sheets]
    todo = [sheet for sheet, hit in zip(sheets, known, strict=True) if hit is None]
    fresh = iter(resolve_sheets(todo, case, entries))
    out = []
    for sheet, hit in zip(sheets, known, strict=True):
        if hit is None:
            hit = next(fresh)
            try:
                cache.put_resolved(world, sheet, hit)
            except OSError as err:  # a full or read-only cache folder costs a re-read, no more
                log.warning("sheet %s: closed-world reading not cached (%s)", sheet.page.path, err)
        out.append(hit)
    return out


def match_signers(
    case: CaseConfig,
    sheets: Sequence[Sheet],
    errors: Sequence[FileError],
    register: RegisterData,
    decisions: Sequence[ReviewDecision],
    inputs: Mapping[str, str],
    progress: Progress | None = None,
) -> JudgingInputs:
    """Every signed line (as the reviewers corrected it) matched to the register, the people
    the petition names looked up, and the register entries the judge may look at."""
    in_force = latest_decisions(decisions)
    corrected = apply_corrections(sheets, in_force)
    store = register.stored.open() if register.stored is not None else None
    try:
        matcher = make_matcher(register, case, store)
        matches = match_lines(corrected, matcher, progress)

        def entries(found: Iterable[Match]) -> Mapping[str, RegisterEntry]:
            """The entries the judge may look at: every matched or chosen voter, and those a
            line may be one of (`Match.one_of`, an unsure name's voters: `judge._name_voters`)."""
            ids = {v for m in found for v in (m.voter_id, *m.one_of) if v}
            ids |= {d.voter_id for d in in_force.values() if d.voter_id}
            ids |= {v for s in corrected for line in s.filled_lines for v in name_voters(line)}
            if store is None:
                return {i: register.entries[i] for i in ids if i in register.entries}
            return store.get(sorted(ids))

        return JudgingInputs(
            case,
            tuple(sheets),
            tuple(errors),
            matches,
            {line.line_id: matched_on(line) for s in corrected for line in s.filled_lines},
            entries(matches.values()),
            register.electors,
            holdings=tuple(register.holdings),
            petition_findings=(
                *register.findings,
                *people_named_in_the_petition(case, matcher, entries),
            ),
            inputs=dict(inputs),
            corrected=frozenset(i for i, d in in_force.items() if d.corrections),
            doubt=register.doubt,
        )
    finally:
        if store is not None:
            store.close()


def judge(
    judging: JudgingInputs, decisions: Sequence[ReviewDecision], keep_in: Path | None = None
) -> SufficiencyReport:
    """The statute's rules over the matched lines, and the verdict. With `keep_in` (the
    report's folder) the judging inputs are kept there for the review dashboard."""
    if keep_in is not None:
        save_judging(judging, keep_in)
    return judge_inputs(judging, decisions, rules_for(judging.case))


class Executor(Protocol):
    """How the stages run (OCRmyPDF's shape: one pipeline, several executors): in this process
    (`InProcess`: the builtin `map` or a process pool's), or as Prefect tasks on the flow's
    task runner (threads or Dask workers: `flows.check`). `check_case` is the one list of
    stages; an executor only decides where each runs."""

    def stage(self, name: str, fn: Callable[..., T], /, *args: Any) -> T:
        """`fn(*args)`: the stage called `name`."""
        ...

    def map(self, name: str, fn: Callable[[A], T], items: Sequence[A]) -> Iterable[T]:
        """`fn` over `items` (files, pages), in filing order, in parallel where it can."""
        ...


@dataclass(frozen=True, slots=True)
class InProcess:
    """The stages called in this process, in order; per-file and per-page work through
    `mapper` (the builtin `map`, or a process pool's)."""

    mapper: Mapper = map

    def stage(self, name: str, fn: Callable[..., T], /, *args: Any) -> T:
        with stage(name):
            return fn(*args)

    def map(self, name: str, fn: Callable[[A], T], items: Sequence[A]) -> Iterator[T]:
        with stage(name):
            yield from self.mapper(fn, items)


class Stage(StrEnum):
    """The stages of a check, in order; each name is how a stage is known everywhere (the
    internal-error message, the flow's task, its runs in Prefect's UI)."""

    FIND = "finding the sheet files"
    REGISTER = "reading the register"
    OPEN = "opening the sheet files"
    READ = "reading the pages"
    CLOSED_WORLD = "reading in the closed world"
    MATCH = "matching"
    JUDGE = "judging"
    WRITE = "writing the report"


def finish(
    case: CaseConfig,
    sheets: Sequence[Sheet],
    errors: Sequence[FileError],
    register: RegisterData,
    decisions: Sequence[ReviewDecision],
    inputs: Mapping[str, str],
    keep_in: Path | None = None,
    progress: Progress | None = None,
    executor: Executor | None = None,
    cache: PageCache | None = None,
) -> SufficiencyReport:
    """Everything after the pages are read: the closed world's reading, matching (a
    reviewer's correction still wins over the closed world), judging. With `keep_in` (the
    report's folder) the judging inputs are kept there for the review dashboard."""
    ex = executor or InProcess()
    sheets = ex.stage(Stage.CLOSED_WORLD, read_in_closed_world, case, sheets, register, cache)
    judging = ex.stage(
        Stage.MATCH, match_signers, case, sheets, errors, register, decisions, inputs, progress
    )
    return ex.stage(Stage.JUDGE, judge, judging, decisions, keep_in)


def read_context_for(case: CaseConfig, context: ReadContext | None = None) -> ReadContext:
    """The reading context for the case's sheets: the one given (`ReadContext()` if none),
    its statements joined by any wording the case's petition kind brings of its own
    (`KindSpec.statements`), so that its sheets' statements are read; the statutes' own stay,
    so that a sheet carrying another kind's statement is still read as carrying it."""
    context = context or ReadContext()
    own = tuple(s for s in case.spec.statements if s not in context.statements)
    return replace(context, statements=context.statements + own) if own else context


def check_case(
    case: CaseConfig,
    decisions: Sequence[ReviewDecision] = (),
    mapper: Mapper = map,
    context: ReadContext | None = None,
    keep_in: Path | None = None,
    cache: PageCache | None = None,
    progress: Progress | None = None,
    executor: Executor | None = None,
    write: bool = False,
) -> SufficiencyReport:
    """The stages in order, one case from its file to its report: the one orchestrator, for
    the local engine and the flow alike. `executor` runs each stage (`InProcess(mapper)` by
    default: per-file and per-page work through `mapper`, the builtin `map` or a process
    pool's); scans are read with the context's engine, their lines' crops written to its
    `crops_dir`; pages already read are taken from `cache` (`page_cache(case)`; None: every
    page is read); the judging inputs are kept in `keep_in` (`judge`) and, with `write`, the
    report is written there too."""
    ex = executor or InProcess(mapper)
    files, errors = ex.stage(Stage.FIND, discover, case.sheets)
    # before reading: a missing register stops the run early
    register = ex.stage(Stage.REGISTER, load_register, case)
    hashes = file_hashes(files)  # once a run: the page cache's key, and the report's record
    opened = open_files(files, hashes, case.limits, partial(ex.map, Stage.OPEN), cache)
    pages, page_errors = collect_pages(zip(files, opened, strict=True), case.limits)
    context = read_context_for(case, context)
    read = read_sheets(pages, partial(ex.map, Stage.READ), context, cache, progress)
    report = finish(
        case,
        read.sheets,
        errors + page_errors + read.errors,
        register,
        decisions,
        input_hashes(case, files, hashes),
        keep_in,
        progress,
        ex,
        cache,
    )
    if write:
        if keep_in is None:
            raise ValueError("check_case(write=True) needs the report's folder (keep_in)")
        ex.stage(Stage.WRITE, write_report, report, keep_in)
    return report
