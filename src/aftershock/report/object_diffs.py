"""The plain diff of a changed object beside its judgement: a unified diff of its YAML at base and at
head, as flux-local and argocd-diff-preview users read it (an added object is its whole YAML).

What a report may not show is hidden first, by the rules of its field changes: a Secret's values and
annotations as sizes, credential-named fields elsewhere as sizes (`diff.redact.shown_body`), then
every text the review saw flow into a Secret (`safety.secret_taint`). A hidden value that changed
says so at head (`<redacted: N bytes, changed>`), even when its size did not. A text of several
lines is written as a YAML block, line by line. A diff longer than `MAX_DIFF_LINES` is cut, and says
how much more there was. A field that varies from render to render (a random value) is left out, and
a line of a text that varies in order shows as `<unstable>`, as the review's field changes do.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

import yaml

from aftershock.diff.normalize import without_unstable
from aftershock.diff.redact import shown_body
from aftershock.model.diff import ObjectChange, ObjectChangeKind, RedactedValue
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.review import ChartReview, Review
from aftershock.safety.secret_taint import secret_taint

MAX_DIFF_LINES = 150
CONTEXT_LINES = 3


def object_diff(review: Review, chart_review: ChartReview, change: ObjectChange) -> str | None:
    """The unified diff of the object `change` names, base to head; None when neither side's body
    is at hand (a render that kept no objects), or when the render read what a Secret holds (values
    a Secret supplied, a Secret found by `lookup`): that may be anywhere in the object, unchanged
    lines included, which its field changes never show."""
    if _reads_secrets(chart_review):
        return None
    base_key = change.previous_key or change.key
    before = _body(chart_review.base_objects, base_key)
    after = _body(chart_review.head_objects, change.key)
    if chart_review.unstable:  # what varies render to render is no change here either
        before = (
            None if before is None else without_unstable(before, base_key, chart_review.unstable)
        )
        after = (
            None if after is None else without_unstable(after, change.key, chart_review.unstable)
        )
    if change.kind is ObjectChangeKind.ADDED:
        before = None
    elif change.kind is ObjectChangeKind.REMOVED:
        after = None
    if before is None and after is None:
        return None
    old_shown = shown_body(base_key, before) if before is not None else None
    new_shown = shown_body(change.key, after) if after is not None else None
    if before is not None and after is not None:
        new_shown = _changed_marked(before, after, old_shown, new_shown)
    old, new = _yaml(old_shown), _yaml(new_shown)
    lines = list(
        difflib.unified_diff(old, new, fromfile="base", tofile="head", n=CONTEXT_LINES, lineterm="")
    )[2 if old and new else 3 :]  # the ---/+++ header (an added object's @@ too) says nothing
    # scrubbed as one text: one search, and a secret of several lines is found whole
    shown = secret_taint(review).scrub_text("\n".join(lines[:MAX_DIFF_LINES]))
    if len(lines) > MAX_DIFF_LINES:
        shown += f"\n… {len(lines) - MAX_DIFF_LINES} more lines"
    return shown or None


def _reads_secrets(chart_review: ChartReview) -> bool:
    lookups = (*chart_review.base.lookups, *chart_review.head.lookups)
    private = chart_review.base_inputs.private or chart_review.head_inputs.private
    return private or any(found.startswith("Secret ") for found in lookups)


def _body(objects: tuple[RenderedObject, ...], key: ObjectKey) -> Mapping[str, Any] | None:
    for obj in objects:
        if obj.key == key and isinstance(obj.body, Mapping):
            return obj.body
    return None


class _Changed(RedactedValue):
    """A hidden value that differs between base and head."""


def _changed_marked(before: Any, after: Any, old: Any, new: Any) -> Any:
    """`new` (head's shown body) with each hidden value whose raw value changed marked `_Changed`."""
    if isinstance(new, RedactedValue) and isinstance(old, RedactedValue):
        return _Changed(new.bytes) if before != after else new
    if isinstance(new, Mapping) and isinstance(old, Mapping):
        if not isinstance(before, Mapping) or not isinstance(after, Mapping):
            return new
        return {
            k: _changed_marked(before.get(k), after.get(k), old.get(k), v) if k in old else v
            for k, v in new.items()
        }
    parts = (before, after, old, new)
    if all(isinstance(p, list) for p in parts) and len({len(p) for p in parts}) == 1:
        return [_changed_marked(*entry) for entry in zip(*parts)]
    return new


class _BlockDumper(yaml.SafeDumper):
    """Writes a text of several lines as a literal block, so a diff shows which line changed."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value.rstrip("\n") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _text)


def _yaml(body: Any) -> list[str]:
    if body is None:
        return []
    text = yaml.dump(
        _plain(body),
        Dumper=_BlockDumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=1000,
    )
    return text.splitlines()


def _plain(value: Any) -> Any:
    """JSON-like data YAML can dump: a hidden value as its size."""
    if isinstance(value, _Changed):
        return f"<redacted: {value.bytes} bytes, changed>"
    if isinstance(value, RedactedValue):
        return f"<redacted: {value.bytes} bytes>"
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
