"""Checking, before any work, the paths a command will write: the report (`--output`), the render cache
(`--render-cache`) and a SQLite state database (`--state`).

A review can take minutes; a path it cannot write must stop it at once with one line and exit
status 2, not fail as an internal error once the review has run.
"""

from __future__ import annotations

import os
from pathlib import Path

from aftershock.model.errors import ConfigError


def check_output_file(given: str, option: str) -> Path:
    """`given` as a file that can be written (replaced through a temporary file beside it)."""
    path = Path(given).expanduser()
    if path.exists() and not path.is_file():
        raise ConfigError(
            f"{option} {given} is not a file", hint="pass the path of a file to write"
        )
    folder = path.parent
    if not folder.is_dir():
        raise ConfigError(
            f"{option} {given}: the folder {folder} does not exist",
            hint="create it, or write elsewhere",
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(
            f"{option} {given}: the folder {folder} is not writable", hint="write elsewhere"
        )
    return path


def check_folder(given: str, option: str) -> Path:
    """`given` as a folder that exists and is writable, or that can be created."""
    path = Path(given).expanduser()
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{option} {given} is not a folder", hint="pass a folder, or `off`")
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(
            f"{option} {given}: {existing} is not a folder", hint="pass a folder, or `off`"
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(
            f"{option} {given}: {existing} is not writable", hint="pass a folder you may write"
        )
    return path


def check_state_location(given: str | None) -> None:
    """A SQLite `--state` path must name a file in a folder that exists or can be created; URLs are
    checked when the database is opened."""
    if given is None or "://" in given:
        return
    path = Path(given).expanduser()
    if path.exists() and not path.is_file():
        raise ConfigError(
            f"--state {given} is not a file", hint="pass a SQLite file path or a postgresql:// URL"
        )
    check_folder(str(path.parent), "--state")
