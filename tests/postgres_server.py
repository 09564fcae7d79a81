"""A throwaway PostgreSQL server for the audit store's tests, started from binaries on this
machine (no network): `PETITIONS_TEST_POSTGRES_URL` when set (a server someone runs), else the
first `initdb` found among the PATH, Debian's `/usr/lib/postgresql/*/bin` and the `pgserver`
wheel's bundled build (`pip install pgserver`). The cluster lives in a temporary folder, trusts
local connections, skips fsync, and is removed when the tests are done. PostgreSQL refuses to
run as root: as root the server runs as the `postgres` user, or `nobody` when there is none.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["binaries", "postgres_url"]


def _candidates() -> Iterator[Path]:
    initdb = shutil.which("initdb")
    if initdb:
        yield Path(initdb).resolve().parent
    yield from sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    spec = importlib.util.find_spec("pgserver")
    if spec is not None and spec.origin:
        yield Path(spec.origin).parent / "pginstall" / "bin"


def binaries() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres, or None."""
    return next(
        (d for d in _candidates() if all((d / b).is_file() for b in ("initdb", "pg_ctl"))), None
    )


def _as_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return ["runuser", "-u", name, "--"]
    raise RuntimeError("running as root with neither a postgres nor a nobody user")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def postgres_url() -> Iterator[str | None]:
    """Yield the URL of a running server (None when none can be had); stop it after."""
    if os.environ.get("PETITIONS_TEST_POSTGRES_URL"):
        yield os.environ["PETITIONS_TEST_POSTGRES_URL"]
        return
    bin_dir = binaries()
    if bin_dir is None:
        yield None
        return
    run_as = _as_user()
    home = Path(tempfile.mkdtemp(prefix="petitions-pg-"))
    if run_as:
        shutil.chown(home, user=run_as[2])
    data, port = home / "data", _free_port()

    def pg(*args: str) -> None:
        done = subprocess.run([*run_as, *args], capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise RuntimeError(f"{' '.join(args[:1])} failed: {done.stderr.strip()[-500:]}")

    try:
        pg(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "petitions",
           "-E", "UTF8", "--no-sync")  # fmt: skip
        opts = f"-p {port} -k {home} -c listen_addresses=127.0.0.1 -c fsync=off"
        pg(str(bin_dir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(home / "log"),
           "-w", "-t", "90", "start")  # fmt: skip
        try:
            yield f"postgresql://petitions@127.0.0.1:{port}/postgres"
        finally:
            pg(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(home, ignore_errors=True)
