"""What a running job may use: the settings, the state store and ledger, GitHub, metrics, and renderers."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aftershock.pipeline import open_renderer
from aftershock.render.interface import Renderer
from aftershock.server.github.github_auth import GitHubAccess
from aftershock.server.metrics import Metrics
from aftershock.server.queue.ledger import Ledger
from aftershock.server.settings import RenderSettings, ServiceSettings
from aftershock.state.store import StateStore

if TYPE_CHECKING:  # redis and rq are imported only when renders are spread
    from redis import Redis

    from aftershock.server.queue.render_queue import SpreadOptions


@dataclass(frozen=True)
class RenderSpread:
    """Where a worker's reviews spread their large render steps: the queue's Redis and how."""

    connection: Redis
    options: SpreadOptions


class RendererPool:
    """One open renderer per thread, closed together at the end; with `spread`, each one renders
    large steps as batches on the workers (`server.queue.render_queue`)."""

    def __init__(self, settings: RenderSettings, spread: RenderSpread | None = None) -> None:
        self._settings = settings
        self._spread = spread
        self._local = threading.local()
        self._stack = ExitStack()
        self._guard = threading.Lock()

    def get(self) -> Renderer:
        renderer = getattr(self._local, "renderer", None)
        if renderer is None:
            s = self._settings
            with self._guard:
                renderer = self._stack.enter_context(
                    open_renderer(
                        s.renderer,
                        helm_binary=s.helm_binary,
                        timeout_seconds=s.timeout_seconds,
                        workers=s.workers,
                    )
                )
            if self._spread is not None:
                renderer = self._spreading(renderer, self._spread)
            self._local.renderer = renderer
        return renderer

    def _spreading(self, local: Renderer, spread: RenderSpread) -> Renderer:
        from aftershock.render.limits import DEFAULT_MAX_MEMORY_MIB
        from aftershock.server.queue.render_batches import RenderSpec
        from aftershock.server.queue.render_queue import QueueRenderer

        s = self._settings
        spec = RenderSpec(s.renderer, s.timeout_seconds, DEFAULT_MAX_MEMORY_MIB)
        return QueueRenderer(local, spread.connection, spec, spread.options)

    def close(self) -> None:
        with self._guard:
            self._stack.close()


@dataclass(frozen=True)
class JobContext:
    settings: ServiceSettings
    store: StateStore
    ledger: Ledger
    access: GitHubAccess
    metrics: Metrics
    renderers: RendererPool
