"""The webhook service's work behind the HTTP layer: accept a verified delivery, dispatch its job, recover.

accept()    records the delivery in the ledger (deduplicated) and says what it became: the only
            work done before GitHub gets its answer, so acknowledgements stay fast;
dispatch()  runs after the answer: announces a queued check run for a push, then hands the
            job to the queue; the ledger row moves from accepted to queued;
recover()   on start, dispatches deliveries accepted but never queued (and, with the embedded
            pool, those queued or running when the last process stopped);
reconcile() while running, dispatches deliveries left accepted because the queue was down,
            records and dispatches those spooled while the state database was down
            (see `reconcile.Reconciler` and `spool`), and settles the others;
settle()    writes how a job ended when its worker could not (the database was down after the
            job's last write): the queue's result of each delivery still queued or running.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from aftershock.server.github.events import (
    Intake,
    IntakeKind,
    MalformedPayload,
    RoutingOptions,
    route,
)
from aftershock.server.github.github_auth import GitHubAccess
from aftershock.server.metrics import Metrics, sample
from aftershock.server.queue.jobs import JobQueue
from aftershock.server.queue.jobspec import Job, ReviewJob, Trigger, job_from_json, job_to_json
from aftershock.server.queue.ledger import Ledger, Outcome
from aftershock.server.queue.spool import DeliverySpool, spool_owner
from aftershock.server.settings import ServiceSettings
from aftershock.state.errors import StateError
from aftershock.state.store import StateStore

_log = logging.getLogger("aftershock.server")


@dataclass(frozen=True)
class Accepted:
    """What became of a delivery: its first outcome, why, and the job to dispatch (if any)."""

    outcome: Outcome
    reason: str
    duplicate: bool = False
    job: Job | None = None


class WebhookService:
    def __init__(
        self,
        settings: ServiceSettings,
        store: StateStore,
        queue: JobQueue,
        access: GitHubAccess | None,
        metrics: Metrics,
        *,
        embedded_queue: bool,
    ) -> None:
        self.settings = settings
        self.store = store
        self.ledger = Ledger(store)
        self.spool = DeliverySpool(settings.spool_folder, spool_owner(store.where))
        self.queue = queue
        self.access = access
        self.metrics = metrics
        self._embedded = embedded_queue
        self._guard = threading.Lock()
        self._dispatching: set[str] = set()  # delivery ids being dispatched by some thread
        self._routing = RoutingOptions(
            settings.mention,
            settings.review_drafts,
            settings.app.app_id if settings.app is not None else None,
        )

    def accept(self, event: str, delivery_id: str, payload: object) -> Accepted:
        intake = self._paused(route(event, delivery_id, payload, self._routing))
        outcome = {
            IntakeKind.PONG: Outcome.PONG,
            IntakeKind.IGNORE: Outcome.IGNORED,
            IntakeKind.JOB: Outcome.ACCEPTED,
        }[intake.kind]
        job_json = job_to_json(intake.job) if intake.job is not None else None
        fresh = self.ledger.record(
            delivery_id,
            event,
            intake.action,
            intake.repository,
            intake.target_name,
            intake.head_sha,
            outcome,
            intake.reason,
            job_json,
        )
        if not fresh:
            self.metrics.increment(
                sample("aftershock_deliveries_total", event=event or "none", outcome="duplicate")
            )
            return Accepted(outcome, "duplicate delivery: already recorded", duplicate=True)
        self.metrics.increment(
            sample("aftershock_deliveries_total", event=event or "none", outcome=outcome.value)
        )
        return Accepted(outcome, intake.reason, job=intake.job)

    def _paused(self, intake: Intake) -> Intake:
        job = intake.job
        if not isinstance(job, ReviewJob) or job.trigger is not Trigger.PUSH:
            return intake
        if not self.ledger.paused(
            self.settings.repository_key(job.pull.repository), job.pull.target
        ):
            return intake
        return replace(
            intake,
            kind=IntakeKind.IGNORE,
            reason="automatic reviews are paused on this pull request",
            job=None,
        )

    def dispatch(self, job: Job) -> None:
        """Announce the queued check run of a push review (best effort), then queue the job; a job the
        queue refuses is left accepted for `reconcile`. A delivery is dispatched once: by one thread at
        a time, and only while the ledger still has it accepted."""
        with self._guard:
            if job.delivery_id in self._dispatching:
                return  # the request that accepted it, or the reconciler, is dispatching it
            self._dispatching.add(job.delivery_id)
        try:
            row = self.ledger.get(job.delivery_id)
            if row is not None and row.outcome is not Outcome.ACCEPTED:
                return  # handed over meanwhile
            self._queue(self._announce(job))
        except StateError as error:
            _log.error(
                "could not dispatch %s, left accepted until the state database answers: %s",
                job.delivery_id,
                error.line(),
            )
        finally:
            with self._guard:
                self._dispatching.discard(job.delivery_id)

    def _queue(self, job: Job) -> None:
        self.ledger.mark(job.delivery_id, Outcome.QUEUED, job=job_to_json(job))
        try:
            self.queue.submit(job)
        except Exception as error:
            self.ledger.mark(job.delivery_id, Outcome.ACCEPTED, job=job_to_json(job))
            _log.error(
                "could not queue %s, left accepted until the queue answers: %s",
                job.delivery_id,
                error,
            )

    def _announce(self, job: Job) -> Job:
        if (
            not isinstance(job, ReviewJob)
            or not job.head_sha
            or job.check_run_id is not None
            or self.access is None
        ):
            return job
        try:
            client = self.access.client(job.pull.installation_id)
            check_run_id, _ = client.check_run_for(  # one an earlier dispatch made, if it did
                job.pull.repository,
                job.head_sha,
                job.delivery_id,
                "queued",
                "Queued",
                "Waiting for a review worker.",
            )
            return replace(job, check_run_id=check_run_id)
        except Exception as error:
            _log.warning("could not announce the check run of %s: %s", job.delivery_id, error)
            return job

    def drain_spool(self) -> int:
        """Record the deliveries spooled while the database was down, and dispatch their jobs;
        returns how many were recorded. Stops at the first that the database still refuses. Each is
        claimed first, so services sharing the spool record it once (see `spool`)."""
        recorded = 0
        for spooled in self.spool.claim():
            try:
                accepted = self.accept(spooled.event, spooled.delivery_id, spooled.payload)
            except MalformedPayload as error:  # checked before it was kept: a file edited since
                _log.error("spooled delivery %s dropped: %s", spooled.delivery_id, error)
                self.spool.drop(spooled)
                continue
            except BaseException as error:
                self.spool.release(spooled)
                if isinstance(error, StateError):
                    break  # still down: the next round tries again
                raise
            self.spool.drop(spooled)  # in the ledger now: a second accept is a duplicate
            recorded += 1
            if accepted.job is not None:
                self.dispatch(accepted.job)
        if recorded:
            _log.warning(
                "recorded %d delivery(ies) kept while the state database was down", recorded
            )
        return recorded

    def reconcile(self, grace_seconds: float) -> int:
        """Drain the spool; when the queue answers, dispatch deliveries accepted more than
        `grace_seconds` ago; returns how many were dispatched."""
        self.drain_spool()
        if not self.queue.healthy():
            return 0
        self.settle()
        cutoff = (datetime.now(UTC) - timedelta(seconds=grace_seconds)).isoformat(
            timespec="milliseconds"
        )
        rows = [
            row for row in self.ledger.unfinished([Outcome.ACCEPTED]) if row.received_at <= cutoff
        ]
        for row in rows:
            self._dispatch_row(row.delivery_id, row.job)
        return len(rows)

    def _dispatch_row(self, delivery_id: str, job: dict[str, Any] | None) -> None:
        if job is None:
            self.ledger.mark(delivery_id, Outcome.FAILED, "recorded without a job")
        else:
            self.dispatch(job_from_json(job))

    def settle(self) -> int:
        """Write the outcomes the queue holds of jobs the ledger has queued or running; how many."""
        rows = self.ledger.unfinished([Outcome.QUEUED, Outcome.RUNNING])
        if not rows:
            return 0
        try:
            results = self.queue.results([row.delivery_id for row in rows])
        except Exception as error:  # the queue is down: the next round asks again
            _log.warning("could not read the queue's job results: %s", error)
            return 0
        settled = 0
        for delivery_id, result in results.items():
            settled += self.ledger.settle(delivery_id, result.outcome, result.detail)
        if settled:
            _log.warning(
                "recorded the outcome of %d job(s) whose worker could not (the state database "
                "was down)",
                settled,
            )
        return settled

    def recover(self) -> int:
        """Dispatch deliveries left unfinished by a previous process; returns how many."""
        _log.info(
            "deliveries that arrive while the state database is down are kept in %s "
            "(AFTERSHOCK_SPOOL_DIR)",
            self.spool.folder,
        )
        self.drain_spool()
        if not self._embedded:
            self.settle()  # a worker's results from while this service was away
        stale = [Outcome.ACCEPTED] + ([Outcome.QUEUED, Outcome.RUNNING] if self._embedded else [])
        rows = self.ledger.unfinished(stale)
        for row in rows:
            if row.outcome is Outcome.ACCEPTED or row.job is None:
                self._dispatch_row(row.delivery_id, row.job)
            else:
                self.queue.submit(job_from_json(row.job))
        return len(rows)

    def healthy(self) -> bool:
        try:
            self.ledger.ping()
        except Exception:
            return False
        return self.queue.healthy()
