"""Charts from outside the repository: archives `<name>-<version>.tgz` in a chart cache folder, verified
against a Helm repository `index.yaml` digest when one is present, and, only when asked for
(`--fetch-charts`), downloaded with size and time bounds: over HTTP from a chart repository, or from
an OCI registry (render/external/oci_registry.py) checked against the manifest's layer digest; each
through the mirror given for its host, if any (render/external/mirrors.py). Nothing in an archive is ever run: it
is unpacked (regular files only, no links, no path leaving the folder) for Helm to render.

A version that is a semver range (`4.x`, `>=4.11.0 <5`, `~4.11`) is pinned as Helm and Flux pin it, to
the highest version that satisfies it (gocompat/semver.py matches), among the versions the cache's
`index.yaml` lists for the chart (observed), else those of the repository's own `index.yaml` when
fetching is allowed (observed), else those of the chart's archives in the cache folder (inferred: the
folder may not hold every version the repository has).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import posixpath
import re
import tarfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from aftershock.gocompat import yamlio
from aftershock.gocompat.semver import parse_version, satisfies
from aftershock.ingest.repository.safewrite import SafeWriter
from aftershock.model.errors import AftershockError
from aftershock.render.external.bounded_http import read_capped
from aftershock.render.external.mirrors import Mirror, mirror_for, mirrored
from aftershock.render.external.oci_registry import locate, pull

MAX_ARCHIVE_BYTES = 20 * 2**20
MAX_INDEX_BYTES = 20 * 2**20
_EXACT = re.compile(r"^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$")


@dataclass(frozen=True)
class ExternalChart:
    """A chart as a release names it: its repository (an http(s) or oci URL), name and exact version."""

    repository: str
    name: str
    version: str

    @property
    def archive_name(self) -> str:
        return f"{self.name}-{self.version}.tgz"

    @property
    def id(self) -> str:
        return f"{self.repository.rstrip('/')}/{self.name}"


@dataclass(frozen=True)
class PinnedChart:
    """An external chart at the exact version to render, and how that version was chosen."""

    chart: ExternalChart
    inferred: bool = False  # chosen among the cache's archives, not a repository index
    chosen: str | None = (
        None  # for a range: which version, among what, e.g. "6.6.0 of 6.5.0, 6.6.0 ..."
    )


def release_fetch_command(folder: Path | None) -> str:
    """The command that puts the charts the repository's releases install from outside it into the
    chart cache, at a pull request's base and head (DIR, BASE: what the reader fills in)."""
    cache = str(folder) if folder is not None else "DIR"
    return f"aftershock charts fetch --repo . --ref BASE --ref HEAD --chart-cache {cache}"


def is_exact(version: str) -> bool:
    """Whether `version` names one version (`6.5.0`, `v1.2.3-rc.1`), not a range."""
    return bool(_EXACT.match(version))


