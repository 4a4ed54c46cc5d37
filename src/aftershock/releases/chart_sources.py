"""The Flux chart sources a release reads its chart from, and what in them decides the chart.

A Flux HelmRelease names its chart's source by `chartRef` (an OCIRepository or a HelmChart) or by
`chart.spec.sourceRef` (a HelmRepository, a GitRepository or a Bucket); the source's namespace
defaults to the HelmRelease's own. A source *changes the chart* when a field that decides which
chart the controller fetches differs between base and head (an OCIRepository's `url`, `ref` or
`layerSelector`, a HelmRepository's `url` or `type`, ...), or when it is there at one ref only; an
`interval` or a `timeout` does not. Every release reading its chart from such a source is reached by
the change, whether or not its own object changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import ReleaseKind, ReleaseSpec

SOURCE_GROUP = "source.toolkit.fluxcd.io"
# The relation of an affect path's `object` step naming the chart source a changed file declares
# (file -> source object -> release): the impact graph draws the source feeding the release from it.
DECLARED_SOURCE = "a chart source it declares"
# Per source kind, the spec fields that decide which chart (which artifact) the controller fetches.
CHART_FIELDS: Mapping[str, tuple[str, ...]] = {
    "OCIRepository": ("url", "ref", "layerSelector"),
    "HelmRepository": ("url", "type"),
    "GitRepository": ("url", "ref", "include", "ignore"),
    "Bucket": ("endpoint", "bucketName", "prefix", "ignore"),
    "HelmChart": ("chart", "version", "sourceRef", "valuesFiles", "reconcileStrategy"),
}


@dataclass(frozen=True)
class ChangedSource:
    """A chart source whose chart-deciding fields differ between base and head, and the file
    declaring it (at head, else at base)."""

    key: ObjectKey
    file: str

    def __str__(self) -> str:
        return f"{self.key.kind} {self.key.namespace}/{self.key.name}"


def is_chart_source(key: ObjectKey) -> bool:
    return key.group == SOURCE_GROUP and key.kind in CHART_FIELDS


def chart_source_key(spec: ReleaseSpec) -> ObjectKey | None:
    """The source a Flux release reads its chart from (its namespace defaults to the release's)."""
    if spec.kind is not ReleaseKind.FLUX or not spec.source_kind or not spec.source_name:
        return None
    namespace = spec.source_namespace or spec.key.namespace
    return ObjectKey(SOURCE_GROUP, spec.source_kind, namespace, spec.source_name)


def chart_fields(obj: RenderedObject | None) -> dict[str, Any] | None:
    """The fields of a source's spec that decide its chart; None when it is absent."""
    if obj is None:
        return None
    spec = obj.body.get("spec")
    given: Mapping[str, Any] = spec if isinstance(spec, dict) else {}
    return {f: given.get(f) for f in CHART_FIELDS.get(obj.key.kind, ())}


def changes_chart(before: RenderedObject | None, after: RenderedObject | None) -> bool:
    """Whether the chart a source serves may differ between the two refs."""
    return chart_fields(before) != chart_fields(after)


def changed_sources(
    base: Iterable[RenderedObject], head: Iterable[RenderedObject]
) -> tuple[ChangedSource, ...]:
    """The chart sources among one render's objects (base, head) whose chart may differ."""
    before = {o.key: o for o in base if is_chart_source(o.key)}
    after = {o.key: o for o in head if is_chart_source(o.key)}
    found = []
    for key in sorted(set(before) | set(after), key=lambda k: k.id):
        old, new = before.get(key), after.get(key)
        if changes_chart(old, new):
            found.append(ChangedSource(key, (new or old).template))  # type: ignore[union-attr]
    return tuple(found)
