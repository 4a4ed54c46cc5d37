"""Wiring of release following: a HelmRelease or Application installs a chart with its own values.

Releases come from the objects a chart renders and from plain manifests in the repository. Each round
reads the releases of its sources at base and head, resolves the chart each installs and the values it
passes, and renders that chart at both refs when its values or the chart itself changed. The renders of
one round are the sources of the next, a bounded number of levels deep; a release whose chart already
lies on its own path is a cycle and is not reviewed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from aftershock.errors import AftershockError
from aftershock.ingest.manifests import PlainManifests
from aftershock.ingest.values import diff_values
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import ResolvedRelease
from aftershock.model.review import ChartReview, NotReviewed
from aftershock.model.units import AffectedChart, AffectStep, Chart, ValuesKeyChange
from aftershock.pipeline.charts import RenderSettings, SideInput, review_charts
from aftershock.releases.parse import release_spec
from aftershock.releases.resolve import resolve_chart
from aftershock.releases.values import release_values
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan, RenderInputs

MAX_DEPTH = 4


@dataclass(frozen=True)
class ReleaseSource:
    """Where releases were found: a chart's render, or a plain manifest file."""

    id: str
    path: tuple[AffectStep, ...]  # how the change reaches the source; empty for an unchanged manifest
    base_objects: tuple[RenderedObject, ...]
    head_objects: tuple[RenderedObject, ...]
    base_lookup: Mapping[ObjectKey, RenderedObject] = field(default_factory=dict)  # for valuesFrom
    head_lookup: Mapping[ObjectKey, RenderedObject] = field(default_factory=dict)
    cluster: str | None = None  # the cluster the source deploys to (a Flux Kustomization's), when known


@dataclass(frozen=True)
class ReleaseFollowing:
    reviews: tuple[ChartReview, ...]
    values_changes: tuple[ValuesKeyChange, ...]  # per release, between the values passed at base and head
    not_reviewed: tuple[NotReviewed, ...]


Lookups = tuple[Mapping[ObjectKey, RenderedObject], Mapping[ObjectKey, RenderedObject]]


def plain_lookups(base: PlainManifests, head: PlainManifests) -> Lookups:
    """Every plain ConfigMap and Secret (and release) by key, at base and head, for valuesFrom."""
    return {o.key: o for o in base.all_objects()}, {o.key: o for o in head.all_objects()}


def manifest_sources(
    base: PlainManifests, head: PlainManifests, changed: set[str]
) -> tuple[tuple[ReleaseSource, ...], tuple[NotReviewed, ...]]:
    """One source per plain manifest file, and the files holding a release that could not be read."""
    lookups = plain_lookups(base, head)
    sources = []
    for path in sorted(set(base.objects) | set(head.objects)):
        steps = (AffectStep("file", path, "changed"),) if path in changed else ()
        sources.append(ReleaseSource(path, steps, base.objects.get(path, ()), head.objects.get(path, ()), *lookups))
    gaps = [NotReviewed(f"manifest {p}", r) for side in (base, head) for p, r in sorted(side.unreadable.items())]
    return tuple(sources), tuple(dict.fromkeys(gaps))


def chart_source(review: ChartReview, plain: Lookups) -> ReleaseSource:
    base_lookup = {**plain[0], **{o.key: o for o in review.base_objects}}
    head_lookup = {**plain[1], **{o.key: o for o in review.head_objects}}
    source_id = f"{review.chart}@{review.release}" if review.release else review.chart
    return ReleaseSource(source_id, review.affected.path, review.base_objects, review.head_objects, base_lookup, head_lookup,
                         review.cluster)


def follow_releases(
    sources: Sequence[ReleaseSource], plain: Lookups, base: SideInput, head: SideInput, renderer: Renderer,
    settings: RenderSettings, work: Path, affected: Sequence[AffectedChart],
    rendered: Callable[[RenderOutcome], None] | None = None, chart_map: Mapping[str, str] | None = None,
) -> ReleaseFollowing:
    """`chart_map` is the configuration's `releases.charts`: chart or source name -> chart folder."""
    by_chart = {a.chart: a for a in affected}
    reviews: list[ChartReview] = []
    changes: list[ValuesKeyChange] = []
    gaps: list[NotReviewed] = []
    current, seen = list(sources), set()
    for depth in range(MAX_DEPTH):
        plans, round_changes, round_gaps = _plans(current, base, head, by_chart, seen, chart_map or {})
        changes += round_changes
        gaps += round_gaps
        if not plans:
            break
        found, render_gaps = review_charts(plans, base, head, renderer, settings, work / f"releases-{depth}", rendered=rendered)
        reviews += found
        gaps += render_gaps
        current = [chart_source(r, plain) for r in found]
    return ReleaseFollowing(tuple(reviews), tuple(changes), tuple(gaps))


