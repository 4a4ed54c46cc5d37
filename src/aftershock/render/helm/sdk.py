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

# A worker that is not running yet joins a batch only after this long: its start loads the Go library
# (~0.16 CPU-s, more than most charts' renders), so a batch the running workers finish sooner never
# starts it, and a long batch loses at most this much of its parallel time.
SPILL_SECONDS = 0.5


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
        spill_seconds: float = SPILL_SECONDS,
    ) -> None:
        """`parse_documents`: workers also parse what they render (RenderOutcome.documents), in parallel;
        `spill_seconds`: how long a batch runs before a worker that is not running yet joins it."""
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
        self._spill_seconds = spill_seconds
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
            workers = sorted(self._processes, key=lambda w: not w.running)  # running ones first
            lanes = [
                functools.partial(worker.render, batch=batch, deadline=deadline)
                for worker in workers
            ]
            delays = [0.0 if w.running else self._spill_seconds for w in workers]
            delays[0] = 0.0  # a batch always has one lane at once
            return dispatch(requests, lanes, progress, delays)

    def close(self) -> None:
        """Stop every worker."""
        with self._lock:
            for worker in self._processes:
                worker.stop()
