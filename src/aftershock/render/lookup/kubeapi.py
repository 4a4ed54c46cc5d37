"""A read-only Kubernetes API server on loopback that serves a `ClusterSnapshot` to Helm's `lookup`.

Helm's `lookup` (pkg/engine/lookup_func.go) asks discovery for the apiVersion's resources
(`/api/v1`, `/apis/<group>/<version>`), finds the kind there (its resource name and whether it is
namespaced), then GETs one object or a list through the dynamic client; a 404 becomes an empty map.
This server answers exactly those requests from the snapshot, so the Helm code that runs is Helm's
own. Hand-written (not a library) because only these few routes are needed and their answers must be
what a real API server gives: a list is `<Kind>List` of the apiVersion with `items` in namespace
then name order; a kind the cluster does not serve is absent from discovery, which makes Helm's
lookup return an empty map. Resource names are the lowercased kind (Helm only uses them in the URL).
It records the key of every object it returned, which a render reports as its observed lookups, and
each discovery request for a line trace's marker group (`TRACE_GROUP`).
A snapshot may hold Secrets: the server answers only under a random path prefix of its own, which
only the kubeconfig it writes for Helm knows (client-go does not send credentials to plain HTTP).

Its HTTP is a lean HTTP/1.1 keep-alive loop over GET requests, not `http.server`'s handler: a line
trace makes two requests per run of a template scope that ran markers (discovery of their group, and
`/api`), and `http.server` parses each request's headers with the email parser, which cost half the
CPU of a traced render (0.15 ms a request against 0.06). Anything but a well-formed GET closes the connection.
"""

from __future__ import annotations

import hmac
import io
import json
import secrets
import threading
from http import HTTPStatus
from socketserver import StreamRequestHandler, ThreadingTCPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from aftershock.render.lookup.cluster import ClusterKey, ClusterSnapshot, object_key

# Line traces (render/lookup/line_trace.py) ask discovery for `<markers>.trace.aftershock.dev/v1`
# (the markers a run of a template scope ran, `m3-m12`): the request itself is the observation,
# recorded as a `LineTrace` named by each marker; the group serves no kind, so Helm's lookup returns
# an empty map.
TRACE_GROUP = "trace.aftershock.dev"
TRACE_KIND = "LineTrace"
MARKER_SEPARATOR = "-"  # a scope asks once for every marker it ran: `m3-m12.trace.aftershock.dev`


def _resource_list(snapshot: ClusterSnapshot, api_version: str) -> dict[str, Any]:
    resources = [
        {
            "name": kind.lower(),
            "singularName": kind.lower(),
            "namespaced": namespaced,
            "kind": kind,
            "verbs": ["get", "list"],
        }
        for kind, namespaced in snapshot.kinds(api_version)
    ]
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": api_version,
        "resources": resources,
    }


def _not_found(what: str) -> tuple[int, dict[str, Any]]:
    return 404, {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f"{what} not found",
        "reason": "NotFound",
        "code": 404,
    }


def _split(path: str) -> tuple[str, list[str]] | None:
    """(apiVersion, the segments after it) of an /api/v1/... or /apis/<g>/<v>/... path."""
    parts = [unquote(part) for part in path.strip("/").split("/")]
    if len(parts) >= 2 and parts[0] == "api" and parts[1] == "v1":
        return "v1", parts[2:]
    if len(parts) >= 3 and parts[0] == "apis":
        return f"{parts[1]}/{parts[2]}", parts[3:]
    return None


