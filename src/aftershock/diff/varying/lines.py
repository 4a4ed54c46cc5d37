"""Which lines of a multi-line text vary, where a template lists a map in Go's random order.

A startup script or a config file rendered from a map's `keys`/`values` (unsorted) differs from
render to render in one line, or in the order of a few lines; the rest of it, an edit included,
is stable. Masking the whole text would hide the edit, so these functions name the varying lines
by their *signature*: the sorted pieces (runs of word characters, and each other character alone)
of a line, the same whatever order a listing put them in.
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

# The pieces of a text a listing joins: runs of word characters, and each other character alone.
PIECES = re.compile(r"\w+|\W", re.UNICODE)


def is_multiline(value: object) -> bool:
    return isinstance(value, str) and "\n" in value


def multiline_texts(before: object, after: object) -> tuple[str, str] | None:
    """Both sides of a change to a text of several lines (either side's); None for any other."""
    if not isinstance(before, str) or not isinstance(after, str):
        return None
    return (before, after) if "\n" in before or "\n" in after else None


def signature(line: str) -> str:
    """The line's pieces, sorted: equal for two lines that differ only in order."""
    return "\x00".join(sorted(PIECES.findall(line)))


def varying_lines(first: str, second: str) -> frozenset[str] | None:
    """Signatures of the lines in which two renders of one text differ, when they differ only in
    order (of lines, or of the pieces within lines); None when a line differs otherwise (a random
    value), so that the whole text must be taken as varying."""
    left, right = _changed_lines(first, second)
    signatures = Counter(map(signature, left))
    if signatures != Counter(map(signature, right)):
        return None
    return frozenset(signatures)


def reordered_lines(base: str, head: str) -> frozenset[str]:
    """Signatures of the lines changed between base and head that are on both sides in another
    order: what a listing in random order changed, while every other changed line stays a change."""
    left, right = _changed_lines(base, head)
    return frozenset(map(signature, left)) & frozenset(map(signature, right))


def masked_lines(text: str, signatures: frozenset[str], mask: str) -> str:
    """`text` with each line whose signature is one of `signatures` replaced by `mask`."""
    lines = text.split("\n")
    return "\n".join(mask if signature(line) in signatures else line for line in lines)


def _changed_lines(first: str, second: str) -> tuple[list[str], list[str]]:
    """The lines of each text outside the blocks the two have in common."""
    a, b = first.split("\n"), second.split("\n")
    left: list[str] = []
    right: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            left += a[i1:i2]
            right += b[j1:j2]
    return left, right
