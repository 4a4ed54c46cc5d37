"""Charts from OCI registries (`oci://host/path`), pulled as `helm pull` pulls them, over the OCI
distribution API: the manifest of the chart's tag (the version, `+` written `_` as Helm writes it),
its Helm chart layer, and that layer's blob, checked against the layer's sha256 digest and size
before anything is returned. A registry answering 401 with a Bearer challenge is asked once for an
anonymous token (no credentials are read or sent). Plain http only for a loopback registry or when
asked (`plain_http`, Helm's `--plain-http`); every other request is https. A registry's mirror
(render/external/mirrors.py, checked there for plain http) is asked for the same path under its own.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

from aftershock.model.errors import AftershockError
from aftershock.render.external.bounded_http import read_capped

MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json"
CHART_LAYER = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
LEGACY_CHART_LAYER = "application/tar+gzip"  # what Helm before 3.8 pushed; Helm still pulls it
MAX_MANIFEST_BYTES = 4 * 2**20  # the manifest size the distribution spec has registries accept
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_PARAM = re.compile(r'(\w+)="([^"]*)"')
_Auth = dict[str, str]

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True)
class OciChart:
    """A chart's place in a registry: `base` (scheme://host[:port]), `path` (`<path>/<name>`), `tag`."""

    base: str
    path: str
    tag: str
    plain_http: bool  # http allowed for every request (loopback, or asked for)
    shown: str  # oci://host/path/name:tag of the original registry
    mirror: str | None = None  # the mirror's URL when `base` is a mirror's

    def url(self, kind: str, reference: str) -> str:
        return f"{self.base}/v2/{self.path}/{kind}/{reference}"

    @property
    def named(self) -> str:
        """The chart as messages name it: its original place, and the mirror asked for it."""
        return self.shown + (f" (mirror {self.mirror})" if self.mirror else "")


def locate(
    repository: str, name: str, version: str, plain_http: bool = False, mirror: str | None = None
) -> OciChart:
    """Where `name` at `version` of the `oci://` repository is: on the registry itself, or on its
    `mirror` (`http(s)://host[:port][/path]`, render/external/mirrors.py) when one is given;
    AftershockError for a malformed URL."""
    parts = urlsplit(repository)
    if parts.scheme != "oci" or not parts.hostname:
        raise AftershockError(
            f"{repository} is not an OCI registry URL",
            hint="write the repository as oci://host/path",
        )
    tag = version.replace("+", "_")
    path = "/".join(p for p in (*parts.path.split("/"), name) if p)
    shown = f"oci://{parts.netloc}/{path}:{tag}"
    if mirror is not None:
        where = urlsplit(mirror)
        path = "/".join(p for p in (*where.path.split("/"), path) if p)
        base, plain = f"{where.scheme}://{where.netloc}", where.scheme == "http"
        return OciChart(base, path, tag, plain, shown, mirror)
    plain = plain_http or is_loopback(parts.hostname)
    return OciChart(f"{'http' if plain else 'https'}://{parts.netloc}", path, tag, plain, shown)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def pull(chart: OciChart, archive_name: str, timeout: float, max_bytes: int) -> tuple[bytes, str]:
    """The chart archive and its sha256 digest (hex), as the manifest's chart layer names them;
    AftershockError saying what and where when the registry does not serve exactly that."""
    import httpx  # on use only, as chart_archives does: a review that fetches nothing never loads it

    with httpx.Client(timeout=timeout, follow_redirects=True) as client:
        url = chart.url("manifests", chart.tag)
        status, body, auth = _get(client, chart, url, MANIFEST_TYPE, MAX_MANIFEST_BYTES, {})
        if status == 404:
            raise AftershockError(
                f"{archive_name}: no tag {chart.tag} in {chart.shown.rsplit(':', 1)[0]}{_on(chart)}",
                where=f"GET {url} answered 404{_registry_code(body)}",
                hint="check the version Chart.lock pins and that the chart is pushed to that registry",
            )
        _expect_ok(status, url, chart)
        digest, size = _chart_layer(body, chart, max_bytes)
        url = chart.url("blobs", digest)
        status, data, _ = _get(client, chart, url, "*/*", max_bytes, auth)
        _expect_ok(status, url, chart)
    got = hashlib.sha256(data).hexdigest()
    if got != digest.removeprefix("sha256:") or len(data) != size:
        raise AftershockError(
            f"chart archive {archive_name} from {chart.named} does not match its manifest's layer "
            f"digest {digest} ({size} bytes; got sha256:{got}, {len(data)} bytes)",
            where=url,
            hint="nothing was kept; the registry serves another blob than its manifest names",
        )
    return data, got


