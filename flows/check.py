"""The Prefect flow: one petition checked end to end.

The flow is `pipeline.run.check_case`, the one list of stages, with an executor that runs each
stage as a Prefect task named after it (`run.Stage`): pages read in parallel, one task each, on
the flow's task runner (threads by default, Dask workers with `flows.runners.dask_runner`;
text layers on threads in one task, `_in_one_task`);
pages the case's page cache already holds are not read again (`pipeline.cache`); the register
loaded once and every line matched in one task. Retries only on the tasks that do file I/O.
Configuration arrives as flow parameters (the case file's path), so a deployment runs the same
flow on each upload or on a schedule through a filing window.

Each run is named after its case, and publishes its verdict, totals and lines in review as
artifacts: a table, and a link to the report.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from prefect import Flow, task, unmapped
from prefect.artifacts import create_link_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.context import FlowRunContext
from prefect.runtime import flow_run, task_run
from prefect.settings import get_current_settings
from prefect.task_runners import ThreadPoolTaskRunner
from prefect.utilities.annotations import quote

from pipeline import run
from pipeline.case import load_case
from pipeline.decisions import load_decisions
from pipeline.errors import PetitionError
from pipeline.records import PageKind, PageRef, SufficiencyReport
from pipeline.run import Stage
from pipeline.scan.context import ReadContext

__all__ = ["artifact_key", "check", "check_petition", "summary_rows"]


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


def _case_run_name() -> str:
    """The flow run's name: the case's own name (its file's folder when it cannot be read)."""
    path = Path(flow_run.parameters["case_path"])
    try:
        return load_case(path).name
    except PetitionError:
        return path.resolve().parent.name or path.stem


def _page_run_name() -> str:
    ref = task_run.parameters["item"]
    if isinstance(ref, PageRef):
        return f"read {Path(ref.path).name} p{ref.page_index + 1}"
    return f"{task_run.task_name} {ref}"


def _call(fn: Callable[..., Any], args: tuple) -> Any:
    return fn(*args)


def _each(fn: Callable[[Any], Any], item: Any) -> Any:
    return fn(item)


def _all(fn: Callable[[Any], Any], items: list) -> list:
    return [fn(item) for item in items]


# Records are small and inputs change every run: caching by input hash would cost more than it
# saves, so tasks do not cache (a page's reading is remembered by `pipeline.cache` instead).
def _stage_task(fn: Callable[..., Any], name: str, io: bool) -> Any:
    """The task of one stage; with `io` (it reads or writes files), retried when the error
    may pass (`_transient`)."""
    return task(
        name=name,
        cache_policy=NO_CACHE,
        retries=2 if io else 0,
        retry_delay_seconds=1,
        retry_condition_fn=_transient if io else None,
    )(fn)


_STAGE_TASKS: dict[str, Any] = {
    name: _stage_task(_call, name, io)
    for name, io in (
        (Stage.REGISTER, True),
        (Stage.CLOSED_WORLD, False),
        (Stage.MATCH, False),
        (Stage.JUDGE, False),
        (Stage.WRITE, True),
    )
}
_OPEN_TASK = _stage_task(_all, Stage.OPEN, io=True)
_READ_TASK = _stage_task(_each, Stage.READ, io=True).with_options(task_run_name=_page_run_name)
_READ_ALL_TASK = _stage_task(_all, Stage.READ, io=True)


def _in_one_task(pages: Sequence[PageRef]) -> bool:
    """Whether the pages are read in one task rather than one each: text layers on the flow's
    threads. Reading them is Python holding the interpreter lock, so threads would only take
    turns, and a task each costs more than it could save. Scans (OCR lets go of the lock) and
    pages on Dask's worker processes are read in parallel, a task each."""
    context = FlowRunContext.get()
    on_threads = context is not None and isinstance(context.task_runner, ThreadPoolTaskRunner)
    return on_threads and all(page.kind is PageKind.PDF_TEXT for page in pages)


class _Tasks:
    """`run.check_case`'s executor in the flow. Each stage is a task named after it (finding
    the sheet files, a directory listing, runs in the flow itself); the files are opened in
    one task; each page is read in a task of its own, in parallel on the flow's task runner
    (text layers on threads: all in one, `_in_one_task`).
    Arguments are passed quoted: Prefect does not walk the records looking for futures
    (walking every line, field and register entry cost more than the rest of the flow)."""

    def stage(self, name: str, fn: Callable[..., Any], /, *args: Any) -> Any:
        if name not in _STAGE_TASKS:
            return fn(*args)
        return _STAGE_TASKS[name](quote(fn), quote(args))

    def map(self, name: str, fn: Callable[[Any], Any], items: Sequence[Any]) -> list:
        if name == Stage.READ and not _in_one_task(items):
            return _READ_TASK.map(unmapped(fn), list(items)).result()
        return (_READ_ALL_TASK if name == Stage.READ else _OPEN_TASK)(quote(fn), quote(list(items)))


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
        {"item": "required", "value": "a share of valuation" if t.required is None else t.required},
        {"item": "files or pages not read", "value": len(report.file_errors)},
    ]


