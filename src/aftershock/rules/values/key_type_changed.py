"""Rule values-key-type-changed: a chart's default turns from a scalar into a map or list, or back.

The values diff sees `persistence: true` → `persistence: {enabled: true}` as a key removed and
keys added; this rule reads the chart's values.yaml at both refs and compares the shape (scalar,
map, list) of every key present at both.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.diff.values_keys import parse_values
from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Location,
    PathStep,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.model.errors import AftershockError
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.sources import line_of


def shape(value: Any) -> str | None:
    """ "a map", "a list" or "a scalar"; None for null (a key declared empty has no shape yet)."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        return "a map"
    if isinstance(value, list):
        return "a list"
    return "a scalar"


def reshaped(
    before: Mapping[str, Any], after: Mapping[str, Any], prefix: str = ""
) -> Iterator[tuple[str, str, str]]:
    """(dotted path, shape before, shape after) of each key present at both whose shape differs."""
    for key in sorted(set(before) & set(after), key=str):
        path = f"{prefix}{key}"
        old, new = before[key], after[key]
        was, now = shape(old), shape(new)
        if was is None or now is None:
            continue
        if was != now:
            yield path, was, now
        elif isinstance(old, Mapping) and isinstance(new, Mapping):
            yield from reshaped(old, new, f"{path}.")


def check(ctx: RuleContext) -> Iterator[Concern]:
    files = sorted(
        {
            (c.chart, c.file)
            for c in ctx.review.values_changes
            if c.chart is not None and c.file == f"{c.chart}/values.yaml"
        }
    )
    for chart, file in files:
        base, head = ctx.sources.base.get(file), ctx.sources.head.get(file)
        if base is None or head is None:
            continue
        try:
            before, after = parse_values(base, source=file), parse_values(head, source=file)
        except AftershockError:
            continue  # a values file that does not parse is reported where it is read
        for path, was, now in reshaped(before, after):
            yield _concern(chart, file, path, was, now, head)


def _concern(chart: str, file: str, path: str, was: str, now: str, text: str) -> Concern:
    leaf = path.rsplit(".", 1)[-1]
    found = text.find(f"{leaf}:")
    line = line_of(text, found) if found >= 0 else None
    return Concern(
        subject=Subject(SubjectKind.VALUES_KEY, f"{file}#{path}", f"{path} in {file}", "shape"),
        message=f"values key {path} of chart {chart} changes from {was} to {now}: a user's values "
        f"that set it as {was} now replace the new default whole or fail the render where a "
        f"template reads it as {now}",
        delta=Delta.INTRODUCED,
        location=Location(file, line),
        path=(PathStep("file", file, "changed"), PathStep("values_key", path, "changes shape")),
        facts=(Fact("key", path), Fact("before", was), Fact("after", now)),
        scope_paths=(chart, file),
    )


RULE = Rule(
    id="values-key-type-changed",
    title="Values key changes type",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="A key of a chart's own values.yaml, present at both refs, whose default changes shape: a "
        "scalar (bool, number, text) becomes a map or a list, a list becomes a map, or back. Keys "
        "declared null at either ref are left alone.",
        why="Users' values files and releases set the key as it was. Helm merges a user's scalar over the "
        "new map by replacing it: `persistence: true` wipes `persistence.size`, and a template reading "
        "`.Values.persistence.enabled` fails with `can't evaluate field enabled in type bool`, on the "
        "upgrade, for every install that set it. Confidence medium: no install may set the key.",
        example="    # values.yaml\n    -persistence: true\n    +persistence:\n    +  enabled: true\n"
        "    +  size: 1Gi",
        fix='Keep the old shape working: accept both in the template (`kindIs "bool"`), or add the '
        "new key beside the old one and deprecate the old; say it in the chart's upgrade notes and "
        "bump the chart's major version.",
    ),
)
