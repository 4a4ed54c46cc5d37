"""A small OCI registry on loopback, serving Helm charts as `helm push` stores them: manifests by
tag, blobs by digest, errors in the distribution spec's JSON, and, when it has a `token`, the
anonymous Bearer dance registries do (401 with a challenge naming its token realm)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
CHART_LAYER = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
CONFIG = "application/vnd.cncf.helm.config.v1+json"


@dataclass
class Registry:
    url: str = ""  # http://127.0.0.1:PORT
    manifests: dict[str, bytes] = field(default_factory=dict)  # "charts/lib:3.0.0"
    blobs: dict[str, bytes] = field(default_factory=dict)  # "sha256:…"
    token: str | None = None  # when set, every /v2/ request needs `Bearer <token>`
    asked: list[str] = field(default_factory=list)  # "GET /path (auth)" as requests came

    def push(
        self,
        name: str,
        tag: str,
        archive: bytes,
        layer: str = CHART_LAYER,
        served: bytes | None = None,
    ) -> str:
        """`archive` under `name:tag`; the blob served for its digest is `served` when given."""
        config = b'{"name":"lib","version":"3.0.0","apiVersion":"v2"}'
        digest = "sha256:" + hashlib.sha256(archive).hexdigest()
        config_digest = "sha256:" + hashlib.sha256(config).hexdigest()
        self.blobs[digest] = archive if served is None else served
        self.blobs[config_digest] = config
        manifest = {
            "schemaVersion": 2,
            "mediaType": MANIFEST,
            "config": {"mediaType": CONFIG, "digest": config_digest, "size": len(config)},
            "layers": [{"mediaType": layer, "digest": digest, "size": len(archive)}],
        }
        self.manifests[f"{name}:{tag}"] = json.dumps(manifest).encode()
        return digest


class _Handler(BaseHTTPRequestHandler):
    registry: Registry

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        auth = self.headers.get("Authorization")
        self.registry.asked.append(f"GET {self.path} ({auth or 'anonymous'})")
        parts = urlsplit(self.path)
        if parts.path == "/token":
            return self._answer(200, json.dumps({"token": self.registry.token}).encode())
        name, kind, reference = _route(parts.path)
        if self.registry.token and auth != f"Bearer {self.registry.token}":
            challenge = (
                f'Bearer realm="{self.registry.url}/token",service="fake",'
                f'scope="repository:{name}:pull"'
            )
            return self._answer(401, _errors("UNAUTHORIZED"), {"WWW-Authenticate": challenge})
        if kind == "manifests" and f"{name}:{reference}" in self.registry.manifests:
            body = self.registry.manifests[f"{name}:{reference}"]
            return self._answer(200, body, {"Content-Type": MANIFEST})
        if kind == "blobs" and reference in self.registry.blobs:
            return self._answer(200, self.registry.blobs[reference])
        code = "MANIFEST_UNKNOWN" if kind == "manifests" else "BLOB_UNKNOWN"
        return self._answer(404, _errors(code))

    def _answer(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in {"Content-Length": str(len(body)), **(headers or {})}.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)


def _route(path: str) -> tuple[str, str, str]:
    """`/v2/<name>/<kind>/<reference>` as (name, kind, reference); kind "" for any other path."""
    head, _, reference = path.removeprefix("/v2/").rpartition("/")
    name, _, kind = head.rpartition("/")
    return (name, kind, reference) if path.startswith("/v2/") else ("", "", "")


def _errors(code: str) -> bytes:
    return json.dumps({"errors": [{"code": code, "message": code.lower()}]}).encode()


@contextmanager
def serve_registry() -> Iterator[Registry]:
    registry = Registry()
    handler = type("Handler", (_Handler,), {"registry": registry})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    registry.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield registry
    finally:
        server.shutdown()
        server.server_close()
