"""Slow clients against the real app on uvicorn with `serve`'s configuration (issue 22: 120 slow
clients stayed connected 25 s and were never closed): clients that send half a request line, or
headers and then a body a byte at a time, are cut at the header or body timeout; the connection cap
holds; a normal delivery gets through while they hang; an idle kept-alive connection is closed."""

from __future__ import annotations

import logging
import socket
import time

import httpx

from server_fakes import AppKey, FakeGitHub
from server_harness import deliver, service_settings, start_service

SLOW = 120
CAP = 100
TIMEOUT = 3.0


def _connect(port: int, first: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(first)
    sock.setblocking(False)
    return sock


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True  # reset


def _trickle(sock: socket.socket) -> bool:
    """One more byte of the body; False when the server has closed the connection."""
    try:
        sock.send(b"x")
    except BlockingIOError:
        pass
    except OSError:
        return False
    return not _closed(sock)


def _open_connections(running) -> int:
    return sum(1 for c in running.server.server_state.connections if not c.transport.is_closing())


def test_slow_clients_are_cut_at_the_timeouts_under_a_cap_and_a_delivery_gets_through(
    tmp_path, caplog
):
    from aftershock.server.settings import HttpLimits

    key = AppKey.generate()
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    limits = HttpLimits(
        header_timeout_seconds=TIMEOUT,
        body_timeout_seconds=TIMEOUT,
        keep_alive_seconds=1,
        max_connections=CAP,
    )
    running = start_service(service_settings(fake, key, tmp_path, http=limits))
    port = int(running.url.rsplit(":", 1)[1])
    partial_line = b"POST /webhook HTT"
    body_headers = (
        b"POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100000\r\n\r\n{"
    )
    sockets: list[socket.socket] = []
    try:
        started = time.monotonic()
        for n in range(SLOW):
            sockets.append(_connect(port, partial_line if n % 2 else body_headers))
        closed_at: dict[int, float] = {}
        while len(closed_at) < SLOW - CAP and time.monotonic() < started + TIMEOUT / 2:
            # the server accepts at its own pace (slower on a loaded CI machine): poll, don't sleep
            closed_at |= {
                n: 0.0 for n, s in enumerate(sockets) if n not in closed_at and _closed(s)
            }
            time.sleep(0.05)
        assert _open_connections(running) <= CAP
        assert len(closed_at) >= SLOW - CAP  # the oldest waiting gave way to the newer ones

        with httpx.Client() as client:  # while the rest hang
            answer = deliver(client, running.url, "ping", {"zen": "hi", "hook_id": 1}, "s-1")
        assert answer.status_code == 200, answer.text
        print(f"delivery answered {time.monotonic() - started:.2f} s after the first slow client")
        # answered while slow clients still hold their slots: no timeout freed one for it
        assert any(not _closed(s) for n, s in enumerate(sockets) if n not in closed_at)

        deadline = started + TIMEOUT + 60.0  # a guard against a hang, not a measure
        while len(closed_at) < SLOW and time.monotonic() < deadline:
            for n, sock in enumerate(sockets):
                if n in closed_at:
                    continue
                still_open = _trickle(sock) if n % 2 == 0 else not _closed(sock)
                if not still_open:
                    closed_at[n] = time.monotonic() - started
            assert _open_connections(running) <= CAP + 1  # the delivery's own, at most
            time.sleep(0.1)
        assert len(closed_at) == SLOW, f"{SLOW - len(closed_at)} slow clients still connected"
        cut = sorted(closed_at.values())
        print(f"slow clients closed: first {cut[0]:.2f} s, last {cut[-1]:.2f} s after the first")
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert errors == []  # a body cut short is no "Exception in ASGI application"

        idle = socket.create_connection(("127.0.0.1", port), timeout=5)
        idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answer_bytes = b""
        while not answer_bytes.endswith(b"}"):  # the headers, then the JSON body
            answer_bytes += idle.recv(4096)
        assert b"200 OK" in answer_bytes
        idle.settimeout(60.0)  # a guard against a hang; the server closes it after 1 s idle
        assert idle.recv(4096) == b""  # closed after the keep-alive timeout, not kept for ever
        idle.close()
    finally:
        for sock in sockets:
            sock.close()
        running.stop()
        fake.stop()
