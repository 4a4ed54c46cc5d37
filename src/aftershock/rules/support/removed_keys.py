"""Keys removed from a chart's defaults, and the concern that one head place still names such a key
(shared by values-removed-key-used and values-stale-key-reference)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import (
    Delta,
    Fact,
    Location,
    PathStep,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.model.units import ValuesKeyChange, ValuesKeyChangeKind
from aftershock.rules.model import Concern, RuleContext


def removed_default_keys(ctx: RuleContext) -> Iterator[ValuesKeyChange]:
    """Keys removed from a chart's own values.yaml, skipping paths with quoted segments."""
    for change in ctx.review.values_changes:
        if (
            change.kind is ValuesKeyChangeKind.REMOVED
            and change.chart is not None
            and change.file == f"{change.chart}/values.yaml"
            and '"' not in change.path
        ):
            yield change


def removed_key_named_at(
    change: ValuesKeyChange,
    place: tuple[str, int],
    relation: str,
    message: str,
    facts: tuple[Fact, ...],
    severity: Severity | None = None,
) -> Concern:
    """The concern that head's `place` (file, line) still names the removed key: one per key and file
    (the file is the subject's facet), introduced by the change."""
    path, line = place
    return Concern(
        subject=Subject(
            SubjectKind.VALUES_KEY,
            f"{change.file}#{change.path}",
            f"{change.path} in {change.file}",
            path,
        ),
        message=message,
        delta=Delta.INTRODUCED,
        severity=severity,
        location=Location(path, line),
        path=(
            PathStep("file", change.file, "changed"),
            PathStep("values_key", change.path, "removed"),
            PathStep("file", path, relation),
        ),
        facts=facts,
        scope_paths=(change.file, path),
    )
