"""The objects a release's `valuesFrom` reads, wherever the repository renders them at one side.

A platform chart often renders a values ConfigMap or Secret into each namespace, and the
HelmReleases there take `valuesFrom` it. Such an object is looked for, as the review's cluster
serves `lookup`, among the plain manifests and every render of the review at that side; one still
missing is rendered (with their defaults) by the charts whose templates name it, like a `lookup`
target (pipeline/context/cluster.py `provider_objects`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from aftershock.ingest.lookups import LookupArgument, LookupCall
from aftershock.model.change import Side
from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.pipeline.context.cluster import provider_objects
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, SideInput
from aftershock.releases.parse import declares_release, release_spec
from aftershock.render.interface import Renderer, RenderOutcome

Lookup = Mapping[ObjectKey, RenderedObject]


def missing_sources(releases: Iterable[RenderedObject], lookup: Lookup) -> list[LookupCall]:
    """The ConfigMaps and Secrets the releases' `valuesFrom` names that `lookup` does not hold."""
    targets: dict[tuple[str, str, str], LookupCall] = {}
    for obj in releases:
        if not declares_release(obj):
            continue
        try:
            spec = release_spec(obj)
        except AftershockError:
            continue  # a malformed release: release following reports it
        for ref in spec.values_from if spec is not None else ():
            if ref.kind not in ("ConfigMap", "Secret"):
                continue
            key = ObjectKey("", ref.kind, spec.key.namespace, ref.name)  # type: ignore[union-attr]
            if key not in lookup:
                targets[(ref.kind, key.namespace or "", ref.name)] = LookupCall(
                    LookupArgument(("v1",)),
                    LookupArgument((ref.kind,)),
                    LookupArgument((key.namespace or "",)),
                    LookupArgument((ref.name,)),
                    template=str(obj.key),
                )
    return [targets[k] for k in sorted(targets)]


def with_value_sources(
    releases: Iterable[RenderedObject],
    lookup: Lookup,
    rendered_charts: set[str],
    side: Side,
    side_input: SideInput,
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    rendered: Callable[[RenderOutcome], None] | None = None,
) -> dict[ObjectKey, RenderedObject]:
    """`lookup` with the missing `valuesFrom` objects that other charts of this side render added
    (the charts in `rendered_charts` were rendered already and are not again)."""
    targets = missing_sources(releases, lookup)
    if not targets:
        return dict(lookup)
    provided = provider_objects(
        targets, rendered_charts, side, side_input, renderer, settings, work, rendered
    )
    wanted = {
        ObjectKey("", t.kind.value() or "", t.namespace.value() or "", t.name.value() or "")
        for t in targets
    }
    return {**{o.key: o for o in provided if o.key in wanted}, **lookup}
