"""`aftershock charts fetch`: the external charts a review cannot find, downloaded into the chart
cache, opt-in and bounded.

At each ref asked for (a pull request's base and head), two kinds of chart are wanted: every chart's
dependency that its Chart.lock pins, that is not vendored and not in the repository at that version
(ingest.charts, ingest.dependency_history); and the chart each release of the repository's plain
manifests installs from outside it: a Flux HelmRelease's HelmRepository chart, its `chartRef`
OCIRepository, an Argo CD Application's chart source (render.external.external_charts), a version
range pinned to the highest version the repository's index lists. Each one not already in the cache
is fetched from its HTTP chart repository or OCI registry (render.external.chart_archives,
render.external.oci_registry: size and time bounds per request), or from the mirror given for its
host (render.external.mirrors: a proxy of ghcr.io for a machine that cannot reach it), and checked
against the digest the repository's index.yaml (the registry's manifest) records, which is written
beside the archive (`<archive>.sha256`) for the review to check it again. An archive from a mirror
is stored as one from the original. At most `max_charts` archives are fetched.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from aftershock.ingest.charts import discover_charts
from aftershock.ingest.dependency_history import resolve_from_history
from aftershock.ingest.gitops.manifests import plain_manifests
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.errors import AftershockError
from aftershock.model.units import Chart
from aftershock.pipeline.judge import review_config
from aftershock.releases.parse import declares_release, release_spec
from aftershock.render.external.chart_archives import ChartCache, ExternalChart
from aftershock.render.external.dependency_archives import (
    DIGEST_SUFFIX,
    is_locked_remote,
    locked_chart,
    with_cached,
)
from aftershock.render.external.external_charts import external_chart, is_external
from aftershock.render.external.mirrors import Mirror, mirror_for
from aftershock.render.plan import dependency_closure

MAX_FETCHED = 50
MAX_FILE_BYTES = 5 * 2**20  # as a review reads the repository


@dataclass(frozen=True)
class FetchRequest:
    repo: Path
    refs: tuple[str, ...]  # the commits whose charts and releases to read (base and head)
    cache: Path | None  # else `chart_cache:` of the configuration at `ref`
    charts: tuple[str, ...] = ()  # chart folders whose dependencies to fetch; all when empty
    max_charts: int = MAX_FETCHED
    timeout_seconds: float = 30.0
    plain_http: bool = False  # OCI registries over http off loopback too
    mirrors: tuple[Mirror, ...] = ()  # hosts whose charts are downloaded from a mirror


@dataclass(frozen=True)
class Fetched:
    """One locked dependency: fetched (`digest` checked), or why not (`skipped`)."""

    chart: ExternalChart
    wanted_by: tuple[
        str, ...
    ]  # chart folders whose lock pins it, files of the releases installing it
    digest: str | None = None
    skipped: str | None = None
    via: str | None = None  # the mirror it was downloaded from


def fetch_charts(request: FetchRequest) -> tuple[Path, tuple[Fetched, ...]]:
    """The cache folder, and each external chart missing from it, fetched or skipped with why."""
    repo = GitRepository.open(request.repo)
    wanted: dict[ExternalChart, set[str]] = {}
    skipped: dict[ExternalChart, tuple[set[str], str]] = {}
    folder, cache = request.cache, None
    for ref in request.refs or ("HEAD",):
        sha = repo.resolve(ref)
        with RefSnapshot.open(repo, sha, f"{ref} {sha[:7]}", MAX_FILE_BYTES) as tree:
            config, _ = review_config(None, tree)
            folder = folder or (request.repo / config.chart_cache if config.chart_cache else None)
            if folder is None:
                raise AftershockError(
                    "no chart cache to fetch into",
                    hint="pass --chart-cache DIR (or set chart_cache: in .aftershock.yaml)",
                )
            cache = cache or ChartCache(
                folder,
                fetch=True,
                timeout_seconds=request.timeout_seconds,
                plain_http=request.plain_http,
                mirrors=request.mirrors,
            )
            found = discover_charts(tree, tree.label, config.dependencies)
            charts = with_cached(resolve_from_history(repo, sha, found), folder)
            for chart, parents in _wanted(charts, request.charts):
                wanted.setdefault(chart, set()).update(parents)
            if not request.charts:
                for chart, files, problem in release_charts(tree, found, cache):
                    if problem:
                        skipped.setdefault(chart, (set(), problem))[0].update(files)
                    else:
                        wanted.setdefault(chart, set()).update(files)
    assert folder is not None and cache is not None
    return folder, _fetch_all(request.max_charts, cache, folder, wanted, skipped)


def _fetch_all(
    max_charts: int,
    cache: ChartCache,
    folder: Path,
    wanted: dict[ExternalChart, set[str]],
    skipped: dict[ExternalChart, tuple[set[str], str]],
) -> tuple[Fetched, ...]:
    results = [
        Fetched(chart, tuple(sorted(files)), skipped=why)
        for chart, (files, why) in sorted(skipped.items(), key=lambda i: (i[0].id, i[0].version))
    ]
    todo = sorted(
        ((c, f) for c, f in wanted.items() if not (folder / c.archive_name).is_file()),
        key=lambda i: (i[0].id, i[0].version),
    )
    for index, (chart, files) in enumerate(todo):
        parents = tuple(sorted(files))
        if index >= max_charts:
            results.append(Fetched(chart, parents, skipped=f"over --max-charts {max_charts}"))
            continue
        results.append(_fetch_one(cache, folder, chart, parents))
    return tuple(results)


def release_charts(
    tree: RefSnapshot, charts: Sequence[Chart], cache: ChartCache
) -> Iterator[tuple[ExternalChart, tuple[str, ...], str | None]]:
    """(chart at an exact version, the file of the release installing it, why it cannot be had) for
    each release of the plain manifests that installs a chart from outside the repository; a
    version range is pinned by `cache` (its repository's index)."""
    manifests = plain_manifests(tree, charts, "default")
    objects = {o.key: o for o in manifests.all_objects()}
    for obj in manifests.all_objects():
        try:
            spec = release_spec(obj) if declares_release(obj) else None
            if spec is None or not is_external(spec):
                continue
            chart = external_chart(spec, objects)
        except AftershockError:
            continue  # the review says why it cannot render this release
        try:
            chart = cache.pin(chart).chart
        except AftershockError as error:
            yield chart, (obj.template,), error.line()
            continue
        yield chart, (obj.template,), None


def _wanted(
    charts: Sequence[Chart], only: Sequence[str]
) -> list[tuple[ExternalChart, tuple[str, ...]]]:
    by_path = {c.path: c for c in charts}
    unknown = [p for p in only if p.strip("/") not in by_path]
    if unknown:
        raise AftershockError(
            f"no chart at {', '.join(unknown)}",
            hint="name chart folders relative to the repository",
        )
    roots = [by_path[p.strip("/")] for p in only] or list(charts)
    found: dict[ExternalChart, list[str]] = {}
    for root in roots:
        for path in dependency_closure(root, by_path):
            chart = by_path.get(path)
            for dep in chart.dependencies if chart is not None else ():
                if is_locked_remote(dep):
                    found.setdefault(locked_chart(dep), []).append(path)
    return [(c, tuple(sorted(set(p)))) for c, p in sorted(found.items(), key=lambda i: i[0].id)]


def _fetch_one(
    cache: ChartCache, folder: Path, chart: ExternalChart, parents: tuple[str, ...]
) -> Fetched:
    mirror = mirror_for(chart.repository, cache.mirrors)
    via = mirror.url if mirror else None
    try:
        data, digest = cache.download(chart)
    except AftershockError as error:
        return Fetched(chart, parents, skipped=error.line(), via=via)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / chart.archive_name).write_bytes(data)
    sidecar = folder / (chart.archive_name + DIGEST_SUFFIX)
    if digest:
        sidecar.write_text(digest + "\n", "utf-8")
    else:
        sidecar.unlink(missing_ok=True)  # an earlier archive's digest: this one has none to check
    return Fetched(chart, parents, digest=digest, via=via)
