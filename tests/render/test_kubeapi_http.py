"""The loopback API server's HTTP: keep-alive GETs answered in order, anything else closed unanswered.

Real sockets on loopback against a running `SnapshotServer`; `http.client` is the client.
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from aftershock.render.lookup.cluster import snapshot_from_objects
from aftershock.render.lookup.kubeapi import TRACE_GROUP, SnapshotServer

CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "platform-config", "namespace": "platform-system"},
    "data": {"host": "db.internal"},
}


@pytest.fixture
def server() -> Iterator[SnapshotServer]:
    running = SnapshotServer()
    running.use(snapshot_from_objects([CONFIG]))
    try:
        yield running
    finally:
        running.close()


def _address(server: SnapshotServer) -> tuple[str, int, str]:
    url = urlsplit(server.url)
    assert url.hostname is not None and url.port is not None
    return url.hostname, url.port, url.path


def test_one_connection_carries_many_requests_each_answered_and_recorded(server):
    host, port, prefix = _address(server)
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        answers, sockets = [], []
        for path in (
            f"/apis/m1.{TRACE_GROUP}/v1?timeout=32s",
            "/api/v1/namespaces/platform-system/configmap/platform-config",
            "/api",
        ):
            connection.request("GET", prefix + path)
            response = connection.getresponse()
            answers.append((response.status, json.loads(response.read())))
            sockets.append(connection.sock)  # None, or a new socket, had the server closed it
    finally:
        connection.close()
    assert sockets[0] is not None and sockets == [sockets[0]] * 3
    assert [status for status, _ in answers] == [200, 200, 404]
    assert answers[1][1] == CONFIG
    assert [key.name for key in server.returned()] == ["m1", "platform-config"]


def _raw(server: SnapshotServer, request: bytes) -> bytes:
    host, port, _ = _address(server)
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):  # the server closes the connection after its answer
            chunks.append(chunk)
    return b"".join(chunks)


def test_an_http_1_0_request_is_answered_then_closed(server):
    _, _, prefix = _address(server)
    answer = _raw(server, f"GET {prefix}/api HTTP/1.0\r\nHost: x\r\n\r\n".encode())
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 404 Not Found\r\n") and b"Connection: close" in head
    assert json.loads(body)["reason"] == "NotFound"


@pytest.mark.parametrize(
    "request_text",
    [
        "POST {prefix}/api HTTP/1.1\r\nContent-Length: 2\r\n\r\n{{}}",
        "GET {prefix}/api HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "GET {prefix}/api\r\n\r\n",
        "GET {prefix}/api HTTP/1.1\r\nno colon here\r\n\r\n",
    ],
)
def test_anything_but_a_well_formed_get_is_closed_unanswered(server, request_text):
    _, _, prefix = _address(server)
    assert _raw(server, request_text.format(prefix=prefix).encode()) == b""
    assert server.returned() == ()


def test_a_wrong_prefix_is_refused_and_the_connection_stays_open(server):
    host, port, prefix = _address(server)
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.request("GET", "/not-the-token/api/v1")
        refused = connection.getresponse()
        assert refused.status == 401 and json.loads(refused.read())["reason"] == "Unauthorized"
        connection.request("GET", prefix + "/api/v1/namespaces/platform-system/configmap")
        listed = connection.getresponse()
        assert json.loads(listed.read())["items"] == [CONFIG]
    finally:
        connection.close()


def test_discovery_answers_follow_the_snapshot_in_use(server):
    """A group's resource list is kept for the snapshot in use (a marker in a loop asks for it each
    time) and made again for the next one."""
    host, port, prefix = _address(server)
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}

    def kinds() -> list[str]:
        connection = http.client.HTTPConnection(host, port, timeout=10)
        try:
            connection.request("GET", prefix + "/apis/example.com/v1")
            return [r["kind"] for r in json.loads(connection.getresponse().read())["resources"]]
        finally:
            connection.close()

    assert kinds() == kinds() == []
    server.use(snapshot_from_objects([CONFIG, widget]))
    assert kinds() == ["Widget"]
