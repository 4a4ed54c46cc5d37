"""A changed file of one hunk, for tests of what the changed lines of a chart's templates hold."""

from __future__ import annotations

from aftershock.model.change import FileChange, Hunk


def one_hunk_change(path: str, *lines: str) -> FileChange:
    """`path` modified by one hunk of `lines`, each with its leading ' ', '+' or '-'."""
    return FileChange(path=path, status="M", hunks=(Hunk(1, 1, 1, 1, "", lines),))
