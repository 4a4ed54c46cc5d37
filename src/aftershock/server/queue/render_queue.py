"""Spreading a large review's renders over the `aftershock worker` processes: `QueueRenderer`.

A `render_many` call of at least `min_renders` renders is cut into batches (`render_batches`:
about `batches_per_lane` per worker listening, a chart folder's renders together), one RQ job each
on the render queue (`<queue name>-renders`), and joined by the caller: it renders the part that
stays local (values a Secret supplied) in its own process, then waits for each batch's result,
and, with `help_while_waiting`, renders batches no worker has taken yet itself (it takes one off
the queue atomically, so each batch renders once), so a review never waits on workers that are all
busy, or on none. Outcomes come back in request order, each on its own request, equal to a local
render's. A smaller call renders locally.

A batch that fails on its worker, whose worker is lost mid-batch (its heartbeat lapses: the
caller moves it to RQ's failed jobs as a worker's maintenance would), or that is not done within
the review's deadline (plus `grace_seconds`, for batches in flight to stop at their own) or, with
no deadline, `wait_seconds`, gives each of its renders an error saying so: the review lists those
parts as not reviewed, never as unchanged.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from redis import Redis
from rq import Queue, Worker
from rq.job import Job as RqJob
from rq.job import JobStatus
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from aftershock.render.interface import (
    ProgressCallback,
    Renderer,
    RenderOutcome,
    RenderRequest,
    WrappingRenderer,
)
from aftershock.render.limits import Deadline
from aftershock.server.queue.render_batches import (
    KEY_TTL_SECONDS,
    BatchPlan,
    RenderSpec,
    batch_payload,
    done_key,
    job_id,
    outcomes_from_json,
    plan_batches,
    result_key,
)
from aftershock.server.queue.render_jobs import render_queue_name

_ENDED = {JobStatus.FAILED.value, JobStatus.STOPPED.value, JobStatus.CANCELED.value}
_FINISHED_TTL_SECONDS = 300


@dataclass(frozen=True)
class SpreadOptions:
    """How a review spreads its renders: `queue_name` is the review queue's (batches go to its
    render queue); a call of fewer than `min_renders` renders stays local."""

    queue_name: str = "aftershock"
    min_renders: int = 64
    batches_per_lane: int = 4
    help_while_waiting: bool = True
    poll_seconds: float = 0.5
    wait_seconds: float = 1800.0
    grace_seconds: float = 15.0


class QueueRenderer(WrappingRenderer):
    """Renders large calls on the workers of the render queue, the rest with `local` (whose name
    and version the review reports: the workers' must equal them)."""

    def __init__(
        self,
        local: Renderer,
        connection: Redis,
        spec: RenderSpec,
        options: SpreadOptions | None = None,
    ) -> None:
        super().__init__(local)
        self.connection = connection
        self.spec = spec
        self.options = options or SpreadOptions()
        self.queue = Queue(
            render_queue_name(self.options.queue_name),
            connection=connection,
            serializer=JSONSerializer,
        )

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline: Deadline | None = None,
    ) -> list[RenderOutcome]:
        """Outcomes in request order, rendered on the workers when the call is large enough."""
        if len(requests) < self.options.min_renders:
            return self.inner.render_many(requests, progress, deadline)
        lanes = Worker.count(connection=self.connection, queue=self.queue)
        lanes += 1 if self.options.help_while_waiting else 0
        plan = plan_batches(requests, max(lanes, 1) * self.options.batches_per_lane)
        if not plan.batches:
            return self.inner.render_many(requests, progress, deadline)
        spec = replace(self.spec, version=self.inner.version)
        return _Spread(self, spec, requests, plan, progress, deadline).run()


