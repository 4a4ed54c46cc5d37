"""Pure parsers for git's machine-readable output: log records, trailers, -z raw/numstat, patches.

Nothing here runs git; `ingest/repository/git.py` feeds these functions the bytes git printed.
Paths are decoded as UTF-8 with `surrogateescape`, so any byte path round-trips to the filesystem.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from aftershock.model.change import Commit, FileStatus, Hunk, Person, Trailer
from aftershock.model.errors import GitError

# Fields of one commit in LOG_FORMAT, in order, then its trailers.
LOG_FIELDS = ("%H", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%s", "%b")
TRAILERS_FIELD = "%(trailers:only,unfold,separator=%x1f,key_value_separator=%x1e)"
LOG_FORMAT = "%x00".join((*LOG_FIELDS, TRAILERS_FIELD)) + "%x00"
TOUCHED_FORMAT = "%x00%H"  # a leading empty token marks each commit; no path is empty

_TRAILER_SEPARATOR = "\x1f"
_TRAILER_KEY_VALUE = "\x1e"
_ABSENT_MODE = "000000"
_HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*?)\r?$")


def decode_path(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def parse_trailers(text: str) -> tuple[Trailer, ...]:
    """Trailers printed by TRAILERS_FIELD: `key\\x1evalue` items joined by \\x1f."""
    trailers = []
    for item in text.split(_TRAILER_SEPARATOR):
        key, sep, value = item.partition(_TRAILER_KEY_VALUE)
        if sep and key.strip():
            trailers.append(Trailer(key=key.strip(), value=value.strip()))
    return tuple(trailers)


def parse_log(data: bytes) -> tuple[Commit, ...]:
    """Commits printed by `git log --format=LOG_FORMAT` (tformat adds a newline after each)."""
    tokens = [_text(token) for token in data.split(b"\0")]
    width = len(LOG_FIELDS) + 1
    if tokens and tokens[-1].strip() == "":
        tokens.pop()
    if len(tokens) % width:
        raise GitError("unexpected git log output", hint="report this with your git version")
    commits = []
    for start in range(0, len(tokens), width):
        sha, parents, an, ae, at, cn, ce, title, body, trailers = tokens[start : start + width]
        commits.append(
            Commit(
                sha=sha.lstrip("\n"),
                title=title,
                body=body.strip("\n"),
                author=Person(name=an, email=ae),
                authored_at=at,
                committer=Person(name=cn, email=ce),
                parents=tuple(parents.split()),
                trailers=parse_trailers(trailers.rstrip("\n")),
            )
        )
    return tuple(commits)


@dataclass(frozen=True)
class TouchedPaths:
    """Which commits of a range touched which paths; `commits` in log order."""

    commits: tuple[str, ...]
    paths: dict[str, tuple[str, ...]]


def parse_touched(data: bytes) -> TouchedPaths:
    """Paths per commit from `git log --name-only -z --format=TOUCHED_FORMAT`."""
    commits: list[str] = []
    paths: dict[str, list[str]] = {}
    tokens = iter(data.split(b"\0"))
    first = False
    for token in tokens:
        if token == b"":
            commits.append(_text(next(tokens, b"")).strip())
            first = True
            continue
        if first and token.startswith(b"\n"):  # the newline that ends the commit line
            token = token[1:]
        first = False
        shas = paths.setdefault(decode_path(token), [])
        if commits and commits[-1] not in shas:
            shas.append(commits[-1])
    return TouchedPaths(
        commits=tuple(commits), paths={path: tuple(shas) for path, shas in paths.items()}
    )


@dataclass(frozen=True)
class RawEntry:
    """One record of `git diff --raw -z`, joined with its `--numstat` counts."""

    status: FileStatus
    path: str
    old_path: str | None
    similarity: int | None
    old_mode: str | None
    new_mode: str | None
    binary: bool = False
    additions: int = 0
    deletions: int = 0


_STATUS_LETTERS = {
    "A": FileStatus.ADDED,
    "M": FileStatus.MODIFIED,
    "D": FileStatus.DELETED,
    "R": FileStatus.RENAMED,
    "C": FileStatus.COPIED,
    "T": FileStatus.TYPE_CHANGED,
}


def parse_raw_numstat(data: bytes) -> tuple[RawEntry, ...]:
    """Records of `git diff --raw --numstat -z`: every raw record, then one numstat per record."""
    tokens = data.split(b"\0")
    if tokens and tokens[-1] == b"":
        tokens.pop()
    entries, position = _parse_raw(tokens)
    counts = _parse_numstat(tokens[position:])
    if len(counts) != len(entries):
        raise GitError("unexpected git diff output", hint="report this with your git version")
    return tuple(_with_counts(entry, count) for entry, count in zip(entries, counts, strict=True))


def _parse_raw(tokens: list[bytes]) -> tuple[list[RawEntry], int]:
    entries = []
    position = 0
    while position < len(tokens) and tokens[position].startswith(b":"):
        fields = _text(tokens[position][1:]).split()
        old_mode, new_mode, letters = fields[0], fields[1], fields[4]
        status = _STATUS_LETTERS.get(letters[0])
        if status is None:
            raise GitError(f"unsupported change status {letters!r} in git diff output")
        two_paths = status in (FileStatus.RENAMED, FileStatus.COPIED)
        paths = [decode_path(token) for token in tokens[position + 1 : position + 2 + two_paths]]
        entries.append(
            RawEntry(
                status=status,
                path=paths[-1],
                old_path=paths[0] if two_paths else None,
                similarity=int(letters[1:]) if two_paths and letters[1:].isdigit() else None,
                old_mode=None if old_mode == _ABSENT_MODE else old_mode,
                new_mode=None if new_mode == _ABSENT_MODE else new_mode,
            )
        )
        position += 2 + two_paths
    return entries, position


def _parse_numstat(tokens: list[bytes]) -> list[tuple[int, int] | None]:
    """(additions, deletions) per record, None for a binary file."""
    counts: list[tuple[int, int] | None] = []
    position = 0
    while position < len(tokens):
        added, deleted, path = tokens[position].split(b"\t", 2)
        position += 1 if path else 3  # a rename prints an empty path, then old and new paths
        binary = added == b"-" or deleted == b"-"
        counts.append(None if binary else (int(added), int(deleted)))
    return counts


def _with_counts(entry: RawEntry, count: tuple[int, int] | None) -> RawEntry:
    if count is None:
        return replace(entry, binary=True)
    return replace(entry, additions=count[0], deletions=count[1])


@dataclass(frozen=True)
class FilePatch:
    """The hunks of one `diff --git` block; `oversized` when they were dropped for size."""

    hunks: tuple[Hunk, ...]
    oversized: bool = False


class _HunkBuilder:
    """Collects the lines of one hunk until its old and new line counts are used up."""

    def __init__(self, match: re.Match[bytes]) -> None:
        old_start, old_lines, new_start, new_lines, header = match.groups()
        self.old_start, self.new_start = int(old_start), int(new_start)
        self.old_lines = 1 if old_lines is None else int(old_lines)
        self.new_lines = 1 if new_lines is None else int(new_lines)
        self.header = _text(header)
        self.old_left, self.new_left = self.old_lines, self.new_lines
        self.lines: list[str] = []

    @property
    def complete(self) -> bool:
        return self.old_left <= 0 and self.new_left <= 0

    def add(self, line: bytes, *, keep: bool) -> None:
        marker = line[:1]
        if marker in (b" ", b""):  # diff.suppressBlankEmpty prints an empty context line
            self.old_left, self.new_left = self.old_left - 1, self.new_left - 1
            line = b" " + line[1:]
        elif marker == b"-":
            self.old_left -= 1
        elif marker == b"+":
            self.new_left -= 1
        else:
            raise GitError(
                "unexpected line inside a diff hunk", hint="report this with your git version"
            )
        if keep:
            self.lines.append(_text(line))

    def build(self) -> Hunk:
        return Hunk(
            self.old_start,
            self.old_lines,
            self.new_start,
            self.new_lines,
            self.header,
            tuple(self.lines),
        )


class PatchParser:
    """Streams a unified patch line by line into one FilePatch per `diff --git` block.

    A block whose hunk text exceeds `max_hunk_bytes` keeps no hunks (marked oversized), so memory
    stays bounded by the limit. `\\ No newline at end of file` markers are dropped.
    """

    def __init__(self, *, max_hunk_bytes: int) -> None:
        self._max_hunk_bytes = max_hunk_bytes
        self._patches: list[FilePatch] = []
        self._hunks: list[Hunk] | None = None  # None until the first block starts
        self._size = 0
        self._current: _HunkBuilder | None = None

    def feed(self, raw: bytes) -> None:
        line = raw[:-1] if raw.endswith(b"\n") else raw
        current = self._current
        if current is not None and not current.complete:
            if not line.startswith(b"\\"):
                self._size += len(line) + 1
                current.add(line, keep=self._size <= self._max_hunk_bytes)
            return
        self._close_hunk()
        if line.startswith(b"diff --git "):
            self._close_file()
            self._hunks, self._size = [], 0
        elif line.startswith(b"@@ ") and self._hunks is not None:
            match = _HUNK_HEADER.match(line)
            if match is None:
                raise GitError("unexpected hunk header in git diff output")
            self._current = _HunkBuilder(match)

    def finish(self) -> list[FilePatch]:
        if self._current is not None and not self._current.complete:
            raise GitError("git diff output ended inside a hunk")
        self._close_hunk()
        self._close_file()
        self._hunks = None
        return self._patches

    def _close_hunk(self) -> None:
        fits = self._size <= self._max_hunk_bytes
        if self._current is not None and self._hunks is not None and fits:
            self._hunks.append(self._current.build())
        self._current = None

    def _close_file(self) -> None:
        if self._hunks is not None:
            oversized = self._size > self._max_hunk_bytes
            self._patches.append(FilePatch(() if oversized else tuple(self._hunks), oversized))


def parse_patch(lines: Iterable[bytes], *, max_hunk_bytes: int) -> list[FilePatch]:
    """All blocks of a unified patch; see PatchParser."""
    parser = PatchParser(max_hunk_bytes=max_hunk_bytes)
    for line in lines:
        parser.feed(line)
    return parser.finish()
