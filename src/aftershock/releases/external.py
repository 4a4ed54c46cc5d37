"""Which chart from outside the repository a release installs: a Flux HelmRepository chart (with the
HelmRepository's `spec.url`), a Flux OCIRepository (`chartRef`, its `url` and `ref.tag`), or an Argo CD
source naming a `chart` in a `repoURL`. Only exact versions are resolved: a range needs the
repository's index, which an offline review does not have.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from aftershock.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import ReleaseKind, ReleaseSpec
from aftershock.render.chart_archives import ExternalChart

SOURCE_GROUP = "source.toolkit.fluxcd.io"
_EXACT = re.compile(r"^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$")


def is_external(spec: ReleaseSpec) -> bool:
    if spec.kind is ReleaseKind.ARGO:
        return spec.repository is not None
    return spec.source_kind in ("HelmRepository", "OCIRepository")


def external_chart(spec: ReleaseSpec, objects: Mapping[ObjectKey, RenderedObject]) -> ExternalChart:
    """The external chart of `spec` (see is_external); AftershockError when it cannot be pinned down."""
    if spec.kind is ReleaseKind.ARGO:
        return _exact(
            ExternalChart(str(spec.repository), str(spec.chart), spec.version or ""), spec
        )
    source = _source(spec, objects)
    body = source.body.get("spec")
    if not isinstance(body, dict):
        body = {}
    url = str(body.get("url") or "")
    if spec.source_kind == "OCIRepository":
        ref = body.get("ref")
        if not isinstance(ref, dict):
            ref = {}
        return _exact(
            ExternalChart(
                posixpath.dirname(url), posixpath.basename(url), str(ref.get("tag") or "")
            ),
            spec,
        )
    return _exact(ExternalChart(url, str(spec.chart), spec.version or ""), spec)


def _source(spec: ReleaseSpec, objects: Mapping[ObjectKey, RenderedObject]) -> RenderedObject:
    found = [
        o
        for k, o in objects.items()
        if k.group == SOURCE_GROUP and k.kind == spec.source_kind and k.name == spec.source_name
    ]
    same = [o for o in found if o.key.namespace == spec.key.namespace]
    if len(same or found) != 1:
        raise AftershockError(
            f"{spec.source_kind} {spec.source_name} of {spec.key} is not (once) in the repository",
            hint="add the source object, or map the chart in releases.charts of .aftershock.yaml",
        )
    return (same or found)[0]


def _exact(chart: ExternalChart, spec: ReleaseSpec) -> ExternalChart:
    if not chart.repository or not chart.name:
        raise AftershockError(f"{spec.key} names no chart repository", hint="set the source's url")
    if not _EXACT.match(chart.version):
        raise AftershockError(
            f"chart {chart.name} of {spec.key} asks for version {chart.version or '(none)'!r}, not an exact version",
            hint="pin an exact version so the review can render it offline",
        )
    return chart
