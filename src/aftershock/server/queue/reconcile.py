"""The reconciler: a side thread of `serve` that hands deliveries left accepted to the queue once it is back.

A delivery whose job could not be queued (Redis down: the delivery was answered 503, or the queue
failed after the answer) stays `accepted` in the ledger. Every `interval_seconds`, when the queue
answers, the reconciler dispatches those older than `grace_seconds` (younger ones are still being
dispatched by the request that accepted them); `WebhookService.dispatch` queues a delivery once.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

_log = logging.getLogger("aftershock.server")


class Reconcilable(Protocol):
    def reconcile(self, grace_seconds: float) -> int: ...


class Reconciler:
    def __init__(
        self, service: Reconcilable, interval_seconds: float, grace_seconds: float = 5.0
    ) -> None:
        self._service = service
        self._interval = interval_seconds
        self._grace = grace_seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, name="aftershock-reconciler", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout_seconds: float = 30.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout_seconds)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                handed = self._service.reconcile(self._grace)
            except Exception as error:
                _log.warning("reconciler: %s: %s", type(error).__name__, error)
                continue
            if handed:
                _log.warning(
                    "reconciler: queued %d delivery(ies) left accepted while the queue was down",
                    handed,
                )
