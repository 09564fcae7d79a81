"""Local accounts: a name, a role and an argon2id password hash, in one SQLite file.

Accounts are made on the command line (`petitions users add NAME --role reviewer`); the
dashboard only reads them. Roles: a *reviewer* decides lines and sheets; a *supervisor* also
assigns batches, reopens a certified case and certifies.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from pipeline.errors import ExitCode, PetitionError

__all__ = ["Account", "AccountError", "Accounts", "LoginLimiter", "Role"]


class AccountError(PetitionError):
    """A name or password that cannot make an account (exit code 64, a bad command line)."""

    exit_code = ExitCode.USAGE


USERS_FILE = "petitions-users.sqlite"


class Role(StrEnum):
    REVIEWER = "reviewer"
    SUPERVISOR = "supervisor"


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    role: Role

    @property
    def supervises(self) -> bool:
        return self.role is Role.SUPERVISOR


class Accounts:
    """The accounts file. argon2id with the library's defaults (64 MiB, 3 passes)."""

    def __init__(self, path: Path, hasher: PasswordHasher | None = None) -> None:
        self.path = Path(path)
        self._hasher = hasher or PasswordHasher()
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._dummy_hash: str | None = None
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, role TEXT NOT NULL, "
            "hash TEXT NOT NULL)"
        )

    def add(self, name: str, role: Role, password: str) -> Account:
        name = name.strip()
        if not name or len(name) > 64 or any(c.isspace() for c in name):
            raise AccountError(f"{name!r}: a user name is 1 to 64 characters, no spaces")
        if len(password) < 8:
            raise AccountError("a password needs at least 8 characters")
        digest = self._hasher.hash(password)
        with self._lock:
            self._db.execute(
                "INSERT INTO users (name, role, hash) VALUES (?, ?, ?) ON CONFLICT(name) "
                "DO UPDATE SET role = excluded.role, hash = excluded.hash",
                (name, str(role), digest),
            )
        return Account(name, role)

    def get(self, name: str) -> Account | None:
        with self._lock:
            row = self._db.execute("SELECT role FROM users WHERE name = ?", (name,)).fetchone()
        return Account(name, Role(row[0])) if row else None

    def verify(self, name: str, password: str) -> Account | None:
        """The account when the password is its own; None otherwise (the same work is done
        for an unknown name, so timing does not tell which names exist)."""
        with self._lock:
            row = self._db.execute(
                "SELECT role, hash FROM users WHERE name = ?", (name,)
            ).fetchone()
        digest = row[1] if row else self._dummy()
        try:
            self._hasher.verify(digest, password)
        except (VerificationError, InvalidHashError):
            return None
        return Account(name, Role(row[0])) if row else None

    def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = self._hasher.hash("no such user")
        return self._dummy_hash

    def names(self) -> list[Account]:
        with self._lock:
            rows = self._db.execute("SELECT name, role FROM users ORDER BY name").fetchall()
        return [Account(n, Role(r)) for n, r in rows]


class LoginLimiter:
    """At most `attempts` failed logins per `window` seconds for one name and for one client
    address; beyond that, logins are refused until the window has passed. The failures are
    kept in `path` (the accounts file, by default in the dashboard), so a restarted server
    goes on refusing; without a path, in memory."""

    def __init__(
        self, attempts: int = 5, window: float = 60.0, path: Path | str = ":memory:"
    ) -> None:
        self.attempts = attempts
        self.window = window
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS login_failures (key TEXT NOT NULL, at REAL NOT NULL)"
        )
        self._db.execute("CREATE INDEX IF NOT EXISTS login_failures_key ON login_failures (key)")

    def blocked(self, *keys: str) -> bool:
        since = time.time() - self.window
        with self._lock:
            return any(
                self._db.execute(
                    "SELECT count(*) FROM login_failures WHERE key = ? AND at > ?", (k, since)
                ).fetchone()[0]
                >= self.attempts
                for k in keys
            )

    def failed(self, *keys: str) -> None:
        now = time.time()
        with self._lock:
            self._db.execute("DELETE FROM login_failures WHERE at <= ?", (now - self.window,))
            self._db.executemany(
                "INSERT INTO login_failures (key, at) VALUES (?, ?)", [(k, now) for k in keys]
            )
