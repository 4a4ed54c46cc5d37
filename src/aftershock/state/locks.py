"""Per-target review locks: one review of a repository's target at a time, across threads and processes.

SQLite databases use an exclusive `flock` on a file per target beside the database; PostgreSQL uses
a session advisory lock on a connection held for the review. The kernel or the server releases
either when the holder dies, so a killed review never leaves a stale lock behind; an advisory lock
is not held once its session died (a restart, a reset), and releasing it then is a no-op. A second
review waits up to a timeout, then fails with StateBusyError.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from pathlib import Path
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from aftershock.safety.private_files import private_folder
from aftershock.state.errors import StateBusyError

_FIRST_POLL_SECONDS = 0.02
_MAX_POLL_SECONDS = 0.25


class TargetLock(Protocol):
    def try_acquire(self) -> bool: ...

    def held(self) -> bool: ...

    def release(self) -> None: ...


def lock_name(repository: str, target_key: str) -> bytes:
    """A fixed-size name for the lock of one target: sha256 of the repository and the target."""
    return hashlib.sha256(f"{repository}\0{target_key}".encode()).digest()


class FileLock:
    """An exclusive flock on one file; flock is per open file, so threads exclude each other too,
    and the kernel releases it when the holder dies."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._fd: int | None = None

    def try_acquire(self, *, create: bool = True) -> bool:
        """Take the lock unless another holds it. Without `create`, a missing file is an OSError."""
        fd = os.open(self._path, os.O_RDWR | os.O_CLOEXEC | (os.O_CREAT if create else 0), 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def held(self) -> bool:
        return self._fd is not None  # a flock lasts as long as its descriptor

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor releases the flock
            self._fd = None


class FileTargetLock(FileLock):
    """The lock of one target: `folder/<name>.lock`."""

    def __init__(self, folder: Path, name: bytes) -> None:
        super().__init__(folder / f"{name.hex()[:32]}.lock")
        self._folder = folder

    def try_acquire(self, *, create: bool = True) -> bool:
        private_folder(self._folder)
        return super().try_acquire(create=create)


class AdvisoryTargetLock:
    """A PostgreSQL session advisory lock, keyed by the target and the schema it lives in."""

    def __init__(self, engine: Engine, name: bytes) -> None:
        self._engine = engine
        self._name = name
        self._conn: Connection | None = None
        self._key: int | None = None
        self._held = False

    def try_acquire(self) -> bool:
        if self._conn is None:
            self._conn = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            schema_name = self._conn.scalar(sa.text("SELECT current_schema()")) or ""
            digest = hashlib.sha256(self._name + schema_name.encode("utf-8")).digest()
            self._key = int.from_bytes(digest[:8], "big", signed=True)
        self._held = bool(
            self._conn.scalar(sa.text("SELECT pg_try_advisory_lock(:key)"), {"key": self._key})
        )
        return self._held

    def held(self) -> bool:
        """Whether the lock's session is alive (a session that ended released it)."""
        if self._conn is None or not self._held:
            return False
        try:
            self._conn.scalar(sa.text("SELECT 1"))
        except sa.exc.DBAPIError as exc:
            if not (exc.connection_invalidated or isinstance(exc, sa.exc.OperationalError)):
                raise
            self._held = False  # nothing to unlock: `release` only closes the connection
            return False
        return True

    def release(self) -> None:
        if self._conn is None:
            return
        try:
            if self._held:
                self._conn.execute(sa.text("SELECT pg_advisory_unlock(:key)"), {"key": self._key})
        except sa.exc.DBAPIError as exc:
            # The session died (a restart, a reset): the server released its locks with it, and a
            # review that finished must not fail for want of an unlock.
            if not (exc.connection_invalidated or isinstance(exc, sa.exc.OperationalError)):
                raise
        finally:
            self._conn.close()  # ending the session would release the lock anyway
            self._conn = None
            self._held = False


def acquire(lock: TargetLock, timeout_seconds: float, what: str, where: str) -> None:
    """Take `lock`, polling until `timeout_seconds` have passed; then raise StateBusyError."""
    deadline = time.monotonic() + timeout_seconds
    pause = _FIRST_POLL_SECONDS
    while not lock.try_acquire():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            lock.release()
            raise StateBusyError(
                f"another review of {what} is running (waited {timeout_seconds:g} s)",
                where=where,
                hint="try again when it has finished, or raise the state lock timeout",
            )
        time.sleep(min(pause, remaining))
        pause = min(pause * 2, _MAX_POLL_SECONDS)
