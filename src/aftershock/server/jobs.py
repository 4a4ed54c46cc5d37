"""The embedded job queue: a pool of threads in the service's own process.

Jobs are acknowledged late through the ledger: a delivery stays queued or running until its job
records a final outcome, and the service hands unfinished ones to the pool again when it restarts.
Reviews of one pull request are serialised by the state store's per-target review lock.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Protocol

from aftershock.server.jobspec import Job

_log = logging.getLogger("aftershock.server")
_STOP = object()


class JobQueue(Protocol):
    """Where accepted jobs go: `InProcessQueue` here, `rq_jobs.RedisJobQueue` for scale-out."""

    def submit(self, job: Job) -> None: ...

    def depth(self) -> int: ...

    def healthy(self) -> bool: ...

    def close(self) -> None: ...


class InProcessQueue:
    """`workers` threads, each running one job at a time with `run`."""

    def __init__(self, run: Callable[[Job], object], workers: int) -> None:
        self._run = run
        self._pending: queue.Queue[object] = queue.Queue()
        self._busy = 0
        self._guard = threading.Lock()
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

    def close(self, timeout_seconds: float = 30.0) -> None:
        for _ in self._threads:
            self._pending.put(_STOP)
        for thread in self._threads:
            thread.join(timeout_seconds)

    def _loop(self) -> None:
        while True:
            job = self._pending.get()
            if job is _STOP:
                return
            with self._guard:
                self._busy += 1
            try:
                self._run(job)  # type: ignore[arg-type]
            except Exception:
                _log.exception("job failed outside the runner")
            finally:
                with self._guard:
                    self._busy -= 1
