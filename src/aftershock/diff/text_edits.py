"""When two scenarios' changes of one object are the same change.

A scenario renders the same edit to a script or config file as the default does, while another
line of that text differs between them: a line listed in Go's random order, masked as varying in
one scenario and left as it was in another whose renders agreed by chance (diff/normalize.py). Such
texts compare by their *edit*: the unified diff of the field, one line of context, hunk headers
without line numbers. The graph and the review document both merge scenarios by this.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import replace
from typing import Any

from aftershock.diff.varying.lines import multiline_texts
from aftershock.model.diff import FieldChange, FieldChangeKind, ObjectChange

_HUNK_HEADER = re.compile(r"^@@ .* @@")


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
    """The edit from one text to another when either has several lines, else None."""
    lines = line_diff(before, after)
    return None if lines is None else tuple(_HUNK_HEADER.sub("@@", line) for line in lines)


def comparable_change(change: ObjectChange) -> ObjectChange:
    """`change` with each modified text standing as its edit, to compare with another scenario's."""
    return replace(change, fields=tuple(_comparable(f) for f in change.fields))


def _comparable(change: FieldChange) -> FieldChange:
    edit = text_edit(change.before, change.after)
    if change.kind is not FieldChangeKind.MODIFIED or edit is None:
        return change
    return replace(change, before=None, after=edit)
