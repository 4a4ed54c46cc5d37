"""Folders and files that keep review data (state database, render cache) are the user's alone:
folders created 0700, files 0600, whatever the umask."""

from __future__ import annotations

import os
from pathlib import Path


def private_folder(path: Path) -> None:
    """Create `path` and any missing parent as 0700 folders; folders that already exist are left as they are."""
    missing = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue
        os.chmod(folder, 0o700)  # mkdir's mode is masked by the umask


def private_file(path: Path) -> None:
    """Create `path` empty as 0600 when missing; make it 0600 when it exists and is ours."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return  # the caller's own open reports what is wrong with the path
    try:
        if os.fstat(fd).st_uid == os.getuid():
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
