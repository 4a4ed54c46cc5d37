"""Putting the service together: the SQLite state file is switched to write-ahead logging."""

from __future__ import annotations

import sqlite3
from contextlib import ExitStack

from aftershock.server.build import _open_store
from aftershock.server.settings import ServiceSettings


def test_a_sqlite_state_file_is_left_in_write_ahead_logging_mode(tmp_path):
    path = tmp_path / "state.db"
    with ExitStack() as stack:
        _open_store(ServiceSettings(webhook_secret=b"s", state=str(path)), stack)
    with sqlite3.connect(path) as conn:  # the mode stays with the file
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