@dataclass(frozen=True)
class ChartCache:
    """Where archives are looked up (`folder`), and whether a missing one may be downloaded."""

    folder: Path | None = None
    fetch: bool = False
    timeout_seconds: float = 30.0
    max_bytes: int = MAX_ARCHIVE_BYTES
    plain_http: bool = False  # an OCI registry over http even off loopback (Helm's --plain-http)
    mirrors: tuple[Mirror, ...] = ()  # hosts whose charts are downloaded from a mirror

    def pin(self, chart: ExternalChart) -> PinnedChart:
        """The chart at the version its range resolves to (itself when exact); AftershockError saying
        why when no listed version satisfies the range, or no list of versions can be had."""
        if is_exact(chart.version):
            return PinnedChart(chart)
        listed = self._index_versions(chart)
        inferred = listed is None
        if listed is not None:
            where = "the chart cache's index.yaml"
        elif self.fetch and chart.repository.startswith(("http://", "https://")):
            listed, where = (
                self._remote_versions(chart),
                f"{chart.repository.rstrip('/')}/index.yaml",
            )
            inferred = False
        else:
            listed, where = (
                self._archive_versions(chart),
                f"the chart cache {self.folder or '(none)'}",
            )
        version = highest_satisfying(listed, chart.version, f"chart {chart.name}")
        if version is None:
            shown = ", ".join(sorted(listed, key=_order, reverse=True)[:10]) or "none"
            raise AftershockError(
                f"no version of chart {chart.name} in {where} satisfies {chart.version!r} (listed: {shown})",
                hint="add an archive of a version in range to the chart cache, or pass --fetch-charts",
            )
        chosen = f"{version}, the highest in {where} satisfying {chart.version!r}"
        return PinnedChart(replace(chart, version=version), inferred, chosen)

    def _index_versions(self, chart: ExternalChart) -> list[str] | None:
        index_file = self.folder / "index.yaml" if self.folder else None
        if index_file is None or not index_file.is_file():
            return None
        index = yamlio.load_one(index_file.read_text("utf-8", "replace"), source=str(index_file))
        return _versions(index, chart.name)

    def _remote_versions(self, chart: ExternalChart) -> list[str]:
        return _versions(self._remote_index(chart), chart.name) or []

    def _archive_versions(self, chart: ExternalChart) -> list[str]:
        if self.folder is None or not self.folder.is_dir():
            return []
        prefix = f"{chart.name}-"
        names = (p.name for p in self.folder.iterdir() if p.is_file())
        return [
            n.removeprefix(prefix).removesuffix(".tgz")
            for n in names
            if n.startswith(prefix) and n.endswith(".tgz") and _parses(n[len(prefix) : -4])
        ]

    def _remote_index(self, chart: ExternalChart) -> Any:
        url = mirrored(chart.repository.rstrip("/") + "/index.yaml", self.mirrors)
        text = _get(url, MAX_INDEX_BYTES, self.timeout_seconds)
        return yamlio.load_one(text.decode("utf-8", "replace"), source=url)

    def archive(self, chart: ExternalChart) -> bytes:
        """The archive's bytes, verified; AftershockError saying what is missing and how to provide it."""
        if self.folder is not None:
            cached = self.folder / chart.archive_name
            if cached.is_file():
                data = cached.read_bytes()
                _verify(data, chart, local_digest(self.folder, chart), str(cached))
                return data
        if not self.fetch:
            where = f"in {self.folder}" if self.folder else "(no --chart-cache given)"
            raise AftershockError(
                f"chart archive {chart.archive_name} from {chart.repository} is not in the chart cache {where}",
                hint=f"run `{release_fetch_command(self.folder)}` and review with that --chart-cache "
                "(or chart_cache: in .aftershock.yaml), or pass --fetch-charts",
            )
        data, _ = self.download(chart)
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / chart.archive_name).write_bytes(data)
        return data

    def download(self, chart: ExternalChart) -> tuple[bytes, str | None]:
        """The archive as the repository serves it, checked against the digest its index.yaml
        (an OCI registry's manifest) records: returned, without `sha256:`; None when none is recorded."""
        if chart.repository.startswith("oci://"):
            mirror = mirror_for(chart.repository, self.mirrors)
            url = mirror.url if mirror else None
            where = locate(chart.repository, chart.name, chart.version, self.plain_http, url)
            return pull(where, chart.archive_name, self.timeout_seconds, self.max_bytes)
        if not chart.repository.startswith(("http://", "https://")):
            raise AftershockError(
                f"cannot download {chart.archive_name} from {chart.repository}: only HTTP chart repositories and OCI registries are fetched",
                hint="put the archive in the chart cache",
            )
        base = chart.repository.rstrip("/") + "/"
        entry = _entry(self._remote_index(chart), chart)
        if entry is None:
            raise AftershockError(
                f"{chart.name} {chart.version} is not in {base}index.yaml",
                hint="check the chart version",
            )
        urls = entry.get("urls") or [chart.archive_name]
        url = mirrored(urljoin(mirrored(base, self.mirrors), str(urls[0])), self.mirrors)
        data = _get(url, self.max_bytes, self.timeout_seconds)
        digest = str(entry["digest"]).removeprefix("sha256:") if entry.get("digest") else None
        _verify(data, chart, digest, url)
        return data, digest


