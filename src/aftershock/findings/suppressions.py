"""Findings the repository silences: `aftershock.io/ignore` annotations on objects and the checked-in
dismissals file, both as they are at the base ref; and notices about suppressions a change adds.

    metadata:
      annotations:
        aftershock.io/ignore: "pss-host-namespaces,pod-resources: the node agent needs the host's PIDs"

An annotation silences the rules it names for the object that carries it (every scenario and side of
it: an object keeps its identity across them). Pure functions over the review and the findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aftershock.findings.dismissals import DismissalsFile
from aftershock.findings.model import Finding, SubjectKind
from aftershock.model.objects import RenderedObject
from aftershock.model.review import ChartReview, Review

IGNORE_ANNOTATION = "aftershock.io/ignore"


@dataclass(frozen=True)
class ObjectIgnore:
    """The rules one object's annotation silences, and why."""

    object_id: str  # as finding subjects name objects: `<chart>[@release]::<key id>`
    display: str
    rules: frozenset[str]
    reason: str


@dataclass(frozen=True)
class Suppressed:
    finding: Finding
    reason: str
    source: str  # "annotation aftershock.io/ignore" or the dismissals file, with its author


@dataclass(frozen=True)
class Suppressions:
    kept: tuple[Finding, ...]
    suppressed: tuple[Suppressed, ...]
    notices: tuple[str, ...]


def parse_ignore(value: object) -> tuple[frozenset[str], str] | None:
    """(rules, reason) of an annotation value `<rule>[,<rule>]: <reason>`; None when malformed."""
    if not isinstance(value, str) or ":" not in value:
        return None
    rules_text, reason = value.split(":", 1)
    rules = frozenset(r.strip() for r in rules_text.split(",") if r.strip())
    return (rules, reason.strip()) if rules and reason.strip() else None


def object_ignores(review: Review, side: str) -> tuple[dict[str, ObjectIgnore], tuple[str, ...]]:
    """The ignores the objects rendered at `side` ("base" or "head") carry, and lines on malformed ones."""
    ignores: dict[str, ObjectIgnore] = {}
    malformed: list[str] = []
    for chart in review.chart_reviews:
        for obj in chart.base_objects if side == "base" else chart.head_objects:
            value = _annotation(obj.body, IGNORE_ANNOTATION)
            if value is None:
                continue
            parsed = parse_ignore(value)
            if parsed is None:
                malformed.append(
                    f"{IGNORE_ANNOTATION} on {obj.key} at {side} is not `<rule>[,<rule>]: <reason>`: ignored"
                )
                continue
            object_id = _object_id(chart, obj)
            ignores[object_id] = ObjectIgnore(object_id, str(obj.key), *parsed)
    return ignores, tuple(dict.fromkeys(malformed))


def _object_id(chart: ChartReview, obj: RenderedObject) -> str:
    install = f"{chart.chart}@{chart.release}" if chart.release else chart.chart
    return f"{install}::{obj.key.id}"


def apply_suppressions(
    findings: Sequence[Finding],
    review: Review,
    base_file: DismissalsFile,
    head_file: DismissalsFile,
) -> Suppressions:
    """Silence what the base's annotations and dismissals file name; say what the head would add."""
    base_ignores, malformed = object_ignores(review, "base")
    head_ignores, head_malformed = object_ignores(review, "head")
    dismissed = {d.fingerprint: d for d in base_file.dismissals}
    kept: list[Finding] = []
    suppressed: list[Suppressed] = []
    notices = list(malformed + head_malformed)
    for finding in findings:
        ignore = (
            base_ignores.get(finding.subject.id)
            if finding.subject.kind is SubjectKind.OBJECT
            else None
        )
        entry = dismissed.get(finding.fingerprint)
        if ignore is not None and finding.rule_id in ignore.rules:
            suppressed.append(
                Suppressed(finding, ignore.reason, f"annotation {IGNORE_ANNOTATION} at base")
            )
        elif entry is not None and entry.evidence not in (None, finding.evidence_digest):
            kept.append(finding)
            notices.append(
                f"{finding.fingerprint[:12]} ({finding.rule_id}) is dismissed in the dismissals file, "
                "but its evidence changed since: raised again"
            )
        elif entry is not None:
            suppressed.append(
                Suppressed(finding, entry.reason, f"dismissals file, by {entry.by or 'unknown'}")
            )
        else:
            kept.append(finding)
    notices += _added(base_ignores, head_ignores, base_file, head_file)
    return Suppressions(tuple(kept), tuple(suppressed), tuple(notices))


def _added(
    base: Mapping[str, ObjectIgnore],
    head: Mapping[str, ObjectIgnore],
    base_file: DismissalsFile,
    head_file: DismissalsFile,
) -> Iterable[str]:
    """Suppressions the head adds: not honoured in this review (they are read at the base ref)."""
    for object_id, ignore in sorted(head.items()):
        added = ignore.rules - (base[object_id].rules if object_id in base else frozenset())
        if added:
            yield (
                f"this change adds {IGNORE_ANNOTATION} for {', '.join(sorted(added))} on {ignore.display}: "
                "not honoured until it is merged (suppressions are read at the base ref)"
            )
    known = {d.fingerprint for d in base_file.dismissals}
    for entry in head_file.dismissals:
        if entry.fingerprint not in known:
            yield (
                f"this change adds a dismissal of {entry.fingerprint[:12]} to the dismissals file: "
                "not honoured until it is merged (it is read at the base ref)"
            )


def _annotation(body: Any, name: str) -> Any:
    """An annotation's value; None when absent or when metadata or annotations are not maps (malformed input)."""
    metadata = body.get("metadata") if isinstance(body, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    return annotations.get(name) if isinstance(annotations, dict) else None