def _get(
    client: httpx.Client, chart: OciChart, url: str, accept: str, limit: int, auth: _Auth
) -> tuple[int, bytes, _Auth]:
    """Status and body of a GET; on a first 401, again with an anonymous token (returned for reuse)."""
    status, headers, body = _send(client, url, {"Accept": accept, **auth}, limit)
    if status == 401 and not auth:
        auth = {"Authorization": f"Bearer {_token(client, chart, headers)}"}
        status, headers, body = _send(client, url, {"Accept": accept, **auth}, limit)
    if status == 401:
        raise AftershockError(
            f"{chart.named} is not public, or not there: the registry refuses an anonymous pull",
            where=f"GET {url} answered 401",
            hint="pull the chart with `helm registry login` and `helm pull … -d DIR` into the cache",
        )
    return status, body, auth


def _send(
    client: httpx.Client, url: str, headers: _Auth, limit: int
) -> tuple[int, httpx.Headers, bytes]:
    import httpx

    try:
        with client.stream("GET", url, headers=headers) as response:
            body = read_capped(response, url, limit, "that is no chart this review reads")
            return response.status_code, response.headers, body
    except httpx.HTTPError as error:
        raise AftershockError(
            f"GET {url} failed: {error}",
            hint="check the network, or put the archive in the chart cache",
        ) from None


def _token(client: httpx.Client, chart: OciChart, headers: httpx.Headers) -> str:
    """An anonymous token from the realm a `WWW-Authenticate: Bearer realm=…` challenge names."""
    challenge = headers.get("www-authenticate", "")
    scheme, _, rest = challenge.partition(" ")
    params = dict(_PARAM.findall(rest))
    realm = params.pop("realm", "")
    if scheme.lower() != "bearer" or not realm:
        raise AftershockError(
            f"{chart.named} asks for credentials ({challenge or 'no challenge'}), not an anonymous token",
            hint="pull the chart with `helm registry login` and `helm pull … -d DIR` into the cache",
        )
    if not realm.startswith("https://") and not (realm.startswith("http://") and chart.plain_http):
        raise AftershockError(
            f"{chart.named} names token realm {realm}, which is not https",
            hint="pass --plain-http only for a registry you trust over plain http",
        )
    params.setdefault("scope", f"repository:{chart.path}:pull")
    url = f"{realm}{'&' if '?' in realm else '?'}{urlencode(params)}"
    status, _, body = _send(client, url, {"Accept": "application/json"}, MAX_MANIFEST_BYTES)
    answer = _json(body) if status == 200 else None
    token = answer.get("token") or answer.get("access_token") if isinstance(answer, dict) else None
    if not isinstance(token, str) or not token:
        raise AftershockError(
            f"{chart.named}: the token realm gives no anonymous token",
            where=f"GET {url} answered {status}",
            hint="pull the chart with `helm registry login` and `helm pull … -d DIR` into the cache",
        )
    return token


def _chart_layer(body: bytes, chart: OciChart, max_bytes: int) -> tuple[str, int]:
    """The digest and size of the manifest's Helm chart layer, within the size bound."""
    manifest = _json(body)
    layers = manifest.get("layers") if isinstance(manifest, dict) else None
    layers = [la for la in layers if isinstance(la, dict)] if isinstance(layers, list) else []
    types = [str(la.get("mediaType")) for la in layers]
    wanted = CHART_LAYER if CHART_LAYER in types else LEGACY_CHART_LAYER
    if wanted not in types:
        raise AftershockError(
            f"{chart.named} holds no Helm chart (no layer of type {CHART_LAYER}; "
            f"its layers: {', '.join(types) or 'none'})",
            hint="name the chart's own repository in Chart.yaml; this artifact is not a chart `helm push` wrote",
        )
    layer = layers[types.index(wanted)]
    digest, size = str(layer.get("digest")), layer.get("size")
    if not _DIGEST.match(digest) or not isinstance(size, int) or size < 0:
        raise AftershockError(
            f"{chart.named}: the chart layer names digest {digest!r} and size {size!r}",
            hint="only sha256 digests are checked; re-push the chart with Helm",
        )
    if size > max_bytes:
        raise AftershockError(
            f"{chart.named}: the chart layer is {size} bytes, over {max_bytes}",
            hint="that is no chart archive this review reads",
        )
    return digest, size


def _on(chart: OciChart) -> str:
    return f" on mirror {chart.mirror}" if chart.mirror else ""


def _expect_ok(status: int, url: str, chart: OciChart) -> None:
    if status != 200:
        raise AftershockError(
            f"GET {url} answered {status}", hint=f"check the registry of {chart.named}"
        )


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _registry_code(body: bytes) -> str:
    """The registry's own error code (`: MANIFEST_UNKNOWN`, `: NAME_UNKNOWN`), when it sends one."""
    answer = _json(body)
    errors = answer.get("errors") if isinstance(answer, dict) else None
    codes = (
        [str(e.get("code")) for e in errors if isinstance(e, dict)]
        if isinstance(errors, list)
        else []
    )
    return f": {', '.join(codes)}" if codes else ""