class SnapshotServer:
    """The server, started at construction on 127.0.0.1 (a free port); `use` swaps the snapshot it
    serves and clears what it recorded. One render at a time uses a server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshot = ClusterSnapshot()
        self._returned: list[ClusterKey] = []
        # apiVersion -> its resource list, for the snapshot in use: a marker Helm runs in a loop or
        # in a template included many times asks for the same one each time
        self._discovery: dict[str, dict[str, Any]] = {}
        self._token = secrets.token_hex(16)
        # socketserver's, not http.server's: that module loads the email package for nothing here
        self._http = ThreadingTCPServer(("127.0.0.1", 0), self._handler_class())
        self._http.daemon_threads = True
        self._thread = threading.Thread(
            target=self._http.serve_forever, name="kubeapi", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/{self._token}"

    def kubeconfig(self) -> str:
        """A kubeconfig whose only context is this server."""
        return json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "snapshot",
                "clusters": [{"name": "snapshot", "cluster": {"server": self.url}}],
                "contexts": [
                    {"name": "snapshot", "context": {"cluster": "snapshot", "user": "helm"}}
                ],
                "users": [{"name": "helm", "user": {}}],
            }
        )

    def use(self, snapshot: ClusterSnapshot) -> None:
        with self._lock:
            self._snapshot = snapshot
            self._returned = []
            self._discovery = {}

    def returned(self) -> tuple[ClusterKey, ...]:
        """The keys of the objects served since `use`, each once, in the order first served."""
        with self._lock:
            return tuple(dict.fromkeys(self._returned))

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def unprefixed(self, path: str) -> str | None:
        """`path` without the server's secret prefix; None when it does not start with it."""
        prefix, _, rest = path.lstrip("/").partition("/")
        if not hmac.compare_digest(prefix.encode("utf-8"), self._token.encode("utf-8")):
            return None
        return "/" + rest

    def answer(self, path: str) -> tuple[int, dict[str, Any]]:
        """The status and body for a GET of `path` (query ignored)."""
        with self._lock:
            snapshot = self._snapshot
        split = _split(urlsplit(path).path)
        if split is None:
            return _not_found(path)
        api_version, rest = split
        if not rest:
            group = api_version.rpartition("/")[0]
            if group.endswith(f".{TRACE_GROUP}"):  # a line trace's marker: recorded, serves nothing
                markers = group.removesuffix(f".{TRACE_GROUP}").split(MARKER_SEPARATOR)
                keys = [ClusterKey(f"{m}.{TRACE_GROUP}/v1", TRACE_KIND, "", m) for m in markers]
                with self._lock:
                    self._returned.extend(keys)
            return 200, self._resource_list(snapshot, api_version)
        namespace: str | None = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        kinds = {
            kind.lower(): (kind, namespaced) for kind, namespaced in snapshot.kinds(api_version)
        }
        if rest[0] not in kinds or len(rest) > 2:
            return _not_found(path)
        kind, namespaced = kinds[rest[0]]
        if len(rest) == 1:
            items = snapshot.items(api_version, kind, namespace if namespaced else None)
            self._record(items)
            return 200, {
                "apiVersion": api_version,
                "kind": f"{kind}List",
                "metadata": dict(snapshot.list_metadata),
                "items": list(items),
            }
        if namespaced and namespace is None:
            return _not_found(path)  # a namespaced object has no cluster-wide name
        found = snapshot.get(api_version, kind, (namespace or "") if namespaced else "", rest[1])
        if found is None:
            return _not_found(f'{rest[0]} "{rest[1]}"')
        self._record([found])
        return 200, dict(found)

    def _resource_list(self, snapshot: ClusterSnapshot, api_version: str) -> dict[str, Any]:
        with self._lock:
            found = self._discovery.get(api_version) if snapshot is self._snapshot else None
        if found is None:
            found = _resource_list(snapshot, api_version)
            with self._lock:
                if snapshot is self._snapshot:
                    self._discovery[api_version] = found
        return found

    def _record(self, bodies: list[Any]) -> None:
        with self._lock:
            self._returned.extend(key for body in bodies if (key := object_key(body)) is not None)

    def _handler_class(self) -> type[StreamRequestHandler]:
        server = self

        class Handler(StreamRequestHandler):
            disable_nagle_algorithm = True  # else headers and body wait on delayed ACKs (40 ms)

            def handle(self) -> None:
                while (request := _read_get_request(self.rfile)) is not None:
                    target, keep_alive = request
                    path = server.unprefixed(target)
                    status, body = server.answer(path) if path is not None else _UNAUTHORIZED
                    self.wfile.write(_encode_response(status, body, keep_alive))
                    if not keep_alive:
                        return

        return Handler


_UNAUTHORIZED = (
    401,
    {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "reason": "Unauthorized",
        "code": 401,
    },
)
_MAX_LINE = 65536
_MAX_HEADERS = 100


def _read_get_request(stream: io.BufferedIOBase) -> tuple[str, bool] | None:
    """(target, keep the connection) of the next GET request on `stream`; None at its end or when
    the request is anything else (the caller then closes the connection, answering nothing)."""
    line = stream.readline(_MAX_LINE + 1)
    parts = line.decode("latin-1").split()
    if len(parts) != 3 or parts[0] != "GET" or not parts[2].startswith("HTTP/1."):
        return None
    keep_alive = parts[2] == "HTTP/1.1"
    for _ in range(_MAX_HEADERS + 1):
        header = stream.readline(_MAX_LINE + 1)
        if header in (b"\r\n", b"\n"):
            return parts[1], keep_alive
        name, colon, value = header.decode("latin-1").partition(":")
        if not colon or len(header) > _MAX_LINE:
            return None
        name, value = name.strip().lower(), value.strip().lower()
        if name == "connection" and value == "close":
            keep_alive = False
        elif name in ("content-length", "transfer-encoding") and value not in ("", "0"):
            return None  # a GET with a body: not a client this server serves
    return None  # no end of headers


def _encode_response(status: int, body: dict[str, Any], keep_alive: bool) -> bytes:
    """The HTTP/1.1 response carrying `body` as JSON."""
    data = json.dumps(body, separators=(",", ":")).encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n"
        + ("" if keep_alive else "Connection: close\r\n")
        + "\r\n"
    )
    return head.encode("latin-1") + data