class _Spread:
    """One spread `render_many` call: its batches on the queue, and the outcomes as they come."""

    def __init__(
        self,
        owner: QueueRenderer,
        spec: RenderSpec,
        requests: Sequence[RenderRequest],
        plan: BatchPlan,
        progress: ProgressCallback | None,
        deadline: Deadline | None,
    ) -> None:
        self.owner, self.spec, self.requests, self.plan = owner, spec, requests, plan
        self.progress, self.deadline = progress, deadline
        self.redis = owner.connection
        self.options = owner.options
        self.token = os.urandom(8).hex()
        self.outcomes: list[RenderOutcome | None] = [None] * len(requests)
        self.pending: dict[int, tuple[int, ...]] = dict(enumerate(plan.batches))
        wait = self.options.wait_seconds
        self.ends_at = (
            deadline.at + self.options.grace_seconds
            if deadline is not None
            else time.monotonic() + wait
        )

    def run(self) -> list[RenderOutcome]:
        try:
            self._enqueue()
            if self.plan.local:
                self._settle_local(self.plan.local)
            self._join()
        finally:
            self._withdraw(self._queued_batches())
            self.redis.delete(done_key(self.token))
        return [outcome for outcome in self.outcomes if outcome is not None]

    def _job(self, batch: int) -> str:
        return job_id(self.owner.queue.name, self.token, batch)

    def _enqueue(self) -> None:
        seconds = max(self.ends_at - time.monotonic(), 1.0)
        timeout = math.ceil(seconds + self.options.grace_seconds)
        queue = self.owner.queue
        jobs = [
            Queue.prepare_data(
                "aftershock.server.queue.render_jobs.run_render_batch",
                args=(self._payload(batch, indices),),
                timeout=timeout,
                ttl=timeout,
                result_ttl=_FINISHED_TTL_SECONDS,  # the job and its payload, once done
                failure_ttl=KEY_TTL_SECONDS,
                description=f"render batch {batch} of {self.token} ({len(indices)} renders)",
                job_id=self._job(batch),
            )
            for batch, indices in self.pending.items()
        ]
        queue.enqueue_many(jobs)

    def _payload(self, batch: int, indices: tuple[int, ...]) -> dict[str, object]:
        requests = [self.requests[i] for i in indices]
        return batch_payload(self.token, batch, self.spec, requests, self.deadline)

    def _join(self) -> None:
        while self.pending:
            self._receive(0.0)
            if not self.pending:
                return
            if time.monotonic() >= self.ends_at:
                self._give_up()
                return
            if self.deadline is not None and self.deadline.passed():
                self._withdraw(self._queued_batches(), self.deadline.reason)
            elif self.options.help_while_waiting and self._help():
                continue
            self._receive(self.options.poll_seconds)
            self._check()

    def _receive(self, timeout: float) -> None:
        """Take the results of the batches the done list names (waiting up to `timeout` for one)."""
        key = done_key(self.token)
        names: list[object] = []
        if timeout > 0:
            first = self.redis.blpop([key], timeout)
            if first is None:
                return
            names.append(first[1])
        while (more := self.redis.lpop(key)) is not None:
            names.append(more)
        for name in names:
            self._take(int(str(name.decode() if isinstance(name, bytes) else name)))

    def _take(self, batch: int) -> None:
        """Settle `batch` with the result its worker wrote, if it is still pending."""
        if batch not in self.pending:
            return
        text = self.redis.getdel(result_key(self.token, batch))
        if text is None:
            self._fail(batch, "render worker finished this batch, but its result is gone")
            return
        requests = [self.requests[i] for i in self.pending[batch]]
        try:
            outcomes = outcomes_from_json(text, requests)
        except ValueError as error:
            self._fail(batch, f"render worker sent an unreadable result: {error}")
            return
        self._settle(batch, outcomes)

    def _settle(self, batch: int, outcomes: Sequence[RenderOutcome]) -> None:
        for index, outcome in zip(self.pending.pop(batch), outcomes):
            self.outcomes[index] = outcome
            if self.progress is not None:
                self.progress(outcome)

    def _settle_local(self, indices: Sequence[int]) -> None:
        requests = [self.requests[i] for i in indices]
        outcomes = self.owner.inner.render_many(requests, self.progress, self.deadline)
        for index, outcome in zip(indices, outcomes):
            self.outcomes[index] = outcome

    def _fail(self, batch: int, reason: str) -> None:
        requests = [self.requests[i] for i in self.pending[batch]]
        self._settle(batch, [RenderOutcome(request, error=reason) for request in requests])

    def _check(self) -> None:
        """Fail the batches whose job ended without a result (a lost worker's among them)."""
        StartedJobRegistry(queue=self.owner.queue).cleanup()
        batches = list(self.pending)
        with self.redis.pipeline() as pipe:
            for batch in batches:
                pipe.hget(RqJob.key_for(self._job(batch)), "status")
            statuses = pipe.execute()
        self._receive(0.0)  # a batch that finished meanwhile is taken, not failed
        for batch, raw in zip(batches, statuses):
            status = raw.decode() if isinstance(raw, bytes) else raw
            if batch not in self.pending:
                continue
            if status == JobStatus.FINISHED.value:
                self._take(batch)
            elif status is None:
                self._fail(batch, "render worker batch is gone from the queue: not rendered")
            elif status in _ENDED:
                self._fail(batch, self._why(self._job(batch), status))

    def _why(self, job: str, status: str) -> str:
        try:
            found = RqJob.fetch(job, connection=self.redis, serializer=JSONSerializer)
            latest = found.latest_result()
            text = (getattr(latest, "exc_string", None) or "").strip()
        except Exception:
            text = ""
        if "AbandonedJobError" in text:
            return "render worker was lost while rendering this batch (its heartbeat stopped)"
        lines = text.splitlines()
        return f"render worker failed this batch ({status}): {lines[-1] if lines else status}"[:500]

    def _queued_batches(self) -> list[int]:
        """Pending batches still on the queue, last first."""
        queued = set(self.owner.queue.get_job_ids())
        return sorted((b for b in self.pending if self._job(b) in queued), reverse=True)

    def _take_back(self, batch: int) -> bool:
        """Take `batch` off the queue unless a worker took it first; True when this caller has it."""
        job = self._job(batch)
        if not self.owner.queue.remove(job):
            return False
        self.redis.delete(RqJob.key_for(job))
        return True

    def _help(self) -> bool:
        """Render, here, one batch no worker has taken yet; False when there is none."""
        for batch in self._queued_batches():
            if self._take_back(batch):
                indices = self.pending[batch]
                requests = [self.requests[i] for i in indices]
                self._settle(batch, self.owner.inner.render_many(requests, None, self.deadline))
                return True
        return False

    def _withdraw(self, batches: Sequence[int], reason: str | None = None) -> None:
        """Take these batches off the queue; with a `reason`, settle each one taken with it."""
        for batch in batches:
            if self._take_back(batch) and reason is not None:
                self._fail(batch, reason)

    def _give_up(self) -> None:
        """The wait is over: every batch still pending gets the reason it was not rendered."""
        self._withdraw(self._queued_batches())
        passed = self.deadline is not None and self.deadline.passed()
        for batch in list(self.pending):
            reason = (
                self.deadline.reason
                if passed and self.deadline is not None
                else f"render worker did not finish this batch within {self.options.wait_seconds:g} s"
            )
            self._fail(batch, reason)