def _plans(
    sources: Sequence[ReleaseSource], base: SideInput, head: SideInput, affected: Mapping[str, AffectedChart],
    seen: set[ObjectKey], chart_map: Mapping[str, str],
) -> tuple[list[ChartPlan], list[ValuesKeyChange], list[NotReviewed]]:
    plans, changes, gaps = [], [], []
    for source in sources:
        for key in sorted({o.key for o in (*source.base_objects, *source.head_objects) if release_spec(o)}):
            if key in seen:
                continue
            seen.add(key)
            try:
                plan, values_changes = _plan(source, key, base, head, affected, chart_map)
            except AftershockError as error:
                gaps.append(NotReviewed(f"release {key}", error.line()))
                continue
            changes += values_changes
            if plan is not None:
                plans.append(plan)
    return plans, changes, gaps


def _plan(
    source: ReleaseSource, key: ObjectKey, base: SideInput, head: SideInput, affected: Mapping[str, AffectedChart],
    chart_map: Mapping[str, str],
) -> tuple[ChartPlan | None, list[ValuesKeyChange]]:
    b = _resolve(source.base_objects, source.base_lookup, key, base, chart_map)
    h = _resolve(source.head_objects, source.head_lookup, key, head, chart_map)
    for side, resolved in (("base", b), ("head", h)):
        if resolved is not None and resolved.problem:
            raise AftershockError(resolved.problem, where=f"{key} at {side}")
    chart_path = (h or b).chart_path  # type: ignore[union-attr]
    if chart_path == source.id or any(s.kind == "chart" and s.id == chart_path for s in source.path):
        raise AftershockError(f"release cycle: {chart_path} installs itself through {key}", hint="break the cycle")
    values_changes = diff_values(b.values if b else {}, h.values if h else {}, chart=chart_path, file=f"release {key}")
    steps = _steps(source, key, chart_path, (h or b).evidence.value, affected)  # type: ignore[union-attr]
    if steps is None or (not values_changes and chart_path not in affected and (b is None) == (h is None)):
        return None, []
    return _chart_plan(key, b, h, base, head, steps, source.cluster), list(values_changes)


def _steps(
    source: ReleaseSource, key: ObjectKey, chart_path: str, evidence: str, affected: Mapping[str, AffectedChart],
) -> tuple[AffectStep, ...] | None:
    """The path to the downstream render: through the source when the change reaches it, else through
    the downstream chart itself; None when the change reaches neither."""
    if source.path:
        return source.path + (
            AffectStep("release", key.id, f"declared by {source.id}"),
            AffectStep("chart", chart_path, f"installed by the release ({evidence})"),
        )
    if chart_path in affected:
        return affected[chart_path].path + (AffectStep("release", key.id, f"installs it with its values ({evidence})"),)
    return None


def _resolve(
    objects: Sequence[RenderedObject], lookup: Mapping[ObjectKey, RenderedObject], key: ObjectKey, side: SideInput,
    chart_map: Mapping[str, str],
) -> ResolvedRelease | None:
    tree, charts = side
    obj = next((o for o in objects if o.key == key), None)
    if obj is None:
        return None
    spec = release_spec(obj)
    assert spec is not None
    path, evidence, problem = resolve_chart(spec, charts, chart_map)
    if problem:
        return ResolvedRelease(spec, None, evidence, problem=problem)
    return ResolvedRelease(spec, path, evidence, release_values(spec, lookup, tree.text_or_none, path))


def _chart_plan(
    key: ObjectKey, b: ResolvedRelease | None, h: ResolvedRelease | None, base: SideInput, head: SideInput,
    steps: tuple[AffectStep, ...], source_cluster: str | None = None,
) -> ChartPlan:
    charts_base: Mapping[str, Chart] = {c.path: c for c in base[1]}
    charts_head: Mapping[str, Chart] = {c.path: c for c in head[1]}
    chart_path = (h or b).chart_path  # type: ignore[union-attr]
    chart_b = charts_base.get(b.chart_path) if b and b.chart_path else None
    chart_h = charts_head.get(h.chart_path) if h and h.chart_path else None
    return ChartPlan(
        path=chart_path, name=(chart_h or chart_b).name, affected=AffectedChart(chart_path, steps),  # type: ignore[union-attr]
        base=chart_b, head=chart_h, release=key.id, base_inputs=_inputs(b), head_inputs=_inputs(h),
        cluster=_cluster(h or b, source_cluster),  # type: ignore[arg-type]
    )


def _cluster(resolved: ResolvedRelease, source_cluster: str | None = None) -> str:
    """The cluster a release deploys to: its kubeConfig secret or Argo destination, else the controller's own
    (the cluster of the Flux Kustomization that applies it, when one does)."""
    spec = resolved.spec
    if spec.cluster:
        return f"kubeconfig {spec.cluster}" if spec.kind.value == "flux_helmrelease" else spec.cluster
    return source_cluster or "in-cluster"


def _inputs(resolved: ResolvedRelease | None) -> RenderInputs:
    if resolved is None:
        return RenderInputs()
    return RenderInputs(dict(resolved.values), resolved.spec.release_name, resolved.spec.namespace)
