"""The `lifecycle` section of the review document: how the review was chosen, and each finding as new,
retained, resolved, dismissed or suppressed (schema: `lifecycle` in aftershock/schema/review.schema.json)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aftershock.model.state_lifecycle import LifecycleEntry, LifecycleState
from aftershock.model.state_records import Decision, stored_finding
from aftershock.verdict.model import NO_ACTIONABLE_FINDINGS

if TYPE_CHECKING:
    from aftershock.judgement.stateful import StatefulReview


def lifecycle_document(state: StatefulReview) -> dict[str, Any]:
    """The `lifecycle` section: how this review was chosen, and each finding as new, retained, resolved,
    dismissed or suppressed."""
    lifecycle, plan = state.lifecycle, state.plan
    groups = {s.value: [_lifecycle_item(e) for e in lifecycle.in_state(s)] for s in LifecycleState}
    raised = [
        e for e in lifecycle.entries if e.state in (LifecycleState.NEW, LifecycleState.RETAINED)
    ]
    actionable = sum(stored_finding(e.finding).actionable for e in raised)  # type: ignore[arg-type]
    return {
        "target": {
            "kind": state.target.kind.value,
            "name": state.target.name,
            "display": str(state.target),
        },
        "review_id": state.review_id,
        "status": state.status.value,
        "mode": plan.mode.value,
        "reason": plan.reason,
        "force_pushed": plan.force_pushed,
        "since": plan.since_sha,
        "previous_head": lifecycle.previous_head,
        "headline": NO_ACTIONABLE_FINDINGS
        if actionable == 0
        else f"{actionable} actionable finding(s)",
        "counts": {key: len(items) for key, items in groups.items()},
        "carried_forward": sum(e.carried_forward for e in lifecycle.current),
        **groups,
    }


def _lifecycle_item(entry: LifecycleEntry) -> dict[str, Any]:
    finding = stored_finding(entry.finding)  # type: ignore[arg-type]
    return {
        "fingerprint": finding.fingerprint,
        "evidence_digest": finding.evidence_digest,
        "rule": finding.rule_id,
        "severity": finding.severity,
        "title": finding.title,
        "subject": finding.subject_display,
        "message": finding.message,
        "actionable": finding.actionable,
        "carried_forward": entry.carried_forward,
        "resolved_since": entry.resolved_since,
        "dismissal": _decision(entry.dismissal),
        "lapsed_dismissal": _decision(entry.lapsed_dismissal),
        "suppression": None
        if entry.suppression is None
        else {"reason": entry.suppression.reason, "source": entry.suppression.source},
        "suppressed_since": entry.suppressed_since,
    }


def _decision(decision: Decision | None) -> dict[str, Any] | None:
    if decision is None:
        return None
    return {
        "reason": decision.reason,
        "by": decision.by,
        "at": decision.at.isoformat(),
        "evidence_digest": decision.evidence_digest,
    }
