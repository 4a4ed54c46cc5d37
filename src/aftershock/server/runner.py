"""Running one job: claim it in the ledger, review or answer a command, and record the final outcome.

One `JobRunner` per process (the service's pool threads, or an `aftershock worker`). The ledger's
copy of a job is the one that runs, so a retried job reuses the check run its first attempt made.
Each thread keeps one renderer open across jobs; Helm's library loads once per render worker.
A job that fails, of any kind, is logged as one error line and counted in
`aftershock_job_failures_total` by kind and cause (github, error, internal).
"""

from __future__ import annotations

import logging

from aftershock.model.errors import AftershockError
from aftershock.server.command_run import run_command_job
from aftershock.server.context import JobContext, RendererPool
from aftershock.server.github_api import GitHubError
from aftershock.server.github_auth import GitHubAccess
from aftershock.server.jobspec import Job, ReviewJob, job_from_json
from aftershock.server.ledger import Ledger, Outcome
from aftershock.server.metrics import Metrics, sample
from aftershock.server.review_run import run_review_job
from aftershock.server.settings import ServiceSettings
from aftershock.state.store import StateStore

_log = logging.getLogger("aftershock.server")


class JobRunner:
    def __init__(
        self, settings: ServiceSettings, store: StateStore, access: GitHubAccess, metrics: Metrics
    ) -> None:
        self.context = JobContext(
            settings, store, Ledger(store), access, metrics, RendererPool(settings.render)
        )

    def run(self, job: Job) -> Outcome:
        """Run the job unless its delivery already has a final outcome; returns the outcome recorded."""
        ledger = self.context.ledger
        row = ledger.get(job.delivery_id)
        if row is not None and row.job:
            job = job_from_json(row.job)
        if not ledger.start(job.delivery_id):
            return row.outcome if row is not None else Outcome.FAILED
        kind = "review" if isinstance(job, ReviewJob) else "command"
        cause = ""
        try:
            if isinstance(job, ReviewJob):
                outcome, detail = run_review_job(self.context, job)
            else:
                outcome, detail = run_command_job(self.context, job)
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
        ledger.mark(job.delivery_id, outcome, detail)
        self.context.metrics.increment(sample("aftershock_jobs_total", outcome=outcome.value))
        _log.info("job %s: %s: %s", job.delivery_id, outcome.value, detail)
        return outcome

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
