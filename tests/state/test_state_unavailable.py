"""Which database failures are worth trying again: a refused or dropped connection (StateUnavailableError)
but not a query the database refuses, nor SQLite's "no such table" (plain StateError); and a review
lock whose session died is no longer held: recording under it is refused, releasing it is quiet."""

from __future__ import annotations

import socket
import sqlite3
import uuid

import pytest
import sqlalchemy as sa

from aftershock.state.database import translated_errors
from aftershock.state.errors import StateError, StateUnavailableError
from aftershock.state.store import open_store
from state_support import PG_DSN, PG_URL, PR, REPO, postgres_problem, record


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nobody listens once the probe is closed


def test_a_refused_postgresql_connection_is_unavailable():
    with pytest.raises(StateUnavailableError, match="state database failed"):
        open_store(f"postgresql+psycopg://postgres@127.0.0.1:{_closed_port()}/test")


def test_a_wrong_query_and_a_missing_sqlite_table_are_not(tmp_path):
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(StateError) as raised, translated_errors("x.db"), engine.connect() as conn:
        conn.execute(sa.text("SELECT * FROM nothing_here"))
    assert type(raised.value) is StateError
    if postgres_problem():
        return
    pg = sa.create_engine(PG_URL)
    with pytest.raises(StateError) as raised, translated_errors("pg"), pg.connect() as conn:
        conn.execute(sa.text("SELECT * FROM nothing_here_either"))
    assert type(raised.value) is StateError
    pg.dispose()


def test_a_busy_sqlite_database_is_unavailable(tmp_path):
    path = tmp_path / "busy.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    engine = sa.create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.05})
    with pytest.raises(StateUnavailableError), translated_errors("busy.db"), engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO t VALUES (1)"))
    holder.close()


def test_a_review_lock_whose_session_was_terminated_is_not_held_and_releases_quietly():
    problem = postgres_problem()
    if problem:
        pytest.skip(problem)
    import psycopg

    tag = f"aftershock_test_{uuid.uuid4().hex[:12]}"  # the schema, and the sessions' name
    with psycopg.connect(PG_DSN, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {tag}")
    store = open_store(f"{PG_URL}?options=-csearch_path%3D{tag}&application_name={tag}")
    try:
        with store.review_lock(REPO, PR):
            with psycopg.connect(PG_DSN, autocommit=True) as admin:
                ended = admin.execute(
                    "SELECT count(pg_terminate_backend(a.pid)) FROM pg_locks l"
                    " JOIN pg_stat_activity a ON a.pid = l.pid"
                    " WHERE l.locktype = 'advisory' AND a.application_name = %s",
                    (tag,),
                ).fetchone()
            assert ended == (1,)
            with pytest.raises(StateUnavailableError, match="lost with its database session"):
                store.record_review(record("a" * 40))  # not without the lock it thinks it holds
        with store.review_lock(REPO, PR, timeout_seconds=5):
            pass  # the server released it with the session: it can be taken again
    finally:
        store.close()
        with psycopg.connect(PG_DSN, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {tag} CASCADE")
