"""`petitions serve` against a real Prefect server it starts (`prefect server start`): a sheet
dropped into the case's inbox starts a flow run through the upload trigger and the report then
includes it; the same sheet again is read once and reported as a copy; the run is named after
the case and publishes its artifacts; a sheet uploaded in the review dashboard it starts emits
the event too, and the dashboard shows the triggered run's report; Ctrl-C stops the command and
its servers. On the bundled synthetic case. Slow (a server starts): CI runs it in its own step
(`-m ops`)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.ops]

PETITIONS = Path(sys.executable).with_name("petitions")


def _wait(what: str, ok, timeout: float = 180.0, proc: subprocess.Popen | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = ok()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"petitions serve exited ({proc.returncode}) waiting for {what}")
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def _report(out: Path) -> dict | None:
    try:
        return json.loads((out / "report.json").read_text())
    except (OSError, ValueError):
        return None


def _post(api: str, path: str, body: dict) -> list[dict]:
    req = urllib.request.Request(
        f"{api}{path}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    return env | {
        "PREFECT_HOME": str(tmp_path / "prefect-home"),
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",
        "PREFECT_LOGGING_LEVEL": "WARNING",
    }


def _stop(proc: subprocess.Popen, log: Path) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert code == 0, log.read_text()[-2000:]
    assert "stopped" in log.read_text()


def test_a_sheet_dropped_in_the_inbox_is_checked_through_the_trigger(demo_case, tmp_path):
    case_dir = demo_case.parent
    shutil.rmtree(case_dir / ".petitions-cache", ignore_errors=True)
    later = tmp_path / "sheet-04.pdf"
    shutil.move(case_dir / "sheets" / "sheet-04.pdf", later)
    out = tmp_path / "out"
    env = _env(tmp_path)
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [str(PETITIONS), "serve", str(demo_case), "--out", str(out), "--every", "30"]
            + ["--no-dashboard"],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        text = _wait("the addresses", lambda: "Ctrl-C to stop" in log.read_text(), proc=proc)
        lines = log.read_text().splitlines()
        api = next(ln.split()[-1] for ln in lines if ln.startswith("Prefect API:"))
        assert any(ln.startswith("next runs:") for ln in lines), text
        inbox = case_dir / "inbox"
        assert inbox.is_dir()

        shutil.copy(later, inbox / "sheet-04.pdf")
        doc = _wait("the report with the new sheet", lambda: _report(out), proc=proc)
        assert not (inbox / "sheet-04.pdf").exists()
        assert (case_dir / "sheets" / "sheet-04.pdf").is_file()
        files = {s["file"] for s in doc["sheets"]}
        assert any(f.endswith("sheet-04.pdf") for f in files)
        assert doc["totals"]["lines_read"] == 60 and not doc["file_errors"]

        # the same sheet uploaded again: read once, reported as a copy
        (out / "report.json").unlink()
        shutil.copy(later, inbox / "sheet-04.pdf")
        doc = _wait("the report after the copy", lambda: _report(out), proc=proc)
        assert doc["totals"]["lines_read"] == 60
        (copy,) = doc["file_errors"]
        assert copy["path"].endswith("sheet-04~2.pdf") and "identical" in copy["problem"]

        runs = _post(api, "/flow_runs/filter", {"sort": "START_TIME_DESC", "limit": 5})
        assert runs and all(r["name"].startswith("Village of Elmwood Falls") for r in runs)
        assert all(r["deployment_id"] for r in runs)
        artifacts = _post(api, "/artifacts/latest/filter", {"limit": 10})
        kinds = {a["type"] for a in artifacts}
        assert {"table", "markdown"} <= kinds  # the summary table, the link to the report
        table = next(a for a in artifacts if a["type"] == "table")
        assert "in review" in json.dumps(table["data"])
    finally:
        _stop(proc, log)
    with pytest.raises(OSError):
        urllib.request.urlopen(f"{api}/health", timeout=2)


def test_a_sheet_uploaded_in_the_dashboard_is_checked_through_the_trigger(demo_case, tmp_path):
    """`serve` starts the dashboard over the case, its report folder the deployment's: an
    upload there emits the event, the trigger runs the flow, and the dashboard shows its report
    (a real HTTP client against the real servers)."""
    import httpx

    from dashboard.accounts import Accounts, Role

    from .dashboard_fixtures import FAST_HASH, PASSWORD, csrf_of

    case_dir = demo_case.parent
    shutil.rmtree(case_dir / ".petitions-cache", ignore_errors=True)
    later = tmp_path / "sheet-04.pdf"
    shutil.move(case_dir / "sheets" / "sheet-04.pdf", later)
    users = tmp_path / "users.sqlite"
    Accounts(users, FAST_HASH).add("sam", Role.SUPERVISOR, PASSWORD)
    out, log = tmp_path / "out", tmp_path / "serve.log"
    cmd = [str(PETITIONS), "serve", str(demo_case), "--out", str(out), "--every", "30"]
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            cmd + ["--users", str(users), "--dashboard-port", "0"],
            env=_env(tmp_path),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait("the addresses", lambda: "Ctrl-C to stop" in log.read_text(), proc=proc)
        lines = log.read_text().splitlines()
        api = next(ln.split()[-1] for ln in lines if ln.startswith("Prefect API:"))
        site = next(ln.split()[-1] for ln in lines if ln.startswith("dashboard:"))
        web = httpx.Client(base_url=site, timeout=30, follow_redirects=True)
        token = csrf_of(web.get("/login").text)
        r = web.post("/login", data={"name": "sam", "password": PASSWORD, "csrf": token})
        token = csrf_of(r.text)
        assert web.get("/c/demo/status").text == "new"  # nothing checked yet

        sheet = ("sheet-04.pdf", later.read_bytes(), "application/pdf")
        r = web.post("/c/demo/upload", data={"csrf": token}, files={"sheets": sheet})
        assert r.status_code == 200 and "-sheet-04.pdf" in r.text
        doc = _wait("the report with the uploaded sheet", lambda: _report(out), proc=proc)
        assert any(s["file"].endswith("-sheet-04.pdf") for s in doc["sheets"])
        assert doc["totals"]["lines_read"] == 60
        _wait("the dashboard's review", lambda: web.get("/c/demo/status").text == "ready")
        assert 'id="verdict"' in web.get("/c/demo/queue").text
        runs = _post(api, "/flow_runs/filter", {"sort": "START_TIME_DESC", "limit": 5})
        assert len(runs) == 1 and runs[0]["deployment_id"]  # the trigger's run
    finally:
        _stop(proc, log)
    with pytest.raises(httpx.HTTPError):
        httpx.get(site, timeout=2)
