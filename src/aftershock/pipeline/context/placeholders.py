"""Lookups that guard: the placeholder objects served to a chart whose render failed because a
`lookup` of one named object found nothing (a `fail` or `required` on its result, an index into it),
in the failing template or in a define it includes.

A call names one object when its kind, namespace and name are known: literal, the release name
and namespace the chart renders with, or a values path read from the values it rendered with (its
values.yaml under the render's own). When a chart's default render fails at a side, its calls in
the template Helm's error names (a failure elsewhere is not theirs) that name an object the side's
cluster does not hold get a placeholder: that identity, empty `data` (ConfigMap, Secret) or `spec`. The
chart is rendered again with them, and what it renders is inferred, not observed: its context says
why. An object the cluster holds (a `cluster:` object, a rendered one) is never replaced, so the
configuration wins over a placeholder.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aftershock.diff.values_keys import chart_defaults
from aftershock.ingest.lookups import LookupCall, ReleaseIdentity
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.change import Side
from aftershock.model.review import ChartOutcome, ChartReview, RenderStatus
from aftershock.pipeline.context.cluster import lookup_targets
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, SideInput
from aftershock.releases.values import merge_maps
from aftershock.render.lookup.cluster import ClusterSnapshot, snapshot_from_objects

# Where Helm says a render failed: `execution error at (c/templates/x.yaml:2:21): ...` (fail,
# required) or `template: c/templates/x.yaml:8:20: executing ...` (a nil map, for one).
_FAILED_AT = re.compile(r"(?:execution error at \(|template: )([^\s():]+\.(?:ya?ml|tpl|txt)):\d+")
_DATA_KINDS = frozenset({"ConfigMap", "Secret"})
_INCLUDED = re.compile(r'(?:include|template)\s+"([^"]+)"')
_DEFINED = re.compile(r'define\s+"([^"]+)"')


@dataclass(frozen=True)
class Placeholder:
    """An empty object served at `side` so that `chart` renders; `body` is what the cluster holds."""

    chart: str
    side: Side
    body: Mapping[str, Any]

    @property
    def shown(self) -> str:
        metadata = self.body["metadata"]
        where = f"{metadata['namespace']}/" if metadata.get("namespace") else ""
        return f"{self.body['kind']} {where}{metadata['name']}"


def inferred_reasons(placeholders: Iterable[Placeholder], chart: str) -> tuple[str, ...]:
    """One line per object served to `chart`: `lookup of Secret ns/x found nothing at base and
    head; served an empty placeholder`."""
    sides: dict[str, list[str]] = {}
    for placeholder in placeholders:
        if placeholder.chart == chart:
            sides.setdefault(placeholder.shown, []).append(placeholder.side.value)
    return tuple(
        f"lookup of {shown} found nothing at {' and '.join(at)}; served an empty placeholder"
        for shown, at in sides.items()
    )


def guarded_placeholders(
    reviews: Sequence[ChartReview],
    sides: tuple[SideInput, SideInput],
    clusters: Mapping[Side, ClusterSnapshot | None],
    settings: RenderSettings,
) -> tuple[Placeholder, ...]:
    """The placeholders that may let the charts whose default render failed render."""
    found: dict[tuple[str, Side, str, str, str], Placeholder] = {}
    for review in reviews:
        if review.scenario != "default" or review.release is not None:
            continue
        if review.outcome is not ChartOutcome.NOT_REVIEWED:
            continue
        for side, side_input in zip((Side.BASE, Side.HEAD), sides):
            render = review.base if side is Side.BASE else review.head
            cluster = clusters.get(side)
            if render.status is not RenderStatus.FAILED or not render.error or cluster is None:
                continue
            tree, charts = side_input
            by_path = {c.path: c for c in charts}
            if review.chart not in by_path:
                continue
            inputs = review.base_inputs if side is Side.BASE else review.head_inputs
            release = ReleaseIdentity(
                inputs.release_name or settings.release_name, inputs.namespace or settings.namespace
            )
            calls = _at_failure(
                lookup_targets(tree, by_path[review.chart], by_path),
                render.error,
                review.chart,
                tree.text_or_none,
            )
            values = _render_values(tree, review.chart, inputs.values)
            for body in _missing(calls, release, values, cluster):
                metadata = body["metadata"]
                key = (
                    review.chart,
                    side,
                    body["kind"],
                    str(metadata.get("namespace")),
                    metadata["name"],
                )
                found.setdefault(key, Placeholder(review.chart, side, body))
    return tuple(found.values())


def served(
    clusters: Mapping[Side, ClusterSnapshot | None],
    placeholders: Iterable[Placeholder],
    default_namespace: str,
) -> dict[Side, ClusterSnapshot | None]:
    """The clusters with the placeholders of each side added (they name only absent objects)."""
    result = dict(clusters)
    for side in (Side.BASE, Side.HEAD):
        bodies = [p.body for p in placeholders if p.side is side]
        prior = clusters.get(side)
        if bodies and prior is not None:
            result[side] = snapshot_from_objects(
                [*prior.objects, *bodies], default_namespace=default_namespace
            )
    return result


def _at_failure(
    calls: Sequence[LookupCall], error: str, chart: str, read: Callable[[str], str | None]
) -> Sequence[LookupCall]:
    """The calls in the template the error names, or in a define it includes: a failure elsewhere
    is not this lookup's."""
    match = _FAILED_AT.search(error)
    tail = (
        match.group(1).partition("/")[2] if match else ""
    )  # Helm's path starts with the chart's name
    if not tail:
        return []
    failing = [c for c in calls if c.template == tail or c.template.endswith("/" + tail)]
    if failing:
        return failing
    included = set(_INCLUDED.findall(read(f"{chart}/{tail}" if chart else tail) or ""))
    return [c for c in calls if included & set(_DEFINED.findall(read(c.template) or ""))]


def _render_values(tree: RefSnapshot, chart: str, given: Mapping[str, Any]) -> Mapping[str, Any]:
    """The values a render of `chart` had: its values.yaml with the render's values over it."""
    return merge_maps(dict(chart_defaults(tree.text_or_none, chart)), dict(given))


def _missing(
    calls: Iterable[LookupCall],
    release: ReleaseIdentity,
    values: Mapping[str, Any],
    cluster: ClusterSnapshot,
) -> Iterable[dict[str, Any]]:
    for call in calls:
        identity = call.identity(release, values)
        if identity is None:
            continue
        api_version, kind, namespace, name = identity
        if not cluster.namespaced(api_version, kind):
            namespace = ""
        elif not namespace:
            continue  # a namespaced object has no cluster-wide name: Helm's lookup finds nothing
        if cluster.get(api_version, kind, namespace, name) is not None:
            continue
        metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
        empty = "data" if kind in _DATA_KINDS else "spec"
        yield {"apiVersion": api_version, "kind": kind, "metadata": metadata, empty: {}}
