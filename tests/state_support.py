"""Helpers for the review-state tests: real findings, review records, and a database per test.

`state_location` is a fixture parametrised over a SQLite file in tmp and, when a server answers
at 127.0.0.1:5432 (user postgres, database test, trust auth), a fresh PostgreSQL schema.
"""

from __future__ import annotations

import functools
import uuid
from datetime import UTC, datetime

import pytest

from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Finding,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.model.state_records import (
    ReviewMode,
    ReviewRecord,
    ReviewStatus,
    ReviewTarget,
    StoredVerdict,
)

PG_DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test connect_timeout=3"
PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
REPO = "github.com/acme/platform"
PR = ReviewTarget.pull_request(12)
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def finding(
    rule: str,
    subject: str,
    facts: dict | None = None,
    *,
    kind: SubjectKind = SubjectKind.OBJECT,
    severity: Severity = Severity.MEDIUM,
) -> Finding:
    return Finding(
        rule_id=rule,
        title=f"{rule} title",
        severity=severity,
        confidence=Confidence.HIGH,
        category=Category.SECURITY,
        evidence=Evidence.OBSERVED,
        delta=Delta.INTRODUCED,
        subject=Subject(kind, subject, subject.split("::")[-1]),
        message=f"{rule} on {subject}",
        facts=tuple(Fact(name, value) for name, value in (facts or {}).items()),
    )


def record(
    head: str,
    findings: tuple = (),
    *,
    status: ReviewStatus = ReviewStatus.COMPLETE,
    base: str = "b" * 40,
    target: ReviewTarget = PR,
    mode: ReviewMode = ReviewMode.FULL,
    not_reviewed: tuple = (),
) -> ReviewRecord:
    return ReviewRecord(
        repository=REPO,
        target=target,
        base_sha=base,
        head_sha=head,
        status=status,
        aftershock_version="0.1.0",
        config_hash="cfg1",
        started_at=T0,
        mode=mode,
        not_reviewed=not_reviewed,
        findings=findings,
        verdicts=(StoredVerdict("merge_risk", "low", head, "observed: one change"),),
    )


@functools.cache
def postgres_problem() -> str | None:
    """Why PostgreSQL cannot be used for these tests, or None when it can."""
    try:
        import psycopg
    except ImportError as exc:
        return f"psycopg is not installed: {exc}"
    try:
        psycopg.connect(PG_DSN).close()
    except psycopg.Error as exc:
        return f"no PostgreSQL at 127.0.0.1:5432: {str(exc).strip().splitlines()[0]}"
    return None


@pytest.fixture(params=["sqlite", "postgresql"])
def state_location(request, tmp_path):
    """A path or URL to an empty state database of each kind."""
    if request.param == "sqlite":
        yield str(tmp_path / "state" / "state.db")
        return
    problem = postgres_problem()
    if problem:
        pytest.skip(problem)
    import psycopg

    schema = f"aftershock_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
