"""The Prefect flow: one petition checked end to end.

A short flow calling thin tasks, each wrapping one plain stage function from `pipeline`. Pages are
read in parallel (`.map`, on the flow's task runner: threads by default, Dask workers with
`flows.runners.dask_runner`); pages the case's page cache already holds are not read again
(`pipeline.cache`). The register is loaded once and every line matched in one task. Retries only
on the tasks that do file I/O. Configuration arrives as flow parameters (the case file's path),
so a deployment runs the same flow on each upload or on a schedule through a filing window.

Each run is named after its case, and publishes its verdict, totals and lines in review as
artifacts: a table, and a link to the report.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from prefect import flow, task, unmapped
from prefect.artifacts import create_link_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run, task_run
from prefect.task_runners import ThreadPoolTaskRunner
from prefect.utilities.annotations import quote

from pipeline import run
from pipeline.cache import PageCache
from pipeline.case import CaseConfig, LimitsConfig, load_case
from pipeline.decisions import load_decisions
from pipeline.errors import PetitionError
from pipeline.ingest import discover
from pipeline.records import FileError, PageRef, ReviewDecision, Sheet, SufficiencyReport
from pipeline.report import write_report
from pipeline.scan.context import ReadContext

__all__ = ["artifact_key", "check_petition", "summary_rows"]


def _transient(task, task_run, state) -> bool:
    """Retry only what may pass on a second try: an OS-level I/O error. A file that is not what
    it claims to be (a PetitionError) fails the same way every time."""
    try:
        state.result()
    except PetitionError:
        return False
    except OSError:
        return True
    except Exception:
        return False
    return False


def _page_run_name() -> str:
    ref = task_run.parameters["ref"]
    return f"read {Path(ref.path).name} p{ref.page_index + 1}"


def _case_run_name() -> str:
    """The flow run's name: the case's own name (its file's folder when it cannot be read)."""
    path = Path(flow_run.parameters["case_path"])
    try:
        return load_case(path).name
    except PetitionError:
        return path.resolve().parent.name or path.stem


# Records are small and inputs change every run: caching by input hash would cost more than it
# saves, so tasks do not cache (a page's reading is remembered by `pipeline.cache` instead).
_task = task(cache_policy=NO_CACHE)
_io_task = task(
    cache_policy=NO_CACHE, retries=2, retry_delay_seconds=1, retry_condition_fn=_transient
)


@_io_task
def ingest(
    files: list[Path], limits: LimitsConfig | None = None, cache: PageCache | None = None
) -> tuple[list[PageRef], list[FileError]]:
    """Every file's pages, under the case's limits (files ingested before come from the
    cache: one task for all)."""
    pages = (run.ingest_one(path, limits, cache) for path in files)
    return run.collect_pages(zip(files, pages, strict=True), limits)


@task(
    cache_policy=NO_CACHE,
    retries=2,
    retry_delay_seconds=1,
    retry_condition_fn=_transient,
    task_run_name=_page_run_name,
)
def read_page(read: Callable[[PageRef], Sheet | FileError], ref: PageRef) -> Sheet | FileError:
    """One page read (and its reading stored) by `read`, `pipeline.run.read_and_store`."""
    return read(ref)


def _map_pages(read: Callable[[PageRef], Sheet | FileError], refs: Iterable[PageRef]):
    return read_page.map(unmapped(read), list(refs)).result()


@_io_task
def load_register(case: CaseConfig) -> run.RegisterData:
    return run.load_register(case)


@_task
def match_and_judge(
    case: CaseConfig,
    sheets: list[Sheet],
    errors: list[FileError],
    register: run.RegisterData,
    decisions: list[ReviewDecision],
    inputs: dict[str, str],
    keep_in: Path | None = None,
) -> SufficiencyReport:
    return run.finish(case, sheets, errors, register, decisions, inputs, keep_in)


@_io_task
def write(report: SufficiencyReport, out_dir: Path) -> dict[str, Path]:
    return write_report(report, out_dir)


def artifact_key(case_path: str | Path) -> str:
    """A Prefect artifact key for the case (lowercase letters, digits and dashes), the same on
    every run so the artifact's versions line up."""
    path = Path(case_path).resolve()
    slug = re.sub(r"[^a-z0-9]+", "-", path.parent.name.lower()).strip("-") or "case"
    return f"petition-{slug}-{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"


def summary_rows(report: SufficiencyReport) -> list[dict[str, str | int]]:
    """The verdict and the totals, one row each, as the artifact's table shows them."""
    t = report.totals
    return [
        {"item": "verdict", "value": report.verdict.value},
        {"item": "reason", "value": report.verdict_reason},
        {"item": "lines read", "value": t.lines_read},
        {"item": "valid", "value": t.valid},
        {"item": "invalid", "value": t.invalid},
        {"item": "in review", "value": t.needs_review},
        {"item": "blank", "value": t.blank},
        {"item": "required", "value": t.required},
        {"item": "files or pages not read", "value": len(report.file_errors)},
    ]


def _publish(case_path: str, report: SufficiencyReport, paths: dict[str, Path]) -> None:
    key = artifact_key(case_path)
    t = report.totals
    create_table_artifact(
        key=key,
        table=summary_rows(report),
        description=(
            f"{report.case_name}: {report.verdict.value.upper()}, {t.valid} valid of "
            f"{t.required} required, {t.needs_review} in review"
        ),
    )
    html = paths.get("html") or next(iter(paths.values()), None)
    if html is not None:
        create_link_artifact(
            key=f"{key}-report",
            link=Path(html).resolve().as_uri(),
            link_text=f"{report.case_name}: the report",
            description=f"The sufficiency report ({report.verdict.value})",
        )


@flow(
    name="check-petition",
    flow_run_name=_case_run_name,
    task_runner=ThreadPoolTaskRunner(max_workers=4),  # type: ignore[arg-type]
    log_prints=False,
)
def check_petition(
    case_path: str, out_dir: str, decisions_path: str | None = None, use_cache: bool = True
) -> SufficiencyReport:
    """Check one petition and write report.json, lines.csv, report.html and objections.csv into
    out_dir, with the crops of scanned lines in out_dir/crops. `use_cache`: take the pages
    already read from the case's page cache (and store the others there)."""
    case = load_case(case_path)
    decisions = load_decisions(Path(decisions_path)) if decisions_path else []
    files, errors = discover(case.sheets)
    register = load_register.submit(case)
    cache = run.page_cache(case) if use_cache else None
    pages, page_errors = ingest(files, case.limits, cache)
    context = ReadContext(crops_dir=Path(out_dir) / "crops")  # each thread its own tesseract
    read = run.read_sheets(pages, _map_pages, context, cache)
    # Records are passed quoted: Prefect does not walk them looking for futures (walking every
    # line, field and register entry cost more than the rest of the flow's overhead).
    report = match_and_judge(  # type: ignore[call-overload]
        quote(case),
        quote(read.sheets),
        quote(errors + page_errors + read.errors),
        quote(register.result()),
        quote(decisions),
        run.input_hashes(case, files),
        Path(out_dir),
    )
    paths = write(quote(report), Path(out_dir))  # type: ignore[call-overload]
    _publish(case_path, report, paths)
    return report
