"""The lines a change adds to a file (head line numbers and texts from its hunks), the lines beside
them, and the pattern of a word on such a line: where a concern about a changed object points."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from aftershock.model.change import Hunk


@dataclass(frozen=True)
class AddedLine:
    line: int
    text: str  # without the leading '+'


@functools.lru_cache(maxsize=1024)
def word_pattern(word: str) -> re.Pattern[str]:
    """`word` as a whole word of a changed line; the same tokens recur in every concern."""
    return re.compile(rf"(?<![\w.-]){re.escape(word)}(?![\w-])")


def added_lines(hunks: Sequence[Hunk]) -> Iterator[AddedLine]:
    """Head line numbers and texts of the `+` lines of hunks."""
    for hunk in hunks:
        yield from (AddedLine(line, text) for line, text in hunk.added())


def lines_beside(hunks: Sequence[Hunk]) -> Iterator[AddedLine]:
    """The unchanged and removed lines of hunks, each numbered by its hunk's first added line (where
    the hunk starts at head when it adds none): a word on them (an alert a new guard now encloses,
    a removed key) points at the change beside it."""
    for hunk in hunks:
        first = next(added_lines([hunk]), None)
        at = first.line if first is not None else hunk.new_start
        for raw in hunk.lines:
            if raw[:1] in (" ", "-"):
                yield AddedLine(at, raw[1:])


@dataclass(frozen=True)
class AddedText:
    """A file's added lines as one text, searched by one regular-expression scan instead of one per
    line: a concern asks for its tokens in every changed file of its chart, and a chart added whole
    holds thousands of lines (sapcc's tree as added: minutes of line-by-line searches)."""

    lines: tuple[AddedLine, ...]
    text: str = field(init=False)
    starts: tuple[int, ...] = field(init=False)
    # pattern -> its first line: the concerns of a chart's objects ask for the same words again
    found: dict[re.Pattern[str], AddedLine | None] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        starts, offset = [], 0
        for added in self.lines:
            starts.append(offset)
            offset += len(added.text) + 1
        object.__setattr__(self, "text", "\n".join(a.text for a in self.lines))
        object.__setattr__(self, "starts", tuple(starts))

    def first(self, pattern: re.Pattern[str]) -> AddedLine | None:
        """The first line holding a match of `pattern` (one matching no line break, as a word's)."""
        if pattern not in self.found:
            match = pattern.search(self.text)
            self.found[pattern] = (
                None
                if match is None
                else self.lines[bisect.bisect_right(self.starts, match.start()) - 1]
            )
        return self.found[pattern]


def first_naming(
    texts: Mapping[str, AddedText], files: Sequence[str], patterns: Sequence[re.Pattern[str]]
) -> tuple[str, AddedLine] | None:
    """The first line of `files` (their texts in `texts`) holding the first pattern that any holds."""
    for pattern in patterns:
        for path in files:
            found = texts[path].first(pattern) if path in texts else None
            if found is not None:
                return path, found
    return None
