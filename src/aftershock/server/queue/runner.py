"""Running one job: claim it in the ledger, review or answer a command, and record the final outcome.

One `JobRunner` per process (the service's pool threads, or an `aftershock worker`). The ledger's
copy of a job is the one that runs, so a retried job reuses the check run its first attempt made.
Each thread keeps one renderer open across jobs; Helm's library loads once per render worker.
A job that fails, of any kind, is logged as one error line and counted in
`aftershock_job_failures_total` by kind and cause (github, error, internal, state).

A job that loses the state database (refused, reset, shut down: `StateUnavailableError`) runs again
from the start, up to `state_attempts` times with a backoff that doubles: a review writes its
record in one transaction and publishes after it, so an attempt that failed wrote nothing to redo.
Its outcome, once known, is written with the same backoff, never by running the job again. When
the attempts run out, the check run fails with one line saying why (a review that could not be
recorded never shows as passed) and the failure is recorded if the database answers in time. An
outcome still unwritten goes back to the queue in the `JobResult` (RQ keeps it as the job's result,
the embedded pool in memory), and the service's reconciler writes it once the database answers.
"""

from __future__ import annotations

import logging
import time

from aftershock.model.errors import AftershockError
from aftershock.server.command_run import run_command_job
from aftershock.server.context import JobContext, RendererPool, RenderSpread
from aftershock.server.github.github_api import GitHubError
from aftershock.server.github.github_auth import GitHubAccess
from aftershock.server.metrics import Metrics, sample
from aftershock.server.queue.jobs import JobResult
from aftershock.server.queue.jobspec import Job, ReviewJob, job_from_json
from aftershock.server.queue.ledger import Ledger, Outcome
from aftershock.server.review_run import fail_check_run, run_review_job
from aftershock.server.settings import ServiceSettings
from aftershock.state.errors import StateUnavailableError
from aftershock.state.store import StateStore

_log = logging.getLogger("aftershock.server")
_MAX_STATE_BACKOFF_SECONDS = 30.0


class JobRunner:
    def __init__(
        self,
        settings: ServiceSettings,
        store: StateStore,
        access: GitHubAccess,
        metrics: Metrics,
        spread: RenderSpread | None = None,
    ) -> None:
        """`spread`: where reviews spread their large render steps (an `aftershock worker`'s queue)."""
        renderers = RendererPool(settings.render, spread)
        self.context = JobContext(settings, store, Ledger(store), access, metrics, renderers)

    def run(self, job: Job) -> JobResult:
        """Run the job unless its delivery already has a final outcome; returns what it ended as."""
        attempts = max(self.context.settings.state_attempts, 1)
        for attempt in range(1, attempts + 1):
            try:
                row = self.context.ledger.get(job.delivery_id)
                if row is not None and row.job:
                    job = job_from_json(row.job)  # with the check run an earlier attempt made
                if not self.context.ledger.start(job.delivery_id):
                    if row is None:
                        return JobResult(Outcome.FAILED, "the delivery is not in the ledger")
                    return JobResult(row.outcome, row.detail)
                outcome, detail = self._work(job)
                break
            except StateUnavailableError as error:
                if attempt == attempts:
                    return self._give_up(job, error, attempts)
                self._pause(job, attempt, error)
        self.context.metrics.increment(sample("aftershock_jobs_total", outcome=outcome.value))
        _log.info("job %s: %s: %s", job.delivery_id, outcome.value, detail)
        # the work is done: only its outcome is written again
        return JobResult(outcome, detail, self._record(job, outcome, detail))

    def _work(self, job: Job) -> tuple[Outcome, str]:
        kind = "review" if isinstance(job, ReviewJob) else "command"
        cause = ""
        try:
            if isinstance(job, ReviewJob):
                outcome, detail = run_review_job(self.context, job)
            else:
                outcome, detail = run_command_job(self.context, job)
        except StateUnavailableError:
            raise  # `run` tries again
        except AftershockError as error:
            cause = "github" if isinstance(error, GitHubError) else "error"
            outcome, detail = Outcome.FAILED, error.line()
        except Exception as error:
            _log.exception("job %s failed", job.delivery_id)
            cause, outcome, detail = (
                "internal",
                Outcome.FAILED,
                f"internal error: {type(error).__name__}: {error}",
            )
        if outcome is Outcome.FAILED:
            self._count_failure(job, kind, cause or "error", detail)
        return outcome, detail

    def _pause(self, job: Job, attempt: int, error: StateUnavailableError) -> None:
        pause = self._backoff(attempt)
        _log.warning(
            "job %s: the state database failed (attempt %d of %d), again in %.1f s: %s",
            job.delivery_id,
            attempt,
            self.context.settings.state_attempts,
            pause,
            error.line(),
        )
        time.sleep(pause)

    def _backoff(self, attempt: int) -> float:
        first = self.context.settings.state_backoff_seconds
        return float(min(first * 2 ** (attempt - 1), _MAX_STATE_BACKOFF_SECONDS))

    def _give_up(self, job: Job, error: StateUnavailableError, attempts: int) -> JobResult:
        """Fail the job's check run, then record the failure (if the database answers in time)."""
        detail = f"the state database failed in each of {attempts} attempts: {error.line()}"
        kind = "review" if isinstance(job, ReviewJob) else "command"
        if isinstance(job, ReviewJob):
            fail_check_run(self.context, job, detail, create_missing=True)
        self._count_failure(job, kind, "state", detail)
        self.context.metrics.increment(sample("aftershock_jobs_total", outcome="failed"))
        return JobResult(Outcome.FAILED, detail, self._record(job, Outcome.FAILED, detail))

    def _record(self, job: Job, outcome: Outcome, detail: str) -> bool:
        """Write the job's outcome, trying again with backoff while the database is down; False
        when it could not."""
        attempts = max(self.context.settings.state_attempts, 1)
        for attempt in range(1, attempts + 1):
            try:
                self.context.ledger.mark(job.delivery_id, outcome, detail)
                return True
            except StateUnavailableError:
                if attempt < attempts:
                    time.sleep(self._backoff(attempt))
        _log.error(
            "job %s: its outcome (%s) could not be recorded: the state database is down; the "
            "queue keeps it until the service's reconciler can write it",
            job.delivery_id,
            outcome.value,
        )
        return False

    def _count_failure(self, job: Job, kind: str, cause: str, detail: str) -> None:
        self.context.metrics.increment(sample("aftershock_failures_total", stage=kind))
        self.context.metrics.increment(
            sample("aftershock_job_failures_total", kind=kind, cause=cause)
        )
        _log.error(
            "%s job %s of %s failed (%s): %s", kind, job.delivery_id, job.pull.key, cause, detail
        )

    def close(self) -> None:
        self.context.renderers.close()
