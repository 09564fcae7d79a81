"""The Prefect server a run talks to: the one configured (`PREFECT_API_URL`, in the environment
or the active Prefect profile), or one this program starts on this machine and stops after.

`configured_api_url` does not import Prefect (it costs a second): `petitions check` asks it to
choose between the flow (a server is there) and the stages in this process (none is: starting a
temporary one would take longer than the check).
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

__all__ = ["ServerError", "configured_api_url", "local_server", "wait_healthy"]


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


@contextlib.contextmanager
def local_server(
    host: str = "127.0.0.1", port: int | None = None, log_path: Path | None = None
) -> Iterator[str]:
    """Start `prefect server start` on this machine; yield its API URL; stop it on exit."""
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
    proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
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
