"""The custom event a case's upload deployment is triggered by: `petition.sheets.uploaded`,
its resource the case. Whatever receives sheets (the inbox watcher, the dashboard's upload)
puts the files into the case's sheets folder (`flows.inbox.accept_sheet`) and then emits it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "SHEETS_UPLOADED",
    "case_resource",
    "deployment_name",
    "emit_sheets_uploaded",
    "upload_trigger",
]

SHEETS_UPLOADED = "petition.sheets.uploaded"


def case_resource(case_path: str | Path) -> dict[str, str]:
    """The event's resource: one case, named by its case file's resolved path."""
    path = Path(case_path).resolve()
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:16]
    return {
        "prefect.resource.id": f"petition.case.{digest}",
        "prefect.resource.name": path.parent.name,
        "petition.case.path": str(path),
    }


def deployment_name(case_path: str | Path) -> str:
    """The name of the case's deployment (flows.schedule), by which the dashboard finds it."""
    return f"filing-window-{Path(case_path).resolve().parent.name or 'case'}"


def emit_sheets_uploaded(case_path: str | Path, files: Sequence[str | Path]) -> bool:
    """Tell the Prefect server that `files` were added to the case's sheets: its upload
    deployment runs a check. True when the event was queued for sending (Prefect's events
    worker sends it in the background, and before the process exits); False when no server is
    configured to send it to."""
    from prefect.events import emit_event

    event = emit_event(
        event=SHEETS_UPLOADED,
        resource=case_resource(case_path),
        payload={"files": [str(Path(f).resolve()) for f in files]},
    )
    return event is not None


def upload_trigger(case_path: str | Path):
    """The deployment trigger: a run for each upload event of this case."""
    from prefect.events import DeploymentEventTrigger

    return DeploymentEventTrigger(
        name=f"sheets uploaded: {Path(case_path).resolve().parent.name}",
        expect={SHEETS_UPLOADED},
        match={"prefect.resource.id": case_resource(case_path)["prefect.resource.id"]},
    )
