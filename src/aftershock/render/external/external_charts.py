"""Which chart from outside the repository a release installs: a Flux HelmRepository chart (with the
HelmRepository's `spec.url`), a Flux OCIRepository (`chartRef`, its `url` and `ref.tag`), or an Argo CD
source naming a `chart` in a `repoURL`. The version is as written: exact, or a semver range (Flux's
`spec.chart.spec.version`, `*` when absent as Flux defaults it, or Argo's `targetRevision`) that the
chart cache pins (render/external/chart_archives.py); so is an OCIRepository's `ref.semver`, while its
`ref.tag` must be exact.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import Evidence, ReleaseKind, ReleaseSpec, ResolvedRelease
from aftershock.releases.chart_sources import SOURCE_GROUP, changes_chart, chart_source_key
from aftershock.releases.values import FileReader, release_values
from aftershock.render.external.chart_archives import ChartCache, ExternalChart, is_exact


def is_external(spec: ReleaseSpec) -> bool:
    if spec.kind is ReleaseKind.ARGO:
        return spec.repository is not None
    return spec.source_kind in ("HelmRepository", "OCIRepository")


def external_chart(spec: ReleaseSpec, objects: Mapping[ObjectKey, RenderedObject]) -> ExternalChart:
    """The external chart of `spec` (see is_external); AftershockError when it cannot be pinned down."""
    if spec.kind is ReleaseKind.ARGO:
        return _named(
            ExternalChart(str(spec.repository), str(spec.chart), spec.version or ""), spec
        )
    source = _source(spec, objects)
    body = _map(source.body.get("spec"))
    url = str(body.get("url") or "")
    if spec.source_kind == "OCIRepository":
        ref = _map(body.get("ref"))
        tag = str(ref.get("semver") or ref.get("tag") or "")  # semver wins over tag, as in Flux
        chart = _named(ExternalChart(posixpath.dirname(url), posixpath.basename(url), tag), spec)
        if not ref.get("semver") and not is_exact(tag):
            raise AftershockError(
                f"chart {chart.name} of {spec.key} asks for tag {tag or '(none)'!r}, not an exact version",
                hint="pin an exact ref.tag so the review can render it offline",
            )
        return chart
    return _named(ExternalChart(url, str(spec.chart), spec.version or "*"), spec)


def changed_source_file(
    spec: ReleaseSpec,
    base: Mapping[ObjectKey, RenderedObject],
    head: Mapping[ObjectKey, RenderedObject],
) -> str | None:
    """The file of the chart source the release reads (a HelmRepository, an OCIRepository, a
    HelmChart, ...: releases/chart_sources.py), when what decides its chart differs between base and
    head (its URL, its `ref`, ...; not its `interval`), or it is there at one ref only."""
    key = chart_source_key(spec)
    if key is None:
        return None
    before, after = base.get(key), head.get(key)
    if (before is not None or after is not None) and changes_chart(before, after):
        return (after or before).template  # type: ignore[union-attr]
    return None


def resolve_external(
    spec: ReleaseSpec,
    lookup: Mapping[ObjectKey, RenderedObject],
    read_file: FileReader,
    cache: ChartCache,
) -> ResolvedRelease:
    """The release with its chart's archive from the chart cache (or downloaded when allowed), its
    version pinned; the problem, when the chart cannot be had, says why."""
    values = release_values(spec, lookup, read_file, None)
    try:
        chart = external_chart(spec, lookup)
    except AftershockError as error:
        return ResolvedRelease(spec, None, Evidence.OBSERVED, values, problem=error.line())
    try:
        pinned = cache.pin(chart)
        archive = cache.archive(pinned.chart)
    except AftershockError as error:
        return ResolvedRelease(
            spec, chart.id, Evidence.OBSERVED, values, problem=error.line(), version=chart.version
        )
    evidence = Evidence.INFERRED if pinned.inferred else Evidence.OBSERVED
    return ResolvedRelease(
        spec,
        chart.id,
        evidence,
        values,
        archive=archive,
        version=pinned.chart.version,
        chosen=pinned.chosen,
    )


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _source(spec: ReleaseSpec, objects: Mapping[ObjectKey, RenderedObject]) -> RenderedObject:
    found = [
        o
        for k, o in objects.items()
        if k.group == SOURCE_GROUP and k.kind == spec.source_kind and k.name == spec.source_name
    ]
    namespace = spec.source_namespace or spec.key.namespace
    same = [o for o in found if o.key.namespace == namespace]
    if len(same or found) != 1:
        raise AftershockError(
            f"{spec.source_kind} {spec.source_name} of {spec.key} is not (once) in the repository",
            hint="add the source object, or map the chart in releases.charts of .aftershock.yaml",
        )
    return (same or found)[0]


def _named(chart: ExternalChart, spec: ReleaseSpec) -> ExternalChart:
    if not chart.repository or not chart.name:
        raise AftershockError(f"{spec.key} names no chart repository", hint="set the source's url")
    if not chart.version:
        raise AftershockError(
            f"chart {chart.name} of {spec.key} names no version",
            hint="set targetRevision to a version or a semver range",
        )
    return chart