def _get(url: str, limit: int, timeout: float) -> bytes:
    import httpx

    try:
        with httpx.stream("GET", url, timeout=timeout, follow_redirects=True) as response:
            if response.status_code != 200:
                raise AftershockError(
                    f"GET {url} answered {response.status_code}", hint="check the repository URL"
                )
            return read_capped(response, url, limit, "that is no chart archive this review reads")
    except httpx.HTTPError as error:
        raise AftershockError(
            f"GET {url} failed: {error}",
            hint="check the network, or put the archive in the chart cache",
        ) from None


def highest_satisfying(versions: list[str], constraint: str, what: str) -> str | None:
    """The highest of `versions` meeting `constraint`, as Helm's index lookup picks it (pre-releases
    only for a constraint that names one); AftershockError for a malformed constraint."""
    try:
        satisfies("0.0.0", constraint)
    except ValueError:
        raise AftershockError(
            f"{what} asks for version {constraint!r}, which is neither a version nor a semver range",
            hint="write an exact version or a range such as 4.x, ~4.11 or >=4.11.0 <5",
        ) from None
    for version in sorted(versions, key=_order, reverse=True):
        if satisfies(version, constraint):
            return version
    return None


def _order(version: str) -> tuple[Any, ...]:
    return parse_version(version).key()


def _versions(index: Any, name: str) -> list[str] | None:
    """The parseable versions an index lists for chart `name`; None when it lists no such chart."""
    entries = index.get("entries") if isinstance(index, dict) else None
    listed = entries.get(name) if isinstance(entries, dict) else None
    if not isinstance(listed, list):
        return None
    versions = [str(e.get("version")) for e in listed if isinstance(e, dict)]
    return [v for v in versions if _parses(v)]


def _parses(version: str) -> bool:
    try:
        parse_version(version)
    except ValueError:
        return False
    return True


def _entry(index: Any, chart: ExternalChart) -> dict[str, Any] | None:
    entries = index.get("entries") if isinstance(index, dict) else None
    versions = entries.get(chart.name) if isinstance(entries, dict) else None
    for entry in versions if isinstance(versions, list) else ():
        if isinstance(entry, dict) and str(entry.get("version")) == chart.version:
            return entry
    return None


def local_digest(folder: Path, chart: ExternalChart) -> str | None:
    """The digest an `index.yaml` in the cache folder records for the archive, if it has one."""
    index_file = folder / "index.yaml"
    if not index_file.is_file():
        return None
    entry = _entry(
        yamlio.load_one(index_file.read_text("utf-8", "replace"), source=str(index_file)), chart
    )
    return str(entry["digest"]) if entry and entry.get("digest") else None


def _verify(data: bytes, chart: ExternalChart, digest: str | None, where: str) -> None:
    if digest and hashlib.sha256(data).hexdigest() != digest.removeprefix("sha256:"):
        raise AftershockError(
            f"chart archive {chart.archive_name} does not match its index.yaml digest",
            where=where,
            hint="replace the archive with the one the repository publishes",
        )


def unpack(data: bytes, chart: ExternalChart, dest: Path) -> None:
    """The archive's chart folder (`<name>/...`) written into `dest` as regular files only."""
    writer = SafeWriter(dest, label=chart.archive_name)
    try:
        with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r:") as archive:
            total = 0
            for member in archive.getmembers():
                if member.isdir():
                    continue
                if not member.isfile():
                    raise AftershockError(
                        f"{chart.archive_name} holds {member.name}, which is not a regular file",
                        hint="aftershock unpacks regular files only",
                    )
                total += member.size
                if total > 10 * MAX_ARCHIVE_BYTES:
                    raise AftershockError(
                        f"{chart.archive_name} unpacks to more than {10 * MAX_ARCHIVE_BYTES} bytes"
                    )
                top, _, inner = posixpath.normpath(member.name).partition("/")
                if not inner or top != chart.name:
                    continue  # Helm loads only the chart's own folder
                handle = archive.extractfile(member)
                writer.write_file(inner, handle.read() if handle else b"", executable=False)
    except (OSError, EOFError, tarfile.TarError) as error:
        raise AftershockError(
            f"{chart.archive_name} is not a readable chart archive: {error}"
        ) from None
