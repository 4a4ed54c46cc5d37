"""What the report of a recorded review presents, from its lifecycle: the findings raised at head
(carried-forward ones included, the dismissed and the suppressed left out) and the suppressed ones
(carried-forward ones included), each carried finding rebuilt from the document stored with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Finding,
    Location,
    PathStep,
    Severity,
    Subject,
    SubjectKind,
    sort_key,
)
from aftershock.findings.suppressions import Suppressed
from aftershock.judgement.result import Judgement
from aftershock.model.state_lifecycle import Lifecycle, LifecycleState
from aftershock.model.state_records import StoredFinding, SuppressedFinding, Suppression


def suppressed_findings(judgement: Judgement) -> tuple[SuppressedFinding, ...]:
    """The findings the repository silenced, as the state store keeps them."""
    return tuple(
        SuppressedFinding(s.finding, Suppression(s.reason, s.source)) for s in judgement.suppressed
    )


def raised_findings(current: Sequence[Finding], lifecycle: Lifecycle) -> tuple[Finding, ...]:
    """What a report raises at head: current findings and carried-forward ones, less the dismissed
    and the suppressed, in report order."""
    dismissed = {entry.fingerprint for entry in lifecycle.dismissed}
    carried = [
        finding_from_document(entry.finding.payload)
        for entry in lifecycle.current
        if entry.carried_forward
        and entry.state in (LifecycleState.NEW, LifecycleState.RETAINED)
        and isinstance(entry.finding, StoredFinding)
        and entry.finding.payload is not None
    ]
    return tuple(
        sorted([f for f in current if f.fingerprint not in dismissed] + carried, key=sort_key)
    )


def carried_suppressed(lifecycle: Lifecycle) -> tuple[Suppressed, ...]:
    """The suppressed findings an incremental review carried forward, as the report lists them."""
    return tuple(
        Suppressed(
            finding_from_document(entry.finding.payload),
            entry.suppression.reason,
            entry.suppression.source,
        )
        for entry in lifecycle.suppressed
        if entry.carried_forward
        and entry.suppression is not None
        and isinstance(entry.finding, StoredFinding)
        and entry.finding.payload is not None
    )


def finding_from_document(doc: Mapping[str, Any]) -> Finding:
    """A Finding back from its `finding_document` (as stored with a review)."""
    subject, location = doc["subject"], doc.get("location")
    return Finding(
        rule_id=doc["rule"],
        title=doc["title"],
        severity=Severity(doc["severity"]),
        confidence=Confidence(doc["confidence"]),
        category=Category(doc["category"]),
        evidence=Evidence(doc["evidence"]),
        delta=Delta(doc["delta"]),
        subject=Subject(
            SubjectKind(subject["kind"]),
            subject["id"],
            subject["display"],
            subject.get("facet", ""),
        ),
        message=doc["message"],
        location=Location(location["file"], location.get("line")) if location else None,
        path=tuple(
            PathStep(step["kind"], step["id"], step["relation"]) for step in doc.get("path", ())
        ),
        facts=tuple(Fact(fact["name"], fact["value"]) for fact in doc.get("facts", ())),
    )
