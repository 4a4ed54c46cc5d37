"""Charts from outside the repository: archives `<name>-<version>.tgz` in a chart cache folder, verified
against a Helm repository `index.yaml` digest when one is present, and, only when asked for
(`--fetch-charts`), downloaded over HTTP with size and time bounds. Nothing in an archive is ever run:
it is unpacked (regular files only, no links, no path leaving the folder) for Helm to render.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import posixpath
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from aftershock import yamlio
from aftershock.errors import AftershockError
from aftershock.ingest.safewrite import SafeWriter

MAX_ARCHIVE_BYTES = 20 * 2**20
MAX_INDEX_BYTES = 20 * 2**20


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
class ChartCache:
    """Where archives are looked up (`folder`), and whether a missing one may be downloaded."""

    folder: Path | None = None
    fetch: bool = False
    timeout_seconds: float = 30.0
    max_bytes: int = MAX_ARCHIVE_BYTES

    def archive(self, chart: ExternalChart) -> bytes:
        """The archive's bytes, verified; AftershockError saying what is missing and how to provide it."""
        if self.folder is not None:
            cached = self.folder / chart.archive_name
            if cached.is_file():
                data = cached.read_bytes()
                _verify(data, chart, _local_digest(self.folder, chart), str(cached))
                return data
        if not self.fetch:
            where = f"in {self.folder}" if self.folder else "(no --chart-cache given)"
            raise AftershockError(
                f"chart archive {chart.archive_name} from {chart.repository} is not in the chart cache {where}",
                hint="put the archive in the folder of --chart-cache (or chart_cache: in .aftershock.yaml), or pass --fetch-charts",
            )
        data = self._download(chart)
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / chart.archive_name).write_bytes(data)
        return data

    def _download(self, chart: ExternalChart) -> bytes:
        if not chart.repository.startswith(("http://", "https://")):
            raise AftershockError(
                f"cannot download {chart.archive_name} from {chart.repository}: only HTTP chart repositories are fetched",
                hint="put the archive in the chart cache",
            )
        base = chart.repository.rstrip("/") + "/"
        index = yamlio.load_one(
            _get(urljoin(base, "index.yaml"), MAX_INDEX_BYTES, self.timeout_seconds).decode(
                "utf-8", "replace"
            ),
            source=f"{base}index.yaml",
        )
        entry = _entry(index, chart)
        if entry is None:
            raise AftershockError(
                f"{chart.name} {chart.version} is not in {base}index.yaml",
                hint="check the chart version",
            )
        urls = entry.get("urls") or [chart.archive_name]
        data = _get(urljoin(base, str(urls[0])), self.max_bytes, self.timeout_seconds)
        _verify(data, chart, entry.get("digest"), f"{base}{urls[0]}")
        return data


def _get(url: str, limit: int, timeout: float) -> bytes:
    import httpx

    try:
        with httpx.stream("GET", url, timeout=timeout, follow_redirects=True) as response:
            if response.status_code != 200:
                raise AftershockError(
                    f"GET {url} answered {response.status_code}", hint="check the repository URL"
                )
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > limit:
                    raise AftershockError(
                        f"GET {url} is over {limit} bytes",
                        hint="that is no chart archive this review reads",
                    )
                chunks.append(chunk)
    except httpx.HTTPError as error:
        raise AftershockError(
            f"GET {url} failed: {error}",
            hint="check the network, or put the archive in the chart cache",
        ) from None
    return b"".join(chunks)


def _entry(index: Any, chart: ExternalChart) -> dict[str, Any] | None:
    entries = index.get("entries") if isinstance(index, dict) else None
    versions = entries.get(chart.name) if isinstance(entries, dict) else None
    for entry in versions if isinstance(versions, list) else ():
        if isinstance(entry, dict) and str(entry.get("version")) == chart.version:
            return entry
    return None


def _local_digest(folder: Path, chart: ExternalChart) -> str | None:
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
