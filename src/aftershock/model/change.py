"""Layers 0 and 1 of a change: commits and file changes with their hunks."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass


class Side(str, enum.Enum):
    """A side of the change: the base ref or the head ref."""

    BASE = "base"
    HEAD = "head"


@dataclass(frozen=True)
class Person:
    name: str
    email: str


@dataclass(frozen=True)
class Trailer:
    key: str
    value: str


@dataclass(frozen=True)
class Commit:
    """One commit of base..head, oldest first in a review."""

    sha: str
    title: str
    body: str
    author: Person
    authored_at: str  # ISO 8601, as git prints it with %aI
    committer: Person
    parents: tuple[str, ...]
    trailers: tuple[Trailer, ...] = ()

    @property
    def short_sha(self) -> str:
        return self.sha[:7]


class FileStatus(str, enum.Enum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"
    TYPE_CHANGED = "type_changed"


@dataclass(frozen=True)
class Hunk:
    """One `@@ -a,b +c,d @@` hunk; `lines` keep their leading ' ', '+' or '-'."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    header: str
    lines: tuple[str, ...]

    def added(self) -> Iterator[tuple[int, str]]:
        """The head line number and text (without its `+`) of each line the hunk adds."""
        number = self.new_start
        for line in self.lines:
            if line.startswith("+"):
                yield number, line[1:]
            if line[:1] in ("+", " "):
                number += 1


@dataclass(frozen=True)
class FileChange:
    """One file changed between base and head (net change of the whole range).

    `old_mode`/`new_mode` are git's octal modes ("100644", "100755", "120000" for a symlink,
    "160000" for a submodule); None on the side where the file does not exist.
    """

    path: str
    status: FileStatus
    old_path: str | None = None
    similarity: int | None = None  # percent, for renames and copies
    old_mode: str | None = None
    new_mode: str | None = None
    binary: bool = False
    additions: int = 0
    deletions: int = 0
    hunks: tuple[Hunk, ...] = ()
    commits: tuple[str, ...] = ()  # shas of the commits in the range that touched this path

    @property
    def is_symlink(self) -> bool:
        return "120000" in (self.old_mode, self.new_mode)

    @property
    def mode_changed(self) -> bool:
        return None not in (self.old_mode, self.new_mode) and self.old_mode != self.new_mode
