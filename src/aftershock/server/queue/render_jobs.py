"""A render batch on an `aftershock worker`: the RQ function that renders it and the worker's renderers.

A worker renders each batch with its own embedded Helm (`open_renderer` with one render process
per set of bounds, opened on first use and kept across batches), writes the outcomes to the
batch's result key, then pushes the batch's index to the review's done list, both expiring. A
worker whose renderer version differs from the review's renders nothing: each render gets an error
saying so, and the review lists those parts as not reviewed.
"""

from __future__ import annotations

import logging
import threading
from contextlib import ExitStack
from typing import Any

from rq.job import get_current_job

from aftershock.pipeline import open_renderer
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.server.queue.render_batches import (
    KEY_TTL_SECONDS,
    Batch,
    RenderSpec,
    batch_from_payload,
    done_key,
    outcomes_json,
    result_key,
)
from aftershock.server.settings import RenderSettings

RENDER_QUEUE_SUFFIX = "-renders"
_log = logging.getLogger("aftershock.server")
_KEPT = 2  # renderers of distinct bounds a worker keeps open


def render_queue_name(queue_name: str) -> str:
    """The queue render batches of reviews on `queue_name` go to."""
    return f"{queue_name}{RENDER_QUEUE_SUFFIX}"


class BatchRenderers:
    """The renderers a worker renders batches with, by kind and bounds; the worker's own helm binary
    (a batch never names one)."""

    def __init__(self, settings: RenderSettings) -> None:
        self._settings = settings
        self._open: dict[tuple[str, float, int], tuple[ExitStack, Renderer]] = {}
        self._lock = threading.Lock()

    def get(self, spec: RenderSpec) -> Renderer:
        key = (spec.kind, spec.timeout_seconds, spec.max_memory_mib)
        with self._lock:
            if key not in self._open:
                while len(self._open) >= _KEPT:
                    stack, _ = self._open.pop(next(iter(self._open)))
                    stack.close()
                stack = ExitStack()
                renderer = stack.enter_context(
                    open_renderer(
                        spec.kind,
                        helm_binary=self._settings.helm_binary,
                        timeout_seconds=spec.timeout_seconds,
                        workers=1,
                        max_memory_mib=spec.max_memory_mib,
                    )
                )
                self._open[key] = (stack, renderer)
            return self._open[key][1]

    def close(self) -> None:
        with self._lock:
            for stack, _ in self._open.values():
                stack.close()
            self._open.clear()


_renderers: BatchRenderers | None = (
    None  # set by `serve_render_batches` in a worker, never on import
)


def serve_render_batches(renderers: BatchRenderers | None) -> None:
    """Give this process the renderers its render batches use (None: none any more)."""
    global _renderers
    _renderers = renderers


def run_render_batch(data: dict[str, Any]) -> dict[str, Any]:
    """The function RQ calls in a worker: render one batch, write its outcomes and say it is done."""
    if _renderers is None:
        raise RuntimeError("no renderers in this process: start it with `aftershock worker`")
    batch = batch_from_payload(data)
    outcomes = _render(_renderers, batch)
    current = get_current_job()
    if current is None:
        raise RuntimeError("a render batch runs only as an RQ job")
    connection = current.connection
    with connection.pipeline() as pipe:
        pipe.set(result_key(batch.token, batch.index), outcomes_json(outcomes), ex=KEY_TTL_SECONDS)
        pipe.rpush(done_key(batch.token), batch.index)
        pipe.expire(done_key(batch.token), KEY_TTL_SECONDS)
        pipe.execute()
    failed = sum(1 for o in outcomes if not o.ok)
    return {"renders": len(outcomes), "errors": failed}


def _render(renderers: BatchRenderers, batch: Batch) -> list[RenderOutcome]:
    renderer = renderers.get(batch.spec)
    if batch.spec.version and renderer.version != batch.spec.version:
        why = (
            f"render worker has {renderer.version}, the review renders with "
            f"{batch.spec.version}: not rendered"
        )
        _log.error("render batch %s/%d: %s", batch.token, batch.index, why)
        return [RenderOutcome(request, error=why) for request in batch.requests]
    return renderer.render_many(batch.requests, deadline=batch.deadline)
