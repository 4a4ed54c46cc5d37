"""The lines a change adds to a file (head line numbers and texts from its hunks), and the pattern of a
word on such a line: where a concern about a changed object points."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

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
        line = hunk.new_start
        for raw in hunk.lines:
            marker = raw[:1]
            if marker == "+":
                yield AddedLine(line, raw[1:])
                line += 1
            elif marker == " ":
                line += 1
