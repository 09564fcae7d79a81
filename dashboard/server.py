"""The dashboard as a running web server: its app made from an accounts file (`open_app`), and
served in a background thread (`DashboardServer`) by `petitions serve` beside its Prefect
runner, or in the foreground by `petitions dashboard`."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from pipeline.errors import OutputError

from .accounts import Accounts
from .app import create_app, session_secret

__all__ = ["DashboardServer", "open_app"]


def open_app(
    root: Path,
    users: Path,
    store_url: str | None = None,
    out_dir: Path | None = None,
    say: Callable[[str], object] = print,
):
    """The dashboard app over `root` with the accounts in `users` (a hint is said when it
    holds none: nobody could log in)."""
    accounts = Accounts(users)
    if not accounts.names():
        say(f"no accounts in {users}: add one with `petitions users add NAME --role supervisor`")
    return create_app(
        root, accounts, secret=session_secret(users), store_url=store_url, out_dir=out_dir
    )


class DashboardServer:
    """uvicorn serving `app` in a thread (signals stay with the main thread: Ctrl-C stops the
    caller, which then calls `stop`)."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 8000) -> None:
        import uvicorn

        self._server = uvicorn.Server(
            uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off")
        )
        self._thread = threading.Thread(target=self._server.run, name="dashboard", daemon=True)
        self.host = host

    def start(self, timeout: float = 30.0) -> str:
        """Start serving; return the address (the port the system chose when it was 0)."""
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise OutputError(
                    f"the review dashboard could not listen on {self.host}:"
                    f"{self._server.config.port} (in use?)"
                )
            time.sleep(0.05)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        return f"http://{self.host}:{port}/"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=15)
