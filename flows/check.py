"""The Prefect flow: one petition checked end to end.

A short flow calling thin tasks, each wrapping one plain stage function from `pipeline`. Pages are
read in parallel (`.map`). Retries only on the tasks that do file I/O. Configuration arrives as
flow parameters (the case file's path), so a deployment can run the same flow on each upload or
on a schedule through a filing window.

Runs offline with no server configured: Prefect starts a temporary local API for the run.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, task, unmapped
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import ThreadPoolTaskRunner

from pipeline import run
from pipeline.case import CaseConfig, LimitsConfig, load_case
from pipeline.decisions import load_decisions
from pipeline.errors import PetitionError
from pipeline.ingest import discover
from pipeline.records import FileError, PageRef, ReviewDecision, Sheet, SufficiencyReport
from pipeline.report import write_report
from pipeline.scan.context import ReadContext

__all__ = ["check_petition"]


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


# Records are small and inputs change every run: caching by input hash would cost more than it
# saves, so tasks do not cache.
_task = task(cache_policy=NO_CACHE)
_io_task = task(
    cache_policy=NO_CACHE, retries=2, retry_delay_seconds=1, retry_condition_fn=_transient
)


@_io_task
def ingest_file(path: Path, limits: LimitsConfig | None = None) -> list[PageRef] | FileError:
    return run.ingest_one(path, limits)


@_io_task
def read_page(ref: PageRef, context: ReadContext) -> Sheet | FileError:
    return run.read_one(ref, context)


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


@flow(
    name="check-petition",
    task_runner=ThreadPoolTaskRunner(max_workers=4),  # type: ignore[arg-type]
    log_prints=False,
)
def check_petition(
    case_path: str, out_dir: str, decisions_path: str | None = None
) -> SufficiencyReport:
    """Check one petition and write report.json, lines.csv, report.html and objections.csv into
    out_dir, with the crops of scanned lines in out_dir/crops."""
    case = load_case(case_path)
    decisions = load_decisions(Path(decisions_path)) if decisions_path else []
    files, errors = discover(case.sheets)
    register = load_register.submit(case)
    ingested = ingest_file.map(files, limits=unmapped(case.limits)).result()
    pages, page_errors = run.collect_pages(zip(files, ingested, strict=True), case.limits)
    context = ReadContext(crops_dir=Path(out_dir) / "crops")  # each thread its own tesseract
    sheets, read_errors = run.split_results(
        read_page.map(pages, context=unmapped(context)).result()
    )
    report = match_and_judge(
        case,
        sheets,
        errors + page_errors + read_errors,
        register.result(),
        decisions,
        run.input_hashes(case, files),
        Path(out_dir),
    )
    write(report, Path(out_dir))
    return report
