"""The ASGI application: POST /webhook, GET /healthz and GET /metrics (Starlette, served by uvicorn).

A delivery is read up to the body limit (413 beyond), its signature checked in constant time
(401 when missing or wrong, before anything else is looked at), recorded, and answered; its job
is dispatched after the answer has gone out, as a background task. A signed body that is not JSON,
nests too deeply to parse, or has a field of the wrong type answers 400 with one log line. A job
accepted while the queue is down answers 503: it is recorded, and the reconciler queues it when the
queue is back (GitHub's redelivery of it is then a duplicate). A delivery that cannot be recorded
because the state database is down answers 202 `spooled`: it is kept on disk, and recorded and
dispatched when the database answers again (see `spool`). A client that stops sending its body
before the body timeout (`server.http`) gets nothing: its connection is closed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from aftershock.server.github.events import MalformedPayload
from aftershock.server.github.signature import SIGNATURE_HEADER, signature_valid
from aftershock.server.metrics import prometheus_text, sample
from aftershock.server.queue.reconcile import Reconciler
from aftershock.server.queue.spool import SpoolFull
from aftershock.server.service import WebhookService
from aftershock.state.errors import StateError

PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_log = logging.getLogger("aftershock.server")


class _TooLarge(Exception):
    pass


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _TooLarge()
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _TooLarge()
        chunks.append(chunk)
    return b"".join(chunks)


class _Endpoints:
    def __init__(self, service: WebhookService, recover_on_start: bool) -> None:
        self.service = service
        self.recover_on_start = recover_on_start

    def reject(self, reason: str, status: int, message: str) -> JSONResponse:
        self.service.metrics.increment(sample("aftershock_webhook_rejected_total", reason=reason))
        return JSONResponse({"error": message}, status_code=status)

    async def webhook(self, request: Request) -> Response:
        settings = self.service.settings
        try:
            body = await _body(request, settings.max_body_bytes)
        except _TooLarge:
            return self.reject("too_large", 413, f"body over {settings.max_body_bytes} bytes")
        except ClientDisconnect:  # gone, or cut by the body timeout: nobody hears an answer
            return self.reject("disconnected", 400, "the client left before its body arrived")
        if not signature_valid(
            settings.webhook_secret, body, request.headers.get(SIGNATURE_HEADER)
        ):
            return self.reject("signature", 401, f"missing or invalid {SIGNATURE_HEADER}")
        delivery = request.headers.get("x-github-delivery", "").strip()
        event = request.headers.get("x-github-event", "").strip()
        if not delivery or len(delivery) > 100:
            return self.reject("delivery", 400, "missing or overlong X-GitHub-Delivery")
        try:
            payload = json.loads(body)
        except (
            ValueError,
            RecursionError,
        ) as error:  # RecursionError: nested deeper than Python's stack
            _log.warning(
                "delivery %s refused: the body is not JSON (%s)", delivery, type(error).__name__
            )
            return self.reject("json", 400, "the body is not JSON")
        try:
            accepted = await anyio.to_thread.run_sync(self.service.accept, event, delivery, payload)
        except MalformedPayload as error:
            _log.warning(
                "delivery %s refused: malformed %s payload: %s",
                delivery,
                event or "(no event)",
                error,
            )
            return self.reject("payload", 400, f"malformed payload: {error}")
        except StateError as error:
            return await self.spool(event, delivery, payload, error)
        answer = {
            "delivery": delivery,
            "outcome": accepted.outcome.value,
            "reason": accepted.reason,
            "duplicate": accepted.duplicate,
        }
        if accepted.job is None:
            return JSONResponse(answer, status_code=200)
        if not await anyio.to_thread.run_sync(self.service.queue.healthy):
            _log.error("delivery %s recorded, not queued: the queue does not answer", delivery)
            self.service.metrics.increment(sample("aftershock_failures_total", stage="queue"))
            answer["error"] = (
                "the job queue is unavailable: the delivery is recorded and will be queued when it is back"
            )
            return JSONResponse(answer, status_code=503)
        return JSONResponse(
            answer, status_code=202, background=BackgroundTask(self.service.dispatch, accepted.job)
        )

    async def spool(
        self, event: str, delivery: str, payload: object, error: StateError
    ) -> JSONResponse:
        """Keep a delivery the ledger cannot take now; 202 when kept, 503 when even that fails."""
        self.service.metrics.increment(sample("aftershock_failures_total", stage="state"))
        try:
            kept = await anyio.to_thread.run_sync(self.service.spool.keep, event, delivery, payload)
        except (SpoolFull, OSError) as spool_error:
            _log.error(
                "delivery %s lost: the state database failed (%s) and the spool refused it: %s",
                delivery,
                error.line(),
                spool_error,
            )
            return self.reject("state", 503, "the state database is unavailable; redeliver later")
        _log.warning(
            "delivery %s spooled in %s: the state database failed: %s", delivery, kept, error.line()
        )
        reason = (
            "the state database is unavailable: the delivery is kept and will be recorded "
            "and processed when it is back"
        )
        return JSONResponse(
            {"delivery": delivery, "outcome": "spooled", "reason": reason, "duplicate": False},
            status_code=202,
        )

    async def healthz(self, request: Request) -> Response:
        healthy = await anyio.to_thread.run_sync(self.service.healthy)
        return JSONResponse(
            {"status": "ok" if healthy else "unavailable"}, status_code=200 if healthy else 503
        )

    async def metrics(self, request: Request) -> Response:
        try:
            values = await anyio.to_thread.run_sync(self.service.metrics.snapshot)
        except Exception as error:
            return PlainTextResponse(
                f"metrics unavailable: {type(error).__name__}\n", status_code=503
            )
        try:
            depth: int | None = await anyio.to_thread.run_sync(self.service.queue.depth)
        except Exception:
            depth = None
        return PlainTextResponse(prometheus_text(values, depth), media_type=PROMETHEUS_CONTENT_TYPE)

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        if self.recover_on_start:
            await anyio.to_thread.run_sync(self.service.recover)
        reconciler = Reconciler(self.service, self.service.settings.reconcile_seconds)
        reconciler.start()
        try:
            yield
        finally:
            await anyio.to_thread.run_sync(reconciler.stop)


def create_app(service: WebhookService, *, recover_on_start: bool = True) -> Starlette:
    """The application around `service`; on start it dispatches deliveries a previous process left."""
    endpoints = _Endpoints(service, recover_on_start)
    routes = [
        Route("/webhook", endpoints.webhook, methods=["POST"]),
        Route("/healthz", endpoints.healthz, methods=["GET"]),
        Route("/metrics", endpoints.metrics, methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=endpoints.lifespan)
