"""The embedded Helm SDK backend: renders in `sdk_worker` child processes that own helm_python.

This process never imports helm_python: the Go runtime it loads does not survive `fork`, and the
main process must stay free to start git subprocesses. This module spreads each batch of requests
across a pool of workers; `render.helm.sdk_process` drives one worker (its start, protocol and bounds).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence

from aftershock.model.errors import ConfigError, RenderError
from aftershock.render.helm.pool import dispatch
from aftershock.render.helm.sdk_process import WorkerBounds, WorkerGone, WorkerProcess
from aftershock.render.interface import (
    ClosingRenderer,
    ProgressCallback,
    RenderOutcome,
    RenderRequest,
)
from aftershock.render.limits import (
    DEFAULT_MAX_MEMORY_MIB,
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_TIMEOUT_SECONDS,
    Deadline,
    check_limits,
)

RENDERS_PER_START = 4  # renders that pay for starting one more worker (see _workers_for)


class SdkRenderer(ClosingRenderer):
    """Renders with helm-python-sdk in `workers` reusable child processes (default min(CPUs, 4)).

    Each render is bounded by `timeout_seconds` and `max_memory_mib` (the worker is then killed and
    replaced) and `max_output_bytes` of manifests; a breach, a Helm error or a dead worker becomes an
    error outcome. Usable again after `close()`: workers restart on demand.
    """

    name = "helm-python-sdk"

    def __init__(
        self,
        workers: int | None = None,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        parse_documents: bool = True,
        max_memory_mib: int = DEFAULT_MAX_MEMORY_MIB,
    ) -> None:
        """`parse_documents`: workers also parse what they render (RenderOutcome.documents), in parallel."""
        check_limits(timeout_seconds, max_output_bytes, max_memory_mib)
        count = workers if workers is not None else min(os.cpu_count() or 1, 4)
        if count < 1:
            raise ConfigError(
                f"render worker count must be at least 1, got {count}",
                hint="pass a positive number of workers",
            )
        bounds = WorkerBounds(timeout_seconds, max_output_bytes, max_memory_mib)
        self._processes = [WorkerProcess(bounds, parse_documents) for _ in range(count)]
        self._lock = threading.Lock()
        self._version: str | None = None

    @property
    def version(self) -> str:
        """E.g. "helm-python-sdk 0.2.2 (Helm v4.2.3)", as the worker reports it (asked once)."""
        if self._version is None:
            with self._lock:
                worker = self._processes[0]
                try:
                    worker.start()
                except WorkerGone as exc:
                    raise RenderError(
                        "cannot start the Helm SDK render worker",
                        where=str(exc),
                        hint="check that helm-python-sdk is installed in this Python environment",
                    ) from None
                ready = worker.ready_message
                self._version = (
                    f"{self.name} {ready.get('sdk_version')} (Helm {ready.get('helm_version')})"
                )
        return self._version

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline: Deadline | None = None,
    ) -> list[RenderOutcome]:
        """Render every request across the workers in parallel; outcomes keep request order."""
        batch = os.urandom(8).hex()
        with self._lock:
            lanes = [
                functools.partial(worker.render, batch=batch, deadline=deadline)
                for worker in self._workers_for(len(requests))
            ]
            return dispatch(requests, lanes, progress)

    def _workers_for(self, count: int) -> list[WorkerProcess]:
        """The running workers, and as many more as `count` renders pay for: a start loads the Go
        library (~0.16 CPU-s, more than a typical chart's render), so a worker that is not running
        yet is started only for every `RENDERS_PER_START` renders."""
        running = [w for w in self._processes if w.running]
        idle = [w for w in self._processes if not w.running]
        wanted = max(1, -(-count // RENDERS_PER_START))
        return running + idle[: max(0, wanted - len(running))]

    def close(self) -> None:
        """Stop every worker."""
        with self._lock:
            for worker in self._processes:
                worker.stop()
