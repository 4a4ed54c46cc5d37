"""Where aftershock puts the folders it writes and reads back at once (chart workspaces, test copies)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

_MIN_FREE_BYTES = 256 * 2**20


def fast_temp_root() -> str | None:
    """A memory-backed folder when the machine has one with room, else None (the system's default):
    charts are written and read once per review, and a busy disk would cost more than rendering."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > _MIN_FREE_BYTES:
        return str(shm)
    return None
