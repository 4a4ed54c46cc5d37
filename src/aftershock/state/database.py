"""Where the state lives and how to reach it: a path or URL to a SQLAlchemy engine, plus errors and locks.

SQLite is the default (`.aftershock/state.db` in the repository). Its transactions start with
BEGIN IMMEDIATE, so two writers queue on SQLite's own lock instead of failing when one upgrades a
read to a write. PostgreSQL is reached by URL with the psycopg 3 driver. Any database failure
becomes a one-line StateError.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from aftershock.safety.private_files import private_file, private_folder
from aftershock.state.errors import StateError, StateUnavailableError
from aftershock.state.locks import AdvisoryTargetLock, FileTargetLock, TargetLock

DEFAULT_STATE_PATH = Path(".aftershock") / "state.db"
_SQLITE_BUSY_SECONDS = 30.0  # waiting for another writer's short transaction, not for a review
_PG_CONNECT_TIMEOUT_SECONDS = (
    10  # a server that accepts and never answers must not hold a job forever
)
# SQLite's OperationalError also means a wrong query ("no such table"); only these are transient
_SQLITE_TRANSIENT = ("database is locked", "unable to open database file", "disk i/o error")
_GITIGNORE = "# aftershock's review state and caches: local to this clone\n*\n"


@dataclass(frozen=True)
class Database:
    engine: Engine
    where: str  # the path, or the URL without its password: for messages
    lock_folder: Path | None  # SQLite: where the per-target lock files go

    def lock(self, name: bytes) -> TargetLock:
        if self.lock_folder is not None:
            return FileTargetLock(self.lock_folder, name)
        return AdvisoryTargetLock(self.engine, name)


def connect(location: str | Path | None, repo_root: Path | None) -> Database:
    """The database at `location` (a path or URL), or `.aftershock/state.db` under `repo_root`."""
    if location is None:
        if repo_root is None:
            raise StateError(
                "no state database given",
                hint="pass --state PATH or URL, or review inside a repository",
            )
        return _sqlite(repo_root / DEFAULT_STATE_PATH, default_folder=True)
    text = str(location)
    if "://" not in text:
        return _sqlite(Path(text).expanduser(), default_folder=False)
    try:
        url = sa.make_url(text)
    except sa.exc.ArgumentError:
        raise StateError(
            "unreadable state database URL",
            where=text,
            hint="use sqlite:///PATH or postgresql://HOST/DB",
        ) from None
    backend = url.get_backend_name()
    if backend == "sqlite":
        if not url.database or url.database == ":memory:":
            raise StateError(
                "an in-memory state database keeps nothing", where=text, hint="pass a file path"
            )
        return _sqlite(Path(url.database).expanduser(), default_folder=False)
    if backend in ("postgresql", "postgres"):
        return _postgres(url)
    raise StateError(
        f"unsupported state database {backend!r}",
        where=url.render_as_string(hide_password=True),
        hint="use a SQLite path or a postgresql:// URL",
    )


def _sqlite(path: Path, *, default_folder: bool) -> Database:
    path = path.absolute()
    try:
        private_folder(path.parent)
        if default_folder and not (path.parent / ".gitignore").exists():
            (path.parent / ".gitignore").write_text(_GITIGNORE, encoding="utf-8")
        private_file(path)  # SQLite gives its journal files the database's mode
    except OSError as exc:
        raise StateError(
            "cannot create the state folder", where=str(path.parent), hint=exc.strerror or str(exc)
        ) from None
    engine = sa.create_engine(
        sa.URL.create("sqlite", database=str(path)), connect_args={"timeout": _SQLITE_BUSY_SECONDS}
    )
    sa.event.listen(engine, "connect", _sqlite_connected)
    sa.event.listen(engine, "begin", _sqlite_begin)
    return Database(engine, str(path), path.with_name(path.name + ".locks"))


def _sqlite_connected(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # we issue BEGIN ourselves (see _sqlite_begin)
    dbapi_connection.execute("PRAGMA foreign_keys = ON")


def _sqlite_begin(conn: sa.Connection) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def _postgres(url: sa.URL) -> Database:
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")  # SQLAlchemy would pick psycopg2 otherwise
    connect_args = (
        {} if "connect_timeout" in url.query else {"connect_timeout": _PG_CONNECT_TIMEOUT_SECONDS}
    )
    engine = sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    return Database(engine, url.render_as_string(hide_password=True), None)


@contextmanager
def translated_errors(where: str) -> Iterator[None]:
    """Turn a database or lock-file failure into a one-line StateError naming the database; a lost or
    refused connection is a StateUnavailableError (see `unavailable`)."""
    try:
        yield
    except sa.exc.DBAPIError as exc:
        detail = (
            str(exc.orig).strip().splitlines()[0]
            if str(exc.orig).strip()
            else type(exc.orig).__name__
        )
        error = StateUnavailableError if unavailable(exc) else StateError
        raise error(
            f"state database failed: {detail}",
            where=where,
            hint="check the --state path or URL, and that the database is reachable and writable",
        ) from None
    except (sa.exc.DisconnectionError, sa.exc.TimeoutError) as exc:  # pool: lost, or none free
        raise StateUnavailableError(
            f"state database failed: {str(exc).splitlines()[0]}", where=where
        ) from None
    except sa.exc.SQLAlchemyError as exc:
        raise StateError(
            f"state database failed: {str(exc).splitlines()[0]}", where=where
        ) from None
    except OSError as exc:
        raise StateError(f"state database failed: {exc.strerror or exc}", where=where) from None


def unavailable(exc: sa.exc.DBAPIError) -> bool:
    """Whether the database failed to answer (connection refused, reset, administrator shutdown,
    SQLite busy) rather than refused what was asked: only then is trying again worth it."""
    if exc.connection_invalidated:
        return True
    if not isinstance(exc, sa.exc.OperationalError):
        return False
    if isinstance(exc.orig, sqlite3.Error):
        return any(text in str(exc.orig).lower() for text in _SQLITE_TRANSIENT)
    return True
