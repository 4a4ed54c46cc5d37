"""The review-state store: reviews per repository and target, their findings' lifecycle, decisions, history.

    store = open_store(None, repo_root=repo)            # .aftershock/state.db, migrated on open
    with store.review_lock(repository, target):          # one review of a target at a time
        ... review ...
        recorded = store.record_review(record, scope)    # one transaction: all of it or nothing

A review is written whole in one transaction at the end, so a review killed mid-way leaves the
previous state as it was. Its lifecycle is computed inside that transaction from the last
non-failed review of the target (suppressed findings included, with their suppression) and the
active dismissals.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

from aftershock.model.state_lifecycle import Lifecycle, LifecycleState, Matchable, compare
from aftershock.model.state_mode import DEFAULT_LOCK_TIMEOUT_SECONDS
from aftershock.model.state_records import (
    Decision,
    FindingLike,
    ReviewMode,
    ReviewRecord,
    ReviewStatus,
    ReviewSummary,
    ReviewTarget,
    StoredFinding,
    SuppressedFinding,
    Suppression,
)
from aftershock.model.state_scope import ReviewScope
from aftershock.state import rows, schema
from aftershock.state.database import Database, connect, translated_errors
from aftershock.state.errors import StateError, StateUnavailableError
from aftershock.state.locks import TargetLock, acquire, lock_name
from aftershock.state.migrations import migrate

_MIN_FINGERPRINT_PREFIX = 8


@dataclass(frozen=True)
class RecordedReview:
    review_id: int
    lifecycle: Lifecycle


@dataclass(frozen=True)
class _Baseline:
    """The last non-failed review of a target: its head, the findings still present there, and
    the suppressions of those it suppressed (by fingerprint)."""

    head_sha: str | None
    findings: tuple[StoredFinding, ...]
    suppressions: Mapping[str, Suppression]


def open_store(
    location: str | Path | None = None,
    *,
    repo_root: Path | None = None,
    lock_timeout_seconds: float = DEFAULT_LOCK_TIMEOUT_SECONDS,
) -> StateStore:
    """Open (creating and migrating as needed) the state database at a path or URL.

    None means `.aftershock/state.db` under `repo_root`. Raises StateSchemaError for a database
    written by a newer aftershock, StateError when it cannot be reached.
    """
    database = connect(location, repo_root)
    with translated_errors(database.where):
        migrate(database.engine, database.where)
    return StateStore(database, lock_timeout_seconds)


class StateStore:
    def __init__(self, database: Database, lock_timeout_seconds: float) -> None:
        self._db = database
        self._lock_timeout = lock_timeout_seconds
        # lock name -> the thread that holds it through this store, and the lock
        self._held: dict[bytes, tuple[int, TargetLock]] = {}
        self._held_guard = threading.Lock()

    @property
    def engine(self) -> sa.Engine:
        return self._db.engine

    @property
    def where(self) -> str:
        return self._db.where

    def close(self) -> None:
        self._db.engine.dispose()

    @contextmanager
    def review_lock(
        self, repository: str, target: ReviewTarget, timeout_seconds: float | None = None
    ) -> Iterator[None]:
        """Hold the target's review lock; wait up to the timeout, then raise StateBusyError.

        Re-entrant within one thread, so `record_review` inside the block does not wait on itself;
        re-entering checks the lock is still held (a PostgreSQL session that died took it along)
        and raises StateUnavailableError when it is not.
        """
        name = lock_name(repository, f"{target.kind.value}:{target.name}")
        me = threading.get_ident()
        with self._held_guard:
            holder = self._held.get(name)
        if holder is not None and holder[0] == me:
            if not holder[1].held():
                raise StateUnavailableError(
                    f"the review lock of {target} in {repository} was lost with its database session",
                    where=self.where,
                    hint="the review has to run again under a new lock",
                )
            yield
            return
        lock = self._db.lock(name)
        timeout = self._lock_timeout if timeout_seconds is None else timeout_seconds
        with translated_errors(self.where):
            acquire(lock, timeout, f"{target} in {repository}", self.where)
        with self._held_guard:
            self._held[name] = (me, lock)
        try:
            yield
        finally:
            with self._held_guard:
                del self._held[name]
            with translated_errors(self.where):
                lock.release()

    def record_review(
        self, record: ReviewRecord, scope: ReviewScope | None = None
    ) -> RecordedReview:
        """Write the review, its findings with their lifecycle, and its verdicts, in one transaction.

        `scope` says what the review examined; without it a complete full review examined everything,
        and a partial or incremental one is taken to have examined nothing it did not find again.
        """
        with self.review_lock(record.repository, record.target), translated_errors(self.where):
            with self.engine.begin() as conn:
                baseline = _baseline(conn, record.repository, record.target)
                lifecycle = _lifecycle(
                    record, baseline, _dismissals(conn, record.repository, record.target), scope
                )
                inserted = conn.execute(
                    sa.insert(schema.reviews).values(rows.review_values(record, _now()))
                )
                assert inserted.inserted_primary_key is not None
                review_id = int(inserted.inserted_primary_key[0])
                finding_rows = [
                    rows.finding_values(review_id, position, entry, record.payloads)
                    for position, entry in enumerate(lifecycle.entries)
                ]
                if finding_rows:
                    conn.execute(sa.insert(schema.review_findings), finding_rows)
                verdict_rows = [rows.verdict_values(review_id, v) for v in record.verdicts]
                if verdict_rows and record.status is not ReviewStatus.FAILED:
                    conn.execute(sa.insert(schema.verdicts), verdict_rows)
        return RecordedReview(review_id, lifecycle)

    def preview(
        self,
        repository: str,
        target: ReviewTarget,
        findings: Sequence[FindingLike | StoredFinding],
        scope: ReviewScope | None = None,
        suppressed: Sequence[SuppressedFinding] = (),
    ) -> Lifecycle:
        """The lifecycle `findings` (and the `suppressed` ones) would get if recorded now as a
        complete review; writes nothing."""
        with translated_errors(self.where), self.engine.begin() as conn:
            baseline = _baseline(conn, repository, target)
            dismissals = _dismissals(conn, repository, target)
        return compare(
            baseline.findings,
            findings,
            dismissals,
            suppressed=suppressed,
            previous_suppressions=baseline.suppressions,
            previous_head=baseline.head_sha,
            in_scope=_examined(scope, whole=True),
        )

    def history(
        self, repository: str, target: ReviewTarget, limit: int | None = None
    ) -> tuple[ReviewSummary, ...]:
        """The reviews of a target, newest first, failed ones included."""
        table = schema.reviews
        query = (
            sa.select(table)
            .where(rows.target_filter(table, repository, target))
            .order_by(table.c.id.desc())
        )
        with translated_errors(self.where), self.engine.begin() as conn:
            return rows.summaries(conn, conn.execute(query.limit(limit) if limit else query).all())

    def latest_review(
        self, repository: str, target: ReviewTarget, *, include_failed: bool = False
    ) -> ReviewSummary | None:
        """The newest review of a target (by default the newest that did not fail), or None."""
        table = schema.reviews
        query = sa.select(table).where(rows.target_filter(table, repository, target))
        if not include_failed:
            query = query.where(table.c.status != ReviewStatus.FAILED.value)
        with translated_errors(self.where), self.engine.begin() as conn:
            found = rows.summaries(
                conn, conn.execute(query.order_by(table.c.id.desc()).limit(1)).all()
            )
        return found[0] if found else None

    def review_findings(self, review_id: int) -> tuple[tuple[LifecycleState, StoredFinding], ...]:
        """The findings recorded with a review, with their lifecycle state, in report order."""
        table = schema.review_findings
        query = sa.select(table).where(table.c.review_id == review_id).order_by(table.c.position)
        with translated_errors(self.where), self.engine.begin() as conn:
            return tuple(
                (LifecycleState(row.state), rows.finding_of(row)) for row in conn.execute(query)
            )

    def dismissals(self, repository: str, target: ReviewTarget) -> dict[str, Decision]:
        """The active dismissals of a target, by fingerprint."""
        with translated_errors(self.where), self.engine.begin() as conn:
            return _dismissals(conn, repository, target)

    def dismiss(
        self,
        repository: str,
        target: ReviewTarget,
        fingerprint: str,
        reason: str,
        by: str,
        at: datetime | None = None,
    ) -> Decision:
        """Dismiss a finding of the target's last review, on its current evidence.

        `fingerprint` may be a unique prefix of at least 8 characters. The finding is not raised
        again until its evidence digest changes.
        """
        if not reason.strip():
            raise StateError("a dismissal needs a reason", hint="pass --reason TEXT")
        with translated_errors(self.where), self.engine.begin() as conn:
            finding = _resolve_fingerprint(conn, repository, target, fingerprint)
            decision = Decision(
                finding.fingerprint, True, reason.strip(), by, at or _now(), finding.evidence_digest
            )
            _insert_decision(conn, repository, target, decision)
        return decision

    def reopen(
        self,
        repository: str,
        target: ReviewTarget,
        fingerprint: str,
        by: str = "",
        at: datetime | None = None,
    ) -> Decision:
        """Withdraw the active dismissal of a fingerprint (or of its unique prefix)."""
        with translated_errors(self.where), self.engine.begin() as conn:
            active = _dismissals(conn, repository, target)
            matches = _by_prefix(list(active), fingerprint)
            if len(matches) != 1:
                raise StateError(
                    f"no dismissed finding {fingerprint} in {target}"
                    if not matches
                    else f"fingerprint prefix {fingerprint} is ambiguous in {target}",
                    where=repository,
                    hint="pass the full fingerprint of a dismissed finding",
                )
            dismissal = active[matches[0]]
            decision = Decision(
                dismissal.fingerprint, False, "", by, at or _now(), dismissal.evidence_digest
            )
            _insert_decision(conn, repository, target, decision)
        return decision


def _now() -> datetime:
    return datetime.now(UTC)


def _examined(scope: ReviewScope | None, *, whole: bool) -> Callable[[Matchable], bool] | None:
    """What the review looked at again, as compare's `in_scope` (None: everything)."""
    if scope is not None:
        return lambda finding: isinstance(finding, StoredFinding) and scope.covers(finding)
    return None if whole else (lambda _finding: False)