def _publish(case_path: str, report: SufficiencyReport, html: Path) -> None:
    key = artifact_key(case_path)
    t = report.totals
    create_table_artifact(
        key=key,
        table=summary_rows(report),
        description=(
            f"{report.case_name}: {report.verdict.value.upper()}, {t.valid} valid of "
            f"{'a share of valuation' if t.required is None else t.required} required, "
            f"{t.needs_review} in review"
        ),
    )
    create_link_artifact(
        key=f"{key}-report",
        link=html.resolve().as_uri(),
        link_text=f"{report.case_name}: the report",
        description=f"The sufficiency report ({report.verdict.value})",
    )


class _CheckFlow(Flow):
    """The check flow. Its parameters are paths, a flag or None, stored on the server as they
    are: Prefect's own encoder for them is FastAPI's, whose import alone cost a tenth of a
    CPU-second of every run."""

    def serialize_parameters(self, parameters: dict[str, Any]) -> dict[str, Any]:
        if all(v is None or isinstance(v, str | bool | int | float) for v in parameters.values()):
            return dict(parameters)
        return super().serialize_parameters(parameters)

    def with_options(self, **options: Any) -> _CheckFlow:
        changed = super().with_options(**options)
        changed.__class__ = _CheckFlow  # Prefect's copy is a plain Flow
        return cast(_CheckFlow, changed)


def _check_flow(fn: Callable[..., SufficiencyReport]) -> Flow[..., SufficiencyReport]:
    """`fn` as the check flow. Its value (the report) is not persisted: the report's files are;
    its result storage is named (Prefect's own default) so that a run does not ask the server
    for a default of its own, three requests a run. A deployment finds the flow by the
    function's name (`flows/check.py:check_petition`), so the flow keeps it."""
    return _CheckFlow(
        fn,
        name="check-petition",
        flow_run_name=_case_run_name,
        task_runner=ThreadPoolTaskRunner(max_workers=4),  # type: ignore[arg-type]
        log_prints=False,
        persist_result=False,
        result_storage=get_current_settings().results.local_storage_path,
    )


@_check_flow
def check_petition(
    case_path: str, out_dir: str, decisions_path: str | None = None, use_cache: bool = True
) -> SufficiencyReport:
    """Check one petition and write report.json, lines.csv, report.html and objections.csv into
    out_dir, with the crops of scanned lines in out_dir/crops. `use_cache`: take the pages
    already read from the case's page cache (and store the others there)."""
    case = load_case(case_path)
    decisions = load_decisions(Path(decisions_path)) if decisions_path else []
    out = Path(out_dir)
    report = run.check_case(
        case,
        decisions,
        context=ReadContext(crops_dir=out / "crops"),  # each thread its own tesseract
        keep_in=out,
        cache=run.page_cache(case) if use_cache else None,
        executor=_Tasks(),
        write=True,
    )
    _publish(case_path, report, out / "report.html")
    return report


def check(
    case_path: Path,
    out_dir: Path,
    decisions_path: Path | None = None,
    use_cache: bool = True,
    task_runner: Any = None,
) -> SufficiencyReport:
    """`petitions check` through the flow, on `task_runner` (the flow's threads when None).
    The run sends no heartbeats: they are for an automation on the server to notice a run
    that died, which a person at the terminal sees for themselves, and Prefect's stopping
    their thread costs up to a second at the end of every run (served runs keep them)."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    fn = (
        check_petition
        if task_runner is None
        else check_petition.with_options(task_runner=task_runner)
    )
    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        return fn(
            str(case_path), str(out_dir), str(decisions_path) if decisions_path else None, use_cache
        )
