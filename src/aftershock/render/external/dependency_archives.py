"""Remote chart dependencies a Chart.lock pins, from the chart cache.

`helm dependency build` puts the locked version of each remote dependency under `charts/`; a
repository that does not commit those archives renders here when the chart cache holds
`<name>-<locked version>.tgz`. An archive is checked against the digest the cache's `index.yaml`
records, else the one `aftershock charts fetch` wrote beside it (`<archive>.sha256`, taken from the
chart repository's own index): `cached` (observed) when one matches, `cached_unverified` (inferred)
when there is none to check; a mismatch leaves the dependency unresolved. The archive is linked
into the chart's workspace as Helm would find it; nothing is unpacked or run here.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from aftershock.model.units import Chart, ChartDependency, DependencySource
from aftershock.render.external.chart_archives import MAX_ARCHIVE_BYTES, ExternalChart, local_digest
from aftershock.render.plan import dependency_closure

DIGEST_SUFFIX = ".sha256"
_CACHED = (DependencySource.CACHED, DependencySource.CACHED_UNVERIFIED)


def is_locked_remote(dep: ChartDependency) -> bool:
    """A dependency Helm downloads from a chart repository at the version its lock pins."""
    return (
        dep.source is DependencySource.REMOTE
        and bool(dep.locked)
        and dep.repository.startswith(("https://", "http://", "oci://"))
    )


def locked_chart(dep: ChartDependency) -> ExternalChart:
    return ExternalChart(dep.repository, dep.name, str(dep.locked))


def known_digest(folder: Path, chart: ExternalChart) -> str | None:
    """The digest the cache records for the archive: its index.yaml's, else the fetched one's."""
    recorded = local_digest(folder, chart)
    if recorded:
        return recorded.removeprefix("sha256:")
    sidecar = folder / (chart.archive_name + DIGEST_SUFFIX)
    return sidecar.read_text("utf-8").strip() if sidecar.is_file() else None


def with_cached(charts: Iterable[Chart], folder: Path | None) -> tuple[Chart, ...]:
    """The charts, with each locked remote dependency whose archive the cache folder holds (and
    whose digest, when one is recorded, matches) resolved to that archive."""
    result = []
    for chart in charts:
        deps = tuple(_cached(dep, folder) for dep in chart.dependencies)
        result.append(chart if deps == chart.dependencies else replace(chart, dependencies=deps))
    return tuple(result)


def _cached(dep: ChartDependency, folder: Path | None) -> ChartDependency:
    if folder is None or not is_locked_remote(dep):
        return dep
    chart = locked_chart(dep)
    archive = folder / chart.archive_name
    if not archive.is_file() or archive.stat().st_size > MAX_ARCHIVE_BYTES:
        return dep
    digest = known_digest(folder, chart)
    if digest is None:
        return replace(dep, source=DependencySource.CACHED_UNVERIFIED)
    if hashlib.sha256(archive.read_bytes()).hexdigest() != digest:
        return dep  # not the archive the repository publishes: `charts fetch` replaces it
    return replace(dep, source=DependencySource.CACHED)


def link_cached(chart: Chart, charts: Mapping[str, Chart], folder: Path | None, root: Path) -> None:
    """Put each cached dependency's archive under `charts/` of its parent in the workspace `root`."""
    if folder is None:
        return
    for path in dependency_closure(chart, charts):
        current = charts.get(path)
        for dep in current.dependencies if current is not None else ():
            if dep.source not in _CACHED:
                continue
            name = locked_chart(dep).archive_name
            target = root / current.path / "charts" / name  # type: ignore[union-attr]
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(folder / name, target)
            except OSError:
                shutil.copyfile(folder / name, target)


def fetch_command(chart_path: str, folder: Path | None) -> str:
    """The command that puts the locked versions of the chart's remote dependencies (from chart
    repositories and OCI registries alike) into the chart cache."""
    cache = str(folder) if folder is not None else "DIR"
    return f"aftershock charts fetch --repo . --chart-cache {cache} {chart_path or '.'}"
