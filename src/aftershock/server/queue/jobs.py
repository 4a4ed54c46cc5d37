"""The embedded job queue: a pool of threads in the service's own process; what a job ended as.

Jobs are acknowledged late through the ledger: a delivery stays queued or running until its job
records a final outcome, and the service hands unfinished ones to the pool again when it restarts.
Reviews of one pull request are serialised by the state store's per-target review lock. A job whose
outcome the ledger could not take (the database was down after its last write) leaves it with its
queue, which `results` gives to `WebhookService.settle` once the database answers.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from aftershock.server.queue.jobspec import Job
from aftershock.server.queue.ledger import Outcome

_log = logging.getLogger("aftershock.server")
_STOP = object()


@dataclass(frozen=True)
class JobResult:
    """A job's final outcome and its one line; `recorded` is False when the ledger could not take it."""

    outcome: Outcome
    detail: str
    recorded: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome.value, "detail": self.detail, "recorded": self.recorded}

    @classmethod
    def from_json(cls, data: object) -> JobResult | None:
        """The result a worker returned (an outcome's name alone, from an older worker); None if none."""
        try:
            if isinstance(data, str):
                return cls(Outcome(data), "")
            if isinstance(data, dict):
                return cls(
                    Outcome(data["outcome"]),
                    str(data.get("detail", "")),
                    bool(data.get("recorded", True)),
                )
        except (KeyError, ValueError):
            pass
        return None


class JobQueue(Protocol):
    """Where accepted jobs go: `InProcessQueue` here, `rq_jobs.RedisJobQueue` for scale-out."""

    def submit(self, job: Job) -> None: ...

    def depth(self) -> int: ...

    def healthy(self) -> bool: ...

    def results(self, delivery_ids: Sequence[str]) -> dict[str, JobResult]:
        """The final results the queue holds of these deliveries' jobs (those it knows of)."""
        ...

    def close(self) -> None: ...


class InProcessQueue:
    """`workers` threads, each running one job at a time with `run`."""

    def __init__(self, run: Callable[[Job], object], workers: int) -> None:
        self._run = run
        self._pending: queue.Queue[object] = queue.Queue()
        self._busy = 0
        self._guard = threading.Lock()
        self._unrecorded: dict[str, JobResult] = {}  # by delivery: kept until this process ends
        self._threads = [
            threading.Thread(target=self._loop, name=f"aftershock-job-{n}", daemon=True)
            for n in range(max(workers, 1))
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, job: Job) -> None:
        self._pending.put(job)

    def depth(self) -> int:
        with self._guard:
            return self._pending.qsize() + self._busy

    def healthy(self) -> bool:
        return all(thread.is_alive() for thread in self._threads)

    def results(self, delivery_ids: Sequence[str]) -> dict[str, JobResult]:
        with self._guard:
            return {d: self._unrecorded[d] for d in delivery_ids if d in self._unrecorded}

    def close(self, timeout_seconds: float = 30.0) -> None:
        for _ in self._threads:
            self._pending.put(_STOP)
        for thread in self._threads:
            thread.join(timeout_seconds)

    def _loop(self) -> None:
        while True:
            item = self._pending.get()
            if item is _STOP:
                return
            job = cast(Job, item)
            with self._guard:
                self._busy += 1
            try:
                result = self._run(job)
                if isinstance(result, JobResult) and not result.recorded:
                    with self._guard:
                        self._unrecorded[job.delivery_id] = result
            except Exception:
                _log.exception("job failed outside the runner")
            finally:
                with self._guard:
                    self._busy -= 1
