"""How `serve` speaks HTTP: uvicorn's h11 protocol with a header timeout, a body timeout and a cap on
open connections (`HttpLimits`), behind a guard on the header count and on double framing (`RequestGuard`).

uvicorn 0.54 closes an idle kept-alive connection (`timeout_keep_alive`) but waits for ever on a
client that sends its request line, headers or body slowly, and its `limit_concurrency` only answers
503 once a request's headers are in: slow clients are never cut, and they count against the limit,
so a real delivery is the one refused. Here each connection is watched while it waits on its client:
until its headers are complete (`header_timeout_seconds`, from the connection or the end of the
previous response) and then until its body is (`body_timeout_seconds`); past either it is closed.
While the application works on a request nothing is timed. At `max_connections` a new connection
displaces the open one that has waited on its client longest; when none is waiting, the new one is
closed at once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from aftershock.server.settings import HttpLimits

_log = logging.getLogger("aftershock.server")


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, cut off from clients that keep it waiting (see the module)."""

    limits: ClassVar[HttpLimits] = HttpLimits()

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.waiting_for: str | None = None  # "headers" or "body" while the client owes them
        self.waiting_since = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch()
        if _open_count(self.connections) > self.limits.max_connections:
            self._make_room()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    def _owed(self) -> str | None:
        their = self.conn.their_state
        if their is h11.IDLE and (self.cycle is None or self.cycle.response_complete):
            return "headers"
        if their is h11.SEND_BODY:
            return "body"
        return None  # the request is in: the application has it

    def _watch(self) -> None:
        owed = self._owed() if not self.transport.is_closing() else None
        if owed == self.waiting_for:
            return  # still waiting on the same part: its deadline stands
        self._stop_timer()
        self.waiting_for, self.waiting_since = owed, self.loop.time()
        if owed is not None:
            limits = self.limits
            seconds = (
                limits.header_timeout_seconds if owed == "headers" else limits.body_timeout_seconds
            )
            self._timer = self.loop.call_later(
                seconds, self.cut, f"no complete {owed} in {seconds:g} s"
            )

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _make_room(self) -> None:
        waiting = [
            c
            for c in self.connections
            if isinstance(c, GuardedH11Protocol)
            and c is not self
            and c.waiting_for is not None
            and not c.transport.is_closing()
        ]
        if waiting:
            min(waiting, key=lambda c: c.waiting_since).cut("displaced at the connection cap")
        else:
            self.cut(f"over the cap of {self.limits.max_connections} connections")

    def cut(self, why: str) -> None:
        """Close the connection (the application, if it was reading the body, sees a disconnect)."""
        self._stop_timer()
        self.waiting_for = None
        if not self.transport.is_closing():
            _log.debug("closed the connection of %s: %s", self.client, why)
            self.transport.close()


def _open_count(connections: set[Any]) -> int:
    return sum(1 for c in connections if not c.transport.is_closing())


def guarded_protocol(limits: HttpLimits) -> type[GuardedH11Protocol]:
    """The protocol class for one server, with its limits."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"limits": limits})


MAX_REQUEST_HEADERS = 100  # GitHub sends about 20; Go's and nginx's servers cap the block near here


class RequestGuard:
    """ASGI middleware refusing what h11 lets through: a request with more than `max_headers` header
    fields (431; h11 bounds only a header block that arrives in pieces), and one carrying both
    `Content-Length` and `Transfer-Encoding` (400: two framings are how requests are smuggled past a
    proxy, RFC 9112 section 6.1)."""

    def __init__(self, app: Any, max_headers: int = MAX_REQUEST_HEADERS) -> None:
        self.app = app
        self.max_headers = max_headers

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = scope.get("headers") or []
            names = {name.lower() for name, _ in headers}
            if len(headers) > self.max_headers:
                await _refuse(send, 431, f"more than {self.max_headers} request header fields")
                return
            if b"content-length" in names and b"transfer-encoding" in names:
                await _refuse(send, 400, "both Content-Length and Transfer-Encoding")
                return
        await self.app(scope, receive, send)


async def _refuse(send: Any, status: int, why: str) -> None:
    body = f"refused: {why}\n".encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def uvicorn_config(
    app: Any, limits: HttpLimits, host: str, port: int, *, log_level: str = "info"
) -> uvicorn.Config:
    """The uvicorn configuration `serve` (and the tests) run the application with."""
    return uvicorn.Config(
        RequestGuard(app),
        host=host,
        port=port,
        http=guarded_protocol(limits),
        timeout_keep_alive=limits.keep_alive_seconds,
        log_level=log_level,
        access_log=False,
        lifespan="on",
    )