def _lifecycle(
    record: ReviewRecord,
    baseline: _Baseline,
    dismissals: dict[str, Decision],
    scope: ReviewScope | None,
) -> Lifecycle:
    if record.status is ReviewStatus.FAILED:
        return Lifecycle(baseline.head_sha, ())  # a review that did not run resolves nothing
    whole = record.status is ReviewStatus.COMPLETE and record.mode is ReviewMode.FULL
    return compare(
        baseline.findings,
        record.findings,
        dismissals,
        suppressed=record.suppressed,
        previous_suppressions=baseline.suppressions,
        previous_head=baseline.head_sha,
        in_scope=_examined(scope, whole=whole),
    )


def _baseline(conn: sa.Connection, repository: str, target: ReviewTarget) -> _Baseline:
    reviews, findings = schema.reviews, schema.review_findings
    last = conn.execute(
        sa.select(reviews.c.id, reviews.c.head_sha)
        .where(
            rows.target_filter(reviews, repository, target),
            reviews.c.status != ReviewStatus.FAILED.value,
        )
        .order_by(reviews.c.id.desc())
        .limit(1)
    ).first()
    if last is None:
        return _Baseline(None, (), {})
    present = conn.execute(
        sa.select(findings)
        .where(findings.c.review_id == last.id, findings.c.state != LifecycleState.RESOLVED.value)
        .order_by(findings.c.position)
    ).all()
    suppressions = {
        row.fingerprint: suppression
        for row in present
        if (suppression := rows.suppression_of(row)) is not None
    }
    return _Baseline(last.head_sha, tuple(rows.finding_of(row) for row in present), suppressions)


