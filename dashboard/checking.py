"""The one place the dashboard runs the pipeline: a case checked after its sheets are uploaded.

Two ways, chosen per check (`checker_for`):

- **Through Prefect**, when a Prefect server is configured (`PREFECT_API_URL`, or the active
  profile) and it holds the case's upload deployment (`petitions serve` registers it): the
  upload emits `petition.sheets.uploaded` (flows.events), the deployment's trigger starts a
  flow run, and the dashboard waits for the report that run writes into the case's report
  folder (the same folder: `petitions serve` starts the dashboard on its `--out`).
- **In this process** otherwise: the plain stages, as `petitions check --engine local`.

Either way the review's decisions stay in the audit store: the dashboard judges the new
reading with them when it reloads (a flow run checks the sheets as read, like a scheduled run).
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline import run
from pipeline.case import load_case
from pipeline.errors import PetitionError
from pipeline.records import ReviewDecision, SufficiencyReport
from pipeline.scan.context import ReadContext

__all__ = [
    "CheckTimeoutError",
    "Emit",
    "EventChecker",
    "check",
    "checker_for",
    "report_stamp",
    "upload_deployment_exists",
]

log = logging.getLogger(__name__)

# (case file, sheet files added) -> whether the event was queued for sending
Emit = Callable[[Path, Sequence[Path]], bool]


def check(
    case_path: Path,
    out_dir: Path,
    decisions: Sequence[ReviewDecision],
    files: Sequence[Path] = (),
) -> SufficiencyReport:
    """Check a case in this process with the review's decisions and write its report and
    judging inputs (plain functions; `files`, the sheets just uploaded, are among its sheets)."""
    case = load_case(case_path)
    context = ReadContext(crops_dir=out_dir / "crops")
    return run.check_case(case, decisions, context=context, keep_in=out_dir, write=True)


def report_stamp(out_dir: Path) -> tuple[int, int] | None:
    """Which report.json is in the folder now (inode and time; None: none): a report is
    replaced by a rename, last of a check's files, never edited in place."""
    try:
        st = (Path(out_dir) / "report.json").stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


class CheckTimeoutError(PetitionError):
    """The upload event was sent, but no check wrote the case's report in time."""


def _emit(case_path: Path, files: Sequence[Path]) -> bool:
    from flows.events import emit_sheets_uploaded

    return emit_sheets_uploaded(case_path, files)


@dataclass(frozen=True, slots=True)
class EventChecker:
    """A check through the case's upload deployment: emit the event, then wait until a report
    newer than the one before is in the report folder (report.json is written last, by a
    rename: once it is new, so are the judging inputs)."""

    api_url: str
    emit: Emit = _emit
    timeout: float = 30 * 60.0
    poll: float = 0.5

    def __call__(
        self,
        case_path: Path,
        out_dir: Path,
        decisions: Sequence[ReviewDecision],
        files: Sequence[Path] = (),
    ) -> None:
        before = report_stamp(out_dir)
        if not self.emit(Path(case_path), list(files)):
            raise CheckTimeoutError(f"the upload event could not be sent to {self.api_url}")
        log.info("upload event sent to %s for %s", self.api_url, case_path)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            now = report_stamp(out_dir)
            if now is not None and now != before:
                return
            time.sleep(self.poll)
        raise CheckTimeoutError(
            f"no check of this case finished within {self.timeout / 60:.0f} min of the upload "
            f"event: see the flow runs at {self.api_url.removesuffix('/api')}"
        )


def upload_deployment_exists(api_url: str, case_path: Path, timeout: float = 5.0) -> bool:
    """Whether the Prefect server at `api_url` holds the case's upload deployment (by its name,
    flows.events.deployment_name). False when the server does not answer."""
    from flows.events import deployment_name

    body = json.dumps({"deployments": {"name": {"any_": [deployment_name(case_path)]}}}).encode()
    req = urllib.request.Request(
        f"{api_url.rstrip('/')}/deployments/filter",
        data=body,
        headers={"content-type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return bool(json.loads(r.read()))
    except (urllib.error.URLError, OSError, ValueError):
        return False


def checker_for(case_path: Path, api_url: str | None) -> Callable[..., object]:
    """Through the deployment when the configured server (`api_url`) holds the case's;
    else in this process."""
    if api_url and upload_deployment_exists(api_url, case_path):
        return EventChecker(api_url)
    if api_url:
        log.info("no upload deployment of %s on %s: checking in this process", case_path, api_url)
    return check
