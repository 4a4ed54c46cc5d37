"""Scale-out: jobs on Redis through RQ, run by `aftershock worker` processes.

Jobs are JSON (RQ's JSONSerializer), so no pickled code crosses Redis. A job stays in RQ's started
registry until it finishes (late acknowledgement). Each worker runs jobs in its own process and
sends a heartbeat every `heartbeat_seconds` from a side thread; when a worker dies, its job's
heartbeat lapses after `heartbeat_seconds + grace`, and any other worker's maintenance (every
`maintenance_seconds`) puts the job back on the queue, up to `RETRIES` times. The ledger makes a
rerun of a finished job a no-op, and reviews of one pull request are serialised by its review lock.
A job's result is its `JobResult` (kept `RESULT_TTL_SECONDS`, or as long as a failure when the
ledger could not take it); a job that raised, or was lost more
than `RETRIES` times, ends failed in RQ. `results` reads both, for the deliveries the ledger still
has queued or running: their worker could not record how they ended.

Every worker also renders batches of a large review (`render_queue`), from the render queue first;
`aftershock worker --renders-only` renders nothing else and needs no state database or GitHub App.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from redis import Redis
from rq import Queue, Retry, SimpleWorker
from rq.job import Job as RqJob
from rq.job import JobStatus, get_current_job
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer
from rq.worker import WorkerStatus

from aftershock.model.errors import ConfigError
from aftershock.server.queue.jobs import JobResult
from aftershock.server.queue.jobspec import Job, job_from_json, job_to_json
from aftershock.server.queue.ledger import Outcome
from aftershock.server.queue.render_jobs import (
    BatchRenderers,
    render_queue_name,
    serve_render_batches,
)
from aftershock.server.queue.runner import JobRunner
from aftershock.server.settings import RenderSettings

QUEUE_NAME = "aftershock"
RETRIES = 3
RESULT_TTL_SECONDS = 3600
FAILURE_TTL_SECONDS = 7 * 24 * 3600

_runner: JobRunner | None = None  # set by `run_worker` in the worker process, never on import


def connect(url: str, socket_timeout: float | None = None) -> Redis:
    """A connection to the queue; `socket_timeout` bounds each call (the service's, so a Redis that
    hangs cannot hold a delivery; a worker's blocking dequeue needs None)."""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigError(f"unsupported queue URL {url!r}", hint="use redis://HOST:PORT/DB")
    return Redis.from_url(url, socket_connect_timeout=5, socket_timeout=socket_timeout)


class RedisJobQueue:
    def __init__(
        self, connection: Redis, name: str = QUEUE_NAME, job_timeout_seconds: int = 1800
    ) -> None:
        self._redis = connection
        self._queue = Queue(name, connection=connection, serializer=JSONSerializer)
        self._timeout = job_timeout_seconds

    def submit(self, job: Job) -> None:
        self._queue.enqueue(
            "aftershock.server.queue.rq_jobs.run_queued_job",
            job_to_json(job),
            job_id=_job_id(job.delivery_id),
            retry=Retry(max=RETRIES),
            job_timeout=self._timeout,
            result_ttl=RESULT_TTL_SECONDS,
            failure_ttl=FAILURE_TTL_SECONDS,
            description=f"{type(job).__name__} {job.pull.key}",
        )

    def depth(self) -> int:
        started = StartedJobRegistry(queue=self._queue)
        return len(self._queue) + len(started.get_job_ids())

    def healthy(self) -> bool:
        try:
            return bool(self._redis.ping())
        except Exception:
            return False

    def results(self, delivery_ids: Sequence[str]) -> dict[str, JobResult]:
        ids = list(delivery_ids)
        jobs = RqJob.fetch_many(
            [_job_id(d) for d in ids], connection=self._redis, serializer=JSONSerializer
        )
        found = {}
        for delivery_id, job in zip(ids, jobs):
            result = _final_result(job) if job is not None else None
            if result is not None:
                found[delivery_id] = result
        return found

    def close(self) -> None:
        self._redis.close()


def _job_id(delivery_id: str) -> str:
    return f"aftershock-{delivery_id}"


def _final_result(job: RqJob) -> JobResult | None:
    """How an RQ job ended: its worker's result, or failed; None while it may still run."""
    status = job.get_status(refresh=False)
    if status == JobStatus.FINISHED:
        return JobResult.from_json(job.return_value())
    if status in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED):
        latest = job.latest_result()
        lines = (getattr(latest, "exc_string", None) or "").strip().splitlines()
        why = lines[-1] if lines else status.value
        return JobResult(Outcome.FAILED, f"the job {status.value} in the queue: {why}"[:500])
    return None


def run_queued_job(data: dict[str, Any]) -> dict[str, Any]:
    """The function RQ calls in a worker: run one job with the worker's runner; its `JobResult`
    is the RQ job's result (`RedisJobQueue.results` reads it)."""
    if _runner is None:
        raise RuntimeError("no job runner in this process: start it with `aftershock worker`")
    result = _runner.run(job_from_json(data))
    current = get_current_job()
    if not result.recorded and current is not None:
        current.result_ttl = FAILURE_TTL_SECONDS  # kept as long as a failure: the only copy
    return result.to_json()


class ReviewWorker(SimpleWorker):
    """An RQ worker that runs jobs in-process and keeps their heartbeat alive from a side thread."""

    heartbeat_grace_seconds = 10

    def get_heartbeat_ttl(self, job: RqJob, working_time: float = 0.0) -> int:
        return int(self.job_monitoring_interval + self.heartbeat_grace_seconds)

    def execute_job(self, job: RqJob, queue: Queue) -> None:
        execution = self.prepare_execution(job)
        stop = threading.Event()
        beat = threading.Thread(
            target=self._beat, args=(job, execution, stop), name="aftershock-heartbeat", daemon=True
        )
        beat.start()
        try:
            self.perform_job(job, queue, execution)
        finally:
            stop.set()
            beat.join()
        self.set_state(WorkerStatus.IDLE)

    def _beat(self, job: RqJob, execution: Any, stop: threading.Event) -> None:
        while not stop.wait(self.job_monitoring_interval):
            try:
                self.maintain_heartbeats(job, execution)
            except Exception:
                self.log.warning("heartbeat for job %s failed", job.id)


def run_worker(
    connection: Redis,
    runner: JobRunner | None,
    *,
    render: RenderSettings,
    queue_name: str = QUEUE_NAME,
    name: str | None = None,
    burst: bool = False,
    heartbeat_seconds: int = 10,
    maintenance_seconds: int = 30,
) -> None:
    """Work the queues until stopped (or, with `burst`, until they are empty): render batches first
    (a review waits on them), then, given a `runner`, reviews and commands."""
    global _runner
    _runner = runner
    renderers = BatchRenderers(render)
    serve_render_batches(renderers)
    names = [render_queue_name(queue_name), *([queue_name] if runner is not None else [])]
    try:
        worker = ReviewWorker(
            [Queue(n, connection=connection, serializer=JSONSerializer) for n in names],
            connection=connection,
            name=name,
            serializer=JSONSerializer,
            job_monitoring_interval=heartbeat_seconds,
            maintenance_interval=maintenance_seconds,
            worker_ttl=maintenance_seconds
            + 15,  # an idle worker wakes every maintenance_seconds to look for lost jobs
        )
        worker.heartbeat_grace_seconds = max(heartbeat_seconds, 2)
        worker.work(burst=burst, with_scheduler=False)
    finally:
        _runner = None
        serve_render_batches(None)
        renderers.close()
        if runner is not None:
            runner.close()