def _dismissals(conn: sa.Connection, repository: str, target: ReviewTarget) -> dict[str, Decision]:
    table = schema.decisions
    latest: dict[str, Decision] = {}
    for row in conn.execute(
        sa.select(table).where(rows.target_filter(table, repository, target)).order_by(table.c.id)
    ):
        latest[row.fingerprint] = rows.decision_of(row)
    return {fingerprint: d for fingerprint, d in latest.items() if d.dismissed}


def _by_prefix(fingerprints: Sequence[str], wanted: str) -> list[str]:
    if wanted in fingerprints:
        return [wanted]
    if len(wanted) < _MIN_FINGERPRINT_PREFIX:
        return []
    return sorted({f for f in fingerprints if f.startswith(wanted)})


def _resolve_fingerprint(
    conn: sa.Connection, repository: str, target: ReviewTarget, wanted: str
) -> StoredFinding:
    findings = {f.fingerprint: f for f in _baseline(conn, repository, target).findings}
    matches = _by_prefix(list(findings), wanted)
    if len(matches) == 1:
        return findings[matches[0]]
    what = (
        f"no finding {wanted} in the last review of {target}"
        if not matches
        else f"fingerprint prefix {wanted} is ambiguous in {target}"
    )
    raise StateError(
        what, where=repository, hint="copy the fingerprint from the latest review report"
    )


def _insert_decision(
    conn: sa.Connection, repository: str, target: ReviewTarget, decision: Decision
) -> None:
    conn.execute(
        sa.insert(schema.decisions).values(
            repository=repository,
            target_kind=target.kind.value,
            target_name=target.name,
            fingerprint=decision.fingerprint,
            action="dismiss" if decision.dismissed else "reopen",
            reason=decision.reason,
            decided_by=decision.by,
            decided_at=rows.iso(decision.at),
            evidence_digest=decision.evidence_digest,
        )
    )
