"""What a running job may use: the settings, the state store and ledger, GitHub, metrics, and renderers."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from dataclasses import dataclass

from aftershock.pipeline import open_renderer
from aftershock.render.interface import Renderer
from aftershock.server.github.github_auth import GitHubAccess
from aftershock.server.metrics import Metrics
from aftershock.server.queue.ledger import Ledger
from aftershock.server.settings import RenderSettings, ServiceSettings
from aftershock.state.store import StateStore


class RendererPool:
    """One open renderer per thread, closed together at the end."""

    def __init__(self, settings: RenderSettings) -> None:
        self._settings = settings
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
            self._local.renderer = renderer
        return renderer

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
