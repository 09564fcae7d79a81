"""A Prefect server this program starts dies with it, kill -9 included (flows.server).

Fast: a command started through `dies_with_parent` by a process that is then killed. Slow
(`-m ops`): `petitions check --engine prefect` with no server configured, killed once its server
is up: no process it started is left. On the bundled synthetic demo case (no real person).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flows.server import dies_with_parent

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG")

REPO = Path(__file__).resolve().parents[1]
PETITIONS = Path(sys.executable).with_name("petitions")


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for a reaper (a container's init may never reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _descendants(pid: int) -> dict[int, str]:
    """Every live process under `pid`, with its command line."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found: dict[int, str] = {}
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop()
        try:
            found[p] = (Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ")).decode()
        except OSError:
            continue
        todo += children.get(p, [])
    return found


def _left_after(pids: dict[int, str], seconds: float) -> dict[int, str]:
    deadline = time.monotonic() + seconds
    while (left := {p: c for p, c in pids.items() if _alive(p)}) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


# The parent starts the command, prints its pid, and waits to be killed.
_PARENT = """
import subprocess, sys, time
from flows.server import dies_with_parent
child = subprocess.Popen(dies_with_parent(["/bin/sleep", "120"]))
print(child.pid, flush=True)
time.sleep(120)
"""


def test_a_command_started_to_die_with_its_parent_dies_with_it():
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    child = int(parent.stdout.readline())
    deadline = time.monotonic() + 10
    while "sleep" not in _descendants(parent.pid).get(child, "") and time.monotonic() < deadline:
        time.sleep(0.05)  # the launcher has become the command (exec)
    assert _alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    assert not _left_after({child: "sleep"}, 5), "the command outlived its killed parent"


def test_the_launcher_runs_the_command_itself():
    cmd = dies_with_parent([sys.executable, "-c", "import os; print(os.getppid())"])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert int(out) == os.getpid()  # exec'd in place: no process between


def _serving(processes: dict[int, str]) -> bool:
    """Whether the Prefect server among `processes` (ours, or Prefect's own temporary one)
    answers its health check."""
    import urllib.request

    for cmd in processes.values():
        if "prefect" in cmd and "--port " in cmd:
            port = cmd.split("--port ")[1].split()[0]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1):
                    return True
            except OSError:
                return False
    return False


@pytest.mark.slow
@pytest.mark.ops
def test_a_killed_flow_check_leaves_no_server_behind(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")  # no profile: no server configured
    case = REPO / "fixtures" / "demo" / "case.toml"
    argv = [str(PETITIONS), "check", str(case), "--out", str(tmp_path / "out")]
    check = subprocess.Popen(
        [*argv, "--engine", "prefect", "--no-cache"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen: dict[int, str] = {}
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and check.poll() is None and not _serving(seen):
        seen.update(_descendants(check.pid))
        time.sleep(0.2)
    seen.update(_descendants(check.pid))
    assert check.poll() is None, "the check ended before it could be killed"
    assert _serving(seen), seen
    check.send_signal(signal.SIGKILL)
    check.wait()
    assert not _left_after(seen, 5), "processes of the killed check are still running"
