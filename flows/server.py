"""The Prefect server a run talks to: the one configured (`PREFECT_API_URL`, in the environment
or the active Prefect profile), or one this program starts on this machine and stops after.

`configured_api_url` does not import Prefect (it costs a second): `petitions check` asks it to
choose between the flow (a server is there) and the stages in this process (none is: starting a
temporary one would take longer than the check).

A server started here dies with the process that started it, however that process ends (kill -9
included): it is started through a launcher that asks Linux for a parent-death signal
(`PR_SET_PDEATHSIG`) and then becomes the server (`exec`). A flow forced with no server
configured (`petitions check --engine prefect`) runs on such a server (`flow_server`), not on the
temporary one Prefect would start by itself, which outlives a killed parent.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "ServerError",
    "configured_api_url",
    "dies_with_parent",
    "flow_server",
    "local_server",
    "wait_healthy",
]


class ServerError(RuntimeError):
    """The Prefect server could not be started or reached."""


def _prefect_home(env: dict[str, str]) -> Path:
    return Path(env.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()


def configured_api_url(env: dict[str, str] | None = None) -> str | None:
    """The Prefect API this run would use: `PREFECT_API_URL` from the environment, else from
    the active profile in `$PREFECT_HOME/profiles.toml` (`PREFECT_PROFILE` chooses it). None
    when neither sets it (Prefect would then start a temporary server for each flow run)."""
    env = dict(os.environ if env is None else env)
    if env.get("PREFECT_API_URL"):
        return env["PREFECT_API_URL"]
    profiles = env.get("PREFECT_PROFILES_PATH") or _prefect_home(env) / "profiles.toml"
    try:
        doc = tomllib.loads(Path(profiles).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    active = env.get("PREFECT_PROFILE") or doc.get("active", "ephemeral")
    profile = doc.get("profiles", {}).get(active, {})
    url = profile.get("PREFECT_API_URL") if isinstance(profile, dict) else None
    return str(url) if url else None


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def wait_healthy(api_url: str, timeout: float = 90.0, proc: subprocess.Popen | None = None) -> None:
    """Wait until the API at `api_url` answers its health check."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise ServerError(f"the Prefect server exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{api_url}/health", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.3)
    raise ServerError(f"the Prefect server at {api_url} did not answer within {timeout:.0f} s")


# Run as `python -c _LAUNCHER PARENT_PID COMMAND...`: the parent-death signal survives `exec`,
# so the command is killed when the thread that started it ends. Asked before the command
# starts, and checked against a parent that died before it was asked.
_LAUNCHER = """
import ctypes, os, signal, sys
parent, argv = int(sys.argv[1]), sys.argv[2:]
if sys.platform.startswith("linux"):
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
if os.getppid() != parent:
    sys.exit(1)
os.execv(argv[0], argv)
"""


def dies_with_parent(cmd: list[str]) -> list[str]:
    """`cmd` started so that it is killed when the calling thread's process ends, however it
    ends (on Linux; elsewhere `cmd` as it is). Start it from a thread that lives as long as the
    command should: the signal follows the thread that started it (the main thread here)."""
    return [sys.executable, "-c", _LAUNCHER, str(os.getpid()), *cmd]


@contextlib.contextmanager
def local_server(
    host: str = "127.0.0.1",
    port: int | None = None,
    log_path: Path | None = None,
    services: bool = True,
) -> Iterator[str]:
    """Start `prefect server start` on this machine; yield its API URL; stop it on exit. It
    dies with this process (`dies_with_parent`). `services=False`: the API alone (no
    scheduler, no triggers: enough for a flow run called in this process)."""
    port = port or _free_port(host)
    api_url = f"http://{host}:{port}/api"
    env = {
        **os.environ,
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_UI_API_URL": api_url,
    }
    env.pop("PREFECT_API_URL", None)
    out = log_path.open("ab") if log_path is not None else subprocess.DEVNULL
    cmd = [sys.executable, "-m", "prefect", "server", "start", "--host", host, "--port", str(port)]
    if not services:
        cmd.append("--no-services")
    proc = subprocess.Popen(dies_with_parent(cmd), env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy(api_url, proc=proc)
        yield api_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if log_path is not None and hasattr(out, "close"):
            out.close()


@contextlib.contextmanager
def flow_server(log_path: Path | None = None) -> Iterator[str]:
    """The API a flow run in this process talks to: the configured server, or else one
    started here for the run (and stopped after, or killed with this process) in place of the
    temporary server Prefect would start, which would outlive a killed parent. Enter it before
    Prefect is imported: Prefect reads `PREFECT_API_URL` once, on import."""
    if (api := configured_api_url()) is not None:
        yield api
        return
    with local_server(log_path=log_path, services=False) as api, contextlib.ExitStack() as more:
        before = os.environ.get("PREFECT_API_URL")
        os.environ["PREFECT_API_URL"] = api
        more.callback(_restore, "PREFECT_API_URL", before)
        if "prefect.context" in sys.modules:  # imported already: it has read its settings
            from prefect.settings import PREFECT_API_URL, temporary_settings

            more.enter_context(temporary_settings({PREFECT_API_URL: api}))
        yield api


def _restore(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
