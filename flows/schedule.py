"""Scheduled checks through a filing window: a Prefect deployment of `check_petition` that runs
every N minutes from the window's first day to its last, on the case's sheets folder as sheets
arrive, and (`upload=True`) on each `petition.sheets.uploaded` event of the case
(`flows.events`). Schedules and triggers fire only against a running Prefect server (`petitions
serve` starts one); building the deployment needs none.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from dateutil.rrule import rrulestr
from prefect.deployments.runner import RunnerDeployment
from prefect.schedules import RRule

from pipeline.case import CaseConfig, load_case

from .check import check_petition
from .events import deployment_name, upload_trigger

__all__ = ["filing_window", "filing_window_deployment", "next_runs"]


def filing_window(case: CaseConfig) -> tuple[dt.date, dt.date]:
    """The days a scheduled check runs: the kind's window (`KindSpec.filing_window`). For 9-902,
    the thirty days after adoption (9-902(1)), through the next business day when the thirtieth
    is a Saturday, Sunday or public holiday (General Construction Law § 25-a; the case's extra
    holidays included). Otherwise from the case's first day of signing (dates.signing_from;
    else thirty days before the filing) to the filing: no statutory period, nothing to extend."""
    return case.spec.filing_window(case)


def next_runs(
    deployment: RunnerDeployment, after: dt.datetime, count: int = 3
) -> list[dt.datetime]:
    """The deployment's next scheduled runs after `after` (naive: the server's local time)."""
    runs: list[dt.datetime] = []
    for sched in deployment.schedules or []:
        text = getattr(sched.schedule, "rrule", None)
        if not text:
            continue
        rule = rrulestr(text)
        t = after
        while len(runs) < count and (t := rule.after(t)) is not None:
            runs.append(t)
    return sorted(runs)[:count]


def filing_window_deployment(
    case_path: str | Path, out_dir: str | Path, every_minutes: int = 60, upload: bool = False
) -> RunnerDeployment:
    """A deployment that checks the case every `every_minutes` through its filing window (the
    last run on the window's last day, 23:59 local time of the server), and with `upload` on
    each upload event of the case as well."""
    if every_minutes < 1:
        raise ValueError("every_minutes must be at least 1")
    case = load_case(case_path)
    start, end = filing_window(case)
    rrule = (
        f"DTSTART:{start:%Y%m%d}T000000\n"
        f"RRULE:FREQ=MINUTELY;INTERVAL={every_minutes};UNTIL={end:%Y%m%d}T235900"
    )
    deployment = check_petition.to_deployment(
        name=deployment_name(case_path),
        schedule=RRule(rrule),
        parameters={
            "case_path": str(Path(case_path).resolve()),
            "out_dir": str(Path(out_dir).resolve()),
        },
        description=(
            f"{case.name}: checked every {every_minutes} min from {start} to {end}"
            + (", and on each upload" if upload else "")
        ),
        tags=["filing-window", str(case.kind)] + (["upload"] if upload else []),
        triggers=[upload_trigger(case_path)] if upload else None,
    )
    assert isinstance(deployment, RunnerDeployment)  # to_deployment is sync outside a loop
    return deployment
