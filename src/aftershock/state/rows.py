"""Conversions between the state tables' rows and the records of `aftershock.model.state_records`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from aftershock.model.state_lifecycle import LifecycleEntry, LifecycleState
from aftershock.model.state_records import (
    Decision,
    ReviewMode,
    ReviewRecord,
    ReviewStatus,
    ReviewSummary,
    ReviewTarget,
    StoredFinding,
    StoredVerdict,
    Suppression,
    TargetKind,
    UnreviewedPart,
    stored_finding,
)
from aftershock.state import schema


def iso(moment: datetime) -> str:
    return moment.isoformat()


def target_filter(table: sa.Table, repository: str, target: ReviewTarget) -> sa.ColumnElement[bool]:
    return sa.and_(
        table.c.repository == repository,
        table.c.target_kind == target.kind.value,
        table.c.target_name == target.name,
    )


def review_values(record: ReviewRecord, recorded_at: datetime) -> dict[str, Any]:
    return {
        "repository": record.repository,
        "target_kind": record.target.kind.value,
        "target_name": record.target.name,
        "base_sha": record.base_sha,
        "head_sha": record.head_sha,
        "status": record.status.value,
        "not_reviewed": [{"part": p.part, "reason": p.reason} for p in record.not_reviewed],
        "aftershock_version": record.aftershock_version,
        "config_hash": record.config_hash,
        "started_at": iso(record.started_at),
        "recorded_at": iso(recorded_at),
        "mode": record.mode.value,
        "since_sha": record.since_sha,
    }


def finding_values(
    review_id: int, position: int, entry: LifecycleEntry, payloads: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    # `entry.finding` is typed by the little lifecycle matching needs; it holds what `compare` was
    # given: Findings or StoredFindings
    finding = stored_finding(entry.finding, payloads.get(entry.fingerprint))  # type: ignore[arg-type]
    return {
        "review_id": review_id,
        "position": position,
        "fingerprint": finding.fingerprint,
        "evidence_digest": finding.evidence_digest,
        "rule_id": finding.rule_id,
        "severity": finding.severity,
        "title": finding.title,
        "subject_kind": finding.subject_kind,
        "subject_id": finding.subject_id,
        "subject_display": finding.subject_display,
        "message": finding.message,
        "actionable": finding.actionable,
        "state": entry.state.value,
        "carried_forward": entry.carried_forward,
        "resolved_since": entry.resolved_since,
        "payload": dict(finding.payload) if finding.payload is not None else None,
        "suppression_reason": entry.suppression.reason if entry.suppression else None,
        "suppression_source": entry.suppression.source if entry.suppression else None,
    }


def suppression_of(row: sa.Row[Any]) -> Suppression | None:
    """What silenced a finding row in state "suppressed"; None for every other row."""
    if row.state != LifecycleState.SUPPRESSED.value:
        return None
    return Suppression(row.suppression_reason or "", row.suppression_source or "")


def verdict_values(review_id: int, verdict: StoredVerdict) -> dict[str, Any]:
    return {
        "review_id": review_id,
        "kind": verdict.kind,
        "level": verdict.level,
        "up_to_sha": verdict.up_to_sha,
        "rationale": verdict.rationale,
        "payload": dict(verdict.payload) if verdict.payload is not None else None,
    }


def finding_of(row: sa.Row[Any]) -> StoredFinding:
    return StoredFinding(
        fingerprint=row.fingerprint,
        evidence_digest=row.evidence_digest,
        rule_id=row.rule_id,
        severity=row.severity,
        title=row.title,
        subject_kind=row.subject_kind,
        subject_id=row.subject_id,
        subject_display=row.subject_display,
        message=row.message,
        actionable=bool(row.actionable),
        payload=row.payload,
    )


def verdict_of(row: sa.Row[Any]) -> StoredVerdict:
    return StoredVerdict(row.kind, row.level, row.up_to_sha, row.rationale, row.payload)


def decision_of(row: sa.Row[Any]) -> Decision:
    return Decision(
        fingerprint=row.fingerprint,
        dismissed=row.action == "dismiss",
        reason=row.reason,
        by=row.decided_by,
        at=datetime.fromisoformat(row.decided_at),
        evidence_digest=row.evidence_digest,
    )


def summary_of(
    row: sa.Row[Any], counts: Mapping[str, int], verdicts: Sequence[StoredVerdict]
) -> ReviewSummary:
    return ReviewSummary(
        id=row.id,
        repository=row.repository,
        target=ReviewTarget(TargetKind(row.target_kind), row.target_name),
        base_sha=row.base_sha,
        head_sha=row.head_sha,
        status=ReviewStatus(row.status),
        mode=ReviewMode(row.mode),
        since_sha=row.since_sha,
        aftershock_version=row.aftershock_version,
        config_hash=row.config_hash,
        started_at=datetime.fromisoformat(row.started_at),
        recorded_at=datetime.fromisoformat(row.recorded_at),
        not_reviewed=tuple(UnreviewedPart(p["part"], p["reason"]) for p in row.not_reviewed),
        counts=dict(counts),
        verdicts=tuple(verdicts),
    )


def summaries(conn: sa.Connection, rows: Sequence[sa.Row[Any]]) -> tuple[ReviewSummary, ...]:
    """Summaries of these review rows, with their finding counts by state and their verdicts."""
    ids = [row.id for row in rows]
    if not ids:
        return ()
    findings = schema.review_findings
    counted = conn.execute(
        sa.select(findings.c.review_id, findings.c.state, sa.func.count())
        .where(findings.c.review_id.in_(ids))
        .group_by(findings.c.review_id, findings.c.state)
    )
    counts: dict[int, dict[str, int]] = {review_id: {} for review_id in ids}
    for review_id, state, number in counted:
        counts[review_id][state] = number
    verdicts: dict[int, list[StoredVerdict]] = {review_id: [] for review_id in ids}
    table = schema.verdicts
    for row in conn.execute(
        sa.select(table).where(table.c.review_id.in_(ids)).order_by(table.c.review_id, table.c.kind)
    ):
        verdicts[row.review_id].append(verdict_of(row))
    return tuple(summary_of(row, counts[row.id], verdicts[row.id]) for row in rows)
