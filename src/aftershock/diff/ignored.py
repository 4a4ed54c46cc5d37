"""Fields a review leaves out of "what changed" and the rollout rules: a chart's version labels and
checksum annotations, which every chart bump changes on every object (`review.ignore_fields`).

A pattern is a field path as the diff writes it (`metadata.labels["helm.sh/chart"]`), `*` standing
for any text, matched against the end of a changed field's path: `metadata.labels.chart` matches an
object's label and its pod template's (`spec.template.metadata.labels.chart`). Ignored fields stay in
the diff and the JSON (`"ignored": true`); only what the review says of them changes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from aftershock.model.diff import FieldChange, ObjectChange

DEFAULT_IGNORED_FIELDS = (
    'metadata.labels["helm.sh/chart"]',
    "metadata.labels.chart",
    'metadata.labels["app.kubernetes.io/version"]',
    'metadata.annotations["checksum/*"]',
)


@functools.lru_cache(maxsize=64)
def _pattern(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    alternatives = "|".join(re.escape(p).replace(r"\*", ".*") for p in patterns)
    return re.compile(rf"(?:^|\.)(?:{alternatives})$")


def field_ignored(path: str, patterns: Sequence[str]) -> bool:
    pattern = _pattern(tuple(patterns))
    return pattern is not None and pattern.search(path) is not None


def marked(change: ObjectChange, patterns: Sequence[str]) -> ObjectChange:
    """`change` with each field the patterns match marked as ignored."""
    if not patterns or not change.fields:
        return change
    fields = tuple(
        replace(f, ignored=True) if field_ignored(f.path, patterns) else f for f in change.fields
    )
    # `ignored` takes no part in equality: a marked field equals the unmarked one
    return replace(change, fields=fields) if any(f.ignored for f in fields) else change


def only_ignored(fields: Iterable[FieldChange]) -> bool:
    """Whether every field of a change is ignored (and there is one)."""
    found = list(fields)
    return bool(found) and all(f.ignored for f in found)
