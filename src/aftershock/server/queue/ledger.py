"""The delivery ledger in the state database: one row per GitHub delivery, deduplicated by its GUID.

A delivery is recorded before it is acknowledged, so a delivery GitHub sent twice is processed once
and one accepted before a crash is found again on restart. A row moves accepted -> queued ->
running -> a final outcome; a job starts only while its row is not final, so a job run twice (a
worker lost, a queue replayed) does its work once. The other review jobs of a pull request are
listed for `supersede` to judge which head is newest. Paused pull requests are kept here too.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from aftershock.model.state_records import ReviewTarget
from aftershock.server.queue.supersede import RivalReview
from aftershock.state import schema
from aftershock.state.database import translated_errors
from aftershock.state.store import StateStore


class Outcome(str, enum.Enum):
    ACCEPTED = "accepted"  # recorded and acknowledged, not yet handed to a queue
    QUEUED = "queued"
    RUNNING = "running"
    PONG = "pong"
    IGNORED = "ignored"
    REVIEWED = "reviewed"
    REPLIED = "replied"  # a chat command answered
    SUPERSEDED = "superseded"  # a newer review of the same pull request replaced it
    FAILED = "failed"

    @property
    def final(self) -> bool:
        return self not in (Outcome.ACCEPTED, Outcome.QUEUED, Outcome.RUNNING)


@dataclass(frozen=True)
class DeliveryRow:
    id: int
    delivery_id: str
    event: str
    action: str
    repository: str
    target_name: str | None
    head_sha: str | None
    outcome: Outcome
    detail: str
    job: dict[str, Any] | None
    received_at: str
    finished_at: str | None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Ledger:
    def __init__(self, store: StateStore) -> None:
        self._store = store
        # This process's ledger writes queue here rather than in SQLite's busy handler, whose sleeps
        # grow to 100 ms and would show in the time to acknowledge a delivery.
        self._writes = threading.Lock()

    def record(
        self,
        delivery_id: str,
        event: str,
        action: str,
        repository: str,
        target_name: str | None,
        head_sha: str | None,
        outcome: Outcome,
        detail: str,
        job: dict[str, Any] | None,
    ) -> bool:
        """Insert the delivery; False when a delivery with this GUID was recorded before."""
        table = schema.webhook_deliveries
        values = {
            "delivery_id": delivery_id,
            "event": event[:64],
            "action": action[:64],
            "repository": repository[:500],
            "target_name": target_name,
            "head_sha": head_sha,
            "outcome": outcome.value,
            "detail": detail,
            "job": job,
            "received_at": _now(),
            "finished_at": _now() if outcome.final else None,
        }
        with translated_errors(self._store.where), self._writes:
            try:
                with self._store.engine.begin() as conn:
                    if (
                        conn.scalar(sa.select(table.c.id).where(table.c.delivery_id == delivery_id))
                        is not None
                    ):
                        return False
                    conn.execute(sa.insert(table).values(values))
            except sa.exc.IntegrityError:
                return False  # a concurrent insert of the same GUID won
        return True

    def get(self, delivery_id: str) -> DeliveryRow | None:
        table = schema.webhook_deliveries
        with translated_errors(self._store.where), self._store.engine.begin() as conn:
            row = conn.execute(sa.select(table).where(table.c.delivery_id == delivery_id)).first()
        return None if row is None else _row(row)

    def mark(
        self,
        delivery_id: str,
        outcome: Outcome,
        detail: str | None = None,
        job: dict[str, Any] | None = None,
    ) -> None:
        """Set the delivery's outcome (and detail, job when given)."""
        values: dict[str, Any] = {
            "outcome": outcome.value,
            "finished_at": _now() if outcome.final else None,
        }
        if detail is not None:
            values["detail"] = detail
        if job is not None:
            values["job"] = job
        self._update(delivery_id, values, None)

    def settle(self, delivery_id: str, outcome: Outcome, detail: str) -> bool:
        """Write a final outcome the job's worker could not, unless one was written meanwhile."""
        unfinished = [o.value for o in Outcome if not o.final]
        values = {"outcome": outcome.value, "detail": detail, "finished_at": _now()}
        return self._update(delivery_id, values, unfinished) == 1

    def start(self, delivery_id: str) -> bool:
        """Mark the delivery running unless it already has a final outcome; True when the job should run."""
        unfinished = [o.value for o in Outcome if not o.final]
        return self._update(delivery_id, {"outcome": Outcome.RUNNING.value}, unfinished) == 1

    def rival_reviews(self, delivery_id: str) -> tuple[RivalReview, ...]:
        """The other review jobs recorded for the same pull request as this delivery, oldest first."""
        table = schema.webhook_deliveries
        with translated_errors(self._store.where), self._store.engine.begin() as conn:
            mine = conn.execute(sa.select(table).where(table.c.delivery_id == delivery_id)).first()
            if mine is None or mine.target_name is None:
                return ()
            others = conn.execute(
                sa.select(table.c.id, table.c.delivery_id, table.c.job)
                .where(
                    table.c.repository == mine.repository,
                    table.c.target_name == mine.target_name,
                    table.c.id != mine.id,
                    table.c.job.is_not(None),
                )
                .order_by(table.c.id)
            ).all()
        return tuple(
            RivalReview(row.delivery_id, row.job.get("head_sha"), later=row.id > mine.id)
            for row in others
            if isinstance(row.job, dict) and row.job.get("type") == "review"
        )

    def unfinished(self, outcomes: Iterable[Outcome]) -> tuple[DeliveryRow, ...]:
        """Deliveries whose outcome is one of `outcomes`, oldest first (for recovery on start)."""
        table = schema.webhook_deliveries
        wanted = [o.value for o in outcomes]
        with translated_errors(self._store.where), self._store.engine.begin() as conn:
            rows = conn.execute(
                sa.select(table).where(table.c.outcome.in_(wanted)).order_by(table.c.id)
            ).all()
        return tuple(_row(r) for r in rows)

    def ping(self) -> None:
        """Raise StateError when the database cannot be reached."""
        with translated_errors(self._store.where), self._store.engine.begin() as conn:
            conn.execute(sa.select(1))

    def counts(self) -> dict[str, int]:
        table = schema.webhook_deliveries
        with translated_errors(self._store.where), self._store.engine.begin() as conn:
            rows = conn.execute(
                sa.select(table.c.outcome, sa.func.count()).group_by(table.c.outcome)
            ).all()
        return {outcome: int(count) for outcome, count in rows}

    def paused(self, repository_key: str, target: ReviewTarget) -> bool:
        table = schema.paused_targets
        with translated_errors(self._store.where), self._store.engine.begin() as conn:
            paused = conn.scalar(
                sa.select(sa.func.count())
                .select_from(table)
                .where(*_target(table, repository_key, target))
            )
            return (paused or 0) > 0  # scalar() is None only when no row comes back

    def pause(self, repository_key: str, target: ReviewTarget, by: str) -> bool:
        """Pause automatic reviews of the target; False when they already were."""
        table = schema.paused_targets
        with translated_errors(self._store.where), self._store.engine.begin() as conn:
            if conn.scalar(
                sa.select(sa.func.count())
                .select_from(table)
                .where(*_target(table, repository_key, target))
            ):
                return False
            conn.execute(
                sa.insert(table).values(
                    repository=repository_key,
                    target_kind=target.kind.value,
                    target_name=target.name,
                    paused_by=by,
                    paused_at=_now(),
                )
            )
        return True

    def resume(self, repository_key: str, target: ReviewTarget) -> bool:
        """Resume automatic reviews of the target; False when they were not paused."""
        table = schema.paused_targets
        with translated_errors(self._store.where), self._store.engine.begin() as conn:
            return (
                conn.execute(
                    sa.delete(table).where(*_target(table, repository_key, target))
                ).rowcount
                > 0
            )

    def _update(
        self, delivery_id: str, values: dict[str, Any], only_outcomes: list[str] | None
    ) -> int:
        table = schema.webhook_deliveries
        query = sa.update(table).where(table.c.delivery_id == delivery_id)
        if only_outcomes is not None:
            query = query.where(table.c.outcome.in_(only_outcomes))
        with translated_errors(self._store.where), self._writes, self._store.engine.begin() as conn:
            return int(conn.execute(query.values(values)).rowcount)


def _target(table: sa.Table, repository_key: str, target: ReviewTarget) -> tuple[Any, ...]:
    return (
        table.c.repository == repository_key,
        table.c.target_kind == target.kind.value,
        table.c.target_name == target.name,
    )


def _row(row: Any) -> DeliveryRow:
    return DeliveryRow(
        id=row.id,
        delivery_id=row.delivery_id,
        event=row.event,
        action=row.action,
        repository=row.repository,
        target_name=row.target_name,
        head_sha=row.head_sha,
        outcome=Outcome(row.outcome),
        detail=row.detail,
        job=row.job,
        received_at=row.received_at,
        finished_at=row.finished_at,
    )
