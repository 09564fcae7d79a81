"""`petitions serve`: the local stack for one case.

Connects to the configured Prefect server (`PREFECT_API_URL`) or starts one on this machine,
serves the case's check deployment (the filing-window schedule, and a trigger on the case's
`petition.sheets.uploaded` event), watches the case's inbox folder (a sheet dropped there is
moved into the case's sheets and the event emitted), serves the review dashboard over the case
with its report folder the deployment's (a sheet uploaded there emits the event too), prints
the addresses, and stops cleanly on Ctrl-C (the servers it started are stopped too).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .server import configured_api_url, local_server

__all__ = ["DashboardOptions", "serve_case"]


@dataclass(frozen=True, slots=True)
class DashboardOptions:
    """The review dashboard `serve` starts: its accounts file, address and audit store."""

    users: Path
    port: int = 8000
    store_url: str | None = None
    host: str = "127.0.0.1"


def serve_case(
    case_path: Path,
    out_dir: Path,
    every_minutes: int = 60,
    inbox: Path | None = None,
    port: int | None = None,
    say: Callable[[str], object] = print,
    dashboard: DashboardOptions | None = None,
) -> int:
    """Serve the case until stopped (Ctrl-C, or SIGTERM), and its review dashboard unless
    `dashboard` is None. Returns the exit code (0)."""
    from .inbox import InboxWatcher, sheets_folder

    case_path = Path(case_path).resolve()
    folder = sheets_folder(case_path)
    inbox = Path(inbox) if inbox is not None else case_path.parent / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    api = configured_api_url()
    with contextlib.ExitStack() as stack:
        if api is None:
            out_dir.mkdir(parents=True, exist_ok=True)
            say("starting a Prefect server on this machine ...")
            api = stack.enter_context(local_server(port=port, log_path=out_dir / "server.log"))
            say(f"  (its log: {out_dir / 'server.log'})")
        # Before Prefect is imported: the deployment, the runner and the events all use it.
        os.environ["PREFECT_API_URL"] = api
        from prefect.exceptions import TerminationSignal
        from prefect.runner import Runner

        from .events import emit_sheets_uploaded
        from .schedule import next_runs

        deployment = _deployment(case_path, out_dir, every_minutes)
        runner = Runner(pause_on_shutdown=True)
        # Registered (the deployment, its schedule and its trigger) before the inbox is
        # watched: an upload event before the trigger exists would start nothing.
        runner.add_deployment(deployment)
        say(f"Prefect API:   {api}")
        say(f"Prefect UI:    {api.removesuffix('/api')}")
        say(f"deployment:    check-petition/{deployment.name}: {deployment.description}")
        runs = next_runs(deployment, dt.datetime.now())
        say("next runs:     " + (", ".join(f"{t:%Y-%m-%d %H:%M}" for t in runs) or "none left"))
        say(f"inbox:         {inbox}  (sheets dropped here are moved to {folder})")
        say(f"reports:       {out_dir.resolve()}")
        if dashboard is not None:
            say(f"dashboard:     {_start_dashboard(stack, case_path, out_dir, dashboard, say)}")
        say("Ctrl-C to stop")
        watcher = InboxWatcher(inbox, folder, lambda files: emit_sheets_uploaded(case_path, files))
        stack.callback(watcher.stop)
        watcher.start()
        # Ctrl-C stops the runner as Prefect's SIGTERM does (`Runner.handle_sigterm`: runs in
        # flight cancelled, the polling loops ended, `start` returns; a second one exits at
        # once). asyncio's own Ctrl-C cancels the runner's task instead, which its task groups
        # may absorb: a serve that never stopped (tests/test_serve.py, after the flow tests).
        previous = signal.signal(signal.SIGINT, runner.handle_sigterm)
        try:
            with contextlib.suppress(KeyboardInterrupt, TerminationSignal):
                asyncio.run(runner.start())
        finally:
            signal.signal(signal.SIGINT, previous)
        say("stopped")
    return 0


def _start_dashboard(
    stack: contextlib.ExitStack,
    case_path: Path,
    out_dir: Path,
    options: DashboardOptions,
    say: Callable[[str], object],
) -> str:
    """The dashboard over the case folder, its report folder `out_dir`; its uploads emit the
    case's event (PREFECT_API_URL is set by now, and the deployment registered)."""
    from dashboard.server import DashboardServer, open_app

    app = open_app(case_path.parent, options.users, options.store_url, out_dir, say=say)
    server = DashboardServer(app, options.host, options.port)
    address = server.start()
    stack.callback(server.stop)
    return address


def _deployment(case_path: Path, out_dir: Path, every_minutes: int):
    from .schedule import filing_window_deployment

    return filing_window_deployment(case_path, out_dir, every_minutes, upload=True)
