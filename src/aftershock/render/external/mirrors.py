"""Registry mirrors: a chart whose repository host has a mirror (`ghcr.io=http://127.0.0.1:5000`, a
Harbor or Zot proxy of ghcr.io, a Nexus proxy of a chart repository) is downloaded from the mirror
instead, the mirror's URL taking the place of the original's scheme and host, its path (if any)
prepended to the original path: `oci://ghcr.io/org/charts/app` through `https://harbor.lan/ghcr`
is pulled from `https://harbor.lan/v2/ghcr/org/charts/app/…`, and `https://charts.example/stable/`
through `https://nexus.lan/repo` reads `https://nexus.lan/repo/stable/index.yaml`.

Only where the bytes come from changes: the chart keeps its original repository, so it is checked
against the digest the mirror's index.yaml (manifest) records and stored in the chart cache under
the same name a download from the original would have, where a later offline review finds it. A
mirror over plain http is allowed on loopback only, unless plain http is asked for (`--plain-http`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from aftershock.model.errors import ConfigError
from aftershock.render.external.oci_registry import is_loopback


@dataclass(frozen=True)
class Mirror:
    """Where charts of repositories on `host` (`host[:port]`, lower case) are downloaded from: `url`,
    `scheme://host[:port][/path]` without a trailing slash."""

    host: str
    url: str

    @property
    def plain_http(self) -> bool:
        return self.url.startswith("http://")

    def place(self, path: str) -> str:
        """The mirror's URL of the original's `path` (`/stable/index.yaml`, `/`, or empty)."""
        return f"{self.url}/{path.lstrip('/')}"


def parse_mirror(given: str, plain_http: bool = False) -> Mirror:
    """`HOST=URL` as a Mirror; ConfigError saying what is wrong (a plain http mirror off loopback
    without `plain_http` among it)."""
    host, sep, url = given.partition("=")
    host, url = host.strip().lower(), url.strip().rstrip("/")
    parts = urlsplit(url)
    if not sep or not host or "/" in host or "://" in host:
        raise ConfigError(
            f"--mirror {given}: not HOST=URL",
            hint="name the original registry's host, e.g. --mirror ghcr.io=https://harbor.example/ghcr",
        )
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ConfigError(
            f"--mirror {given}: {url or '(empty)'} is not an http(s) URL",
            hint="write the mirror as https://host[:port][/path]",
        )
    if parts.scheme == "http" and not plain_http and not is_loopback(parts.hostname):
        raise ConfigError(
            f"--mirror {given}: plain http off loopback",
            hint="use https, or pass --plain-http for a mirror you trust over plain http",
        )
    return Mirror(host, url)


def mirror_for(url: str, mirrors: Sequence[Mirror]) -> Mirror | None:
    """The mirror of the host `url` (http, https or oci) names, if one is given."""
    netloc = urlsplit(url).netloc.lower()
    return next((m for m in mirrors if m.host == netloc), None)


def mirrored(url: str, mirrors: Sequence[Mirror]) -> str:
    """`url` (http or https) on its host's mirror; itself when its host has none."""
    mirror = mirror_for(url, mirrors)
    if mirror is None:
        return url
    parts = urlsplit(url)
    return mirror.place(parts.path) + (f"?{parts.query}" if parts.query else "")
