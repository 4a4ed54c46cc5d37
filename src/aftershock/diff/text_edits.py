"""When two scenarios' changes of one object are the same change.

A scenario renders the same edit to a script or config file as the default does, while another
line of that text differs between them: a line its values render otherwise (`ErrorLog /dev/stdout`
beside the added `ServerName`), or one listed in Go's random order, masked as varying in one
scenario and left as it was in another whose renders agreed by chance (diff/normalize.py). Such
texts compare by their *edit*: the lines removed and added, without context or line numbers. A
digest (a checksum annotation over a ConfigMap the scenarios render differently) compares as
*changed*, whatever its values: they differ with every scenario and say only that what it sums
changed. The graph and the review document both merge scenarios by this.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import replace
from typing import Any

from aftershock.diff.varying.lines import multiline_texts
from aftershock.model.diff import FieldChange, FieldChangeKind, ObjectChange

_HUNK_HEADER = re.compile(r"^@@ .* @@")
# a hex digest (sha1 and up), alone: an image reference's digest is part of a value that means more
_DIGEST = re.compile(r"(?:sha(?:1|256|512):)?[0-9a-f]{40,128}")
DIGEST_CHANGED = "<digest changed>"


def line_diff(before: Any, after: Any, context: int = 1) -> list[str] | None:
    """The unified diff of one text to another, line by line and without its ---/+++ header, when
    either has several lines; else None."""
    texts = multiline_texts(before, after)
    if texts is None:
        return None
    old, new = (text.splitlines() for text in texts)
    lines = difflib.unified_diff(old, new, lineterm="", n=context)
    return list(lines)[2:]  # by position: a removed line may itself start with "--"


def text_edit(before: Any, after: Any) -> tuple[str, ...] | None:
    """The edit from one text to another when either has several lines (the lines it removes and
    adds, hunk by hunk), else None."""
    lines = line_diff(before, after, context=0)
    return None if lines is None else tuple(_HUNK_HEADER.sub("@@", line) for line in lines)


def is_digest(value: Any) -> bool:
    return isinstance(value, str) and _DIGEST.fullmatch(value) is not None


def comparable_value(before: Any, after: Any) -> Any | None:
    """What stands for a modified value's before and after when scenarios compare: a text's edit, a
    digest's change; None for a value that compares as it is."""
    if is_digest(before) and is_digest(after):
        return DIGEST_CHANGED
    return text_edit(before, after)


def comparable_change(change: ObjectChange) -> ObjectChange:
    """`change` with each modified text standing as its edit, to compare with another scenario's."""
    return replace(change, fields=tuple(_comparable(f) for f in change.fields))


def _comparable(change: FieldChange) -> FieldChange:
    value = comparable_value(change.before, change.after)
    if change.kind is not FieldChangeKind.MODIFIED or value is None:
        return change
    return replace(change, before=None, after=value)
