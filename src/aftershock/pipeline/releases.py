"""Wiring of release following: releases rendered by a chart install a second chart with their values.

Each round takes the chart reviews of the previous round, reads the HelmReleases and Applications they
render at base and head, resolves the chart each installs and the values it passes, and renders that chart
at both refs when its values or the chart itself changed. Chains are followed a bounded number of levels;
a release whose chart already lies on its own path is a cycle and is not reviewed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from aftershock.errors import AftershockError
from aftershock.ingest.values import diff_values
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import ResolvedRelease
from aftershock.model.review import ChartReview, NotReviewed, Side
from aftershock.model.units import AffectedChart, AffectStep, Chart, ValuesKeyChange
from aftershock.pipeline.charts import RenderSettings, SideInput, review_charts
from aftershock.releases.parse import release_spec
from aftershock.releases.resolve import resolve_chart
from aftershock.releases.values import release_values
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan, RenderInputs

MAX_DEPTH = 4


@dataclass(frozen=True)
class ReleaseFollowing:
    reviews: tuple[ChartReview, ...]
    values_changes: tuple[ValuesKeyChange, ...]  # per release, between the values passed at base and head
    not_reviewed: tuple[NotReviewed, ...]


def follow_releases(
    first: Sequence[ChartReview], base: SideInput, head: SideInput, renderer: Renderer, settings: RenderSettings,
    work: Path, affected: Sequence[AffectedChart], rendered: Callable[[RenderOutcome], None] | None = None,
) -> ReleaseFollowing:
    affected_paths = {a.chart for a in affected}
    reviews: list[ChartReview] = []
    changes: list[ValuesKeyChange] = []
    gaps: list[NotReviewed] = []
    current, seen = list(first), set()
    for depth in range(MAX_DEPTH):
        plans, round_changes, round_gaps = _plans(current, base, head, affected_paths, seen)
        changes += round_changes
        gaps += round_gaps
        if not plans:
            break
        current_reviews, render_gaps = review_charts(plans, base, head, renderer, settings, work / f"releases-{depth}", rendered=rendered)
        reviews += current_reviews
        gaps += render_gaps
        current = list(current_reviews)
    return ReleaseFollowing(tuple(reviews), tuple(changes), tuple(gaps))


def _plans(
    reviews: Sequence[ChartReview], base: SideInput, head: SideInput, affected: set[str], seen: set[ObjectKey],
) -> tuple[list[ChartPlan], list[ValuesKeyChange], list[NotReviewed]]:
    plans, changes, gaps = [], [], []
    for review in reviews:
        for key in _release_keys(review):
            if key in seen:
                continue
            seen.add(key)
            try:
                plan, values_changes = _plan(review, key, base, head, affected)
            except AftershockError as error:
                gaps.append(NotReviewed(f"release {key}", error.line()))
                continue
            changes += values_changes
            if plan is not None:
                plans.append(plan)
    return plans, changes, gaps


def _release_keys(review: ChartReview) -> list[ObjectKey]:
    keys = {o.key for o in (*review.base_objects, *review.head_objects) if release_spec(o) is not None}
    return sorted(keys)


def _plan(
    review: ChartReview, key: ObjectKey, base: SideInput, head: SideInput, affected: set[str],
) -> tuple[ChartPlan | None, list[ValuesKeyChange]]:
    sides = {
        Side.BASE: _resolve(review.base_objects, key, base),
        Side.HEAD: _resolve(review.head_objects, key, head),
    }
    for side, resolved in sides.items():
        if resolved is not None and resolved.problem:
            raise AftershockError(resolved.problem, where=f"{key} at {side.value}")
    b, h = sides[Side.BASE], sides[Side.HEAD]
    chart_path = (h or b).chart_path  # type: ignore[union-attr]
    if any(step.kind == "chart" and step.id == chart_path for step in review.affected.path) or chart_path == review.chart:
        raise AftershockError(f"release cycle: {chart_path} installs itself through {key}", hint="break the cycle")
    values_changes = diff_values(b.values if b else {}, h.values if h else {}, chart=chart_path, file=f"release {key}")
    if not values_changes and chart_path not in affected and (b is None) == (h is None):
        return None, []
    return _chart_plan(review, key, b, h, base, head), list(values_changes)


def _resolve(objects: Sequence[RenderedObject], key: ObjectKey, side: SideInput) -> ResolvedRelease | None:
    tree, charts = side
    by_key = {o.key: o for o in objects}
    obj = by_key.get(key)
    if obj is None:
        return None
    spec = release_spec(obj)
    assert spec is not None
    path, evidence, problem = resolve_chart(spec, charts)
    if problem:
        return ResolvedRelease(spec, None, evidence, problem=problem)
    values = release_values(spec, by_key, tree.text_or_none, path)
    return ResolvedRelease(spec, path, evidence, values)


def _chart_plan(
    review: ChartReview, key: ObjectKey, b: ResolvedRelease | None, h: ResolvedRelease | None,
    base: SideInput, head: SideInput,
) -> ChartPlan:
    charts_base: Mapping[str, Chart] = {c.path: c for c in base[1]}
    charts_head: Mapping[str, Chart] = {c.path: c for c in head[1]}
    chart_path = (h or b).chart_path  # type: ignore[union-attr]
    evidence = (h or b).evidence.value  # type: ignore[union-attr]
    steps = review.affected.path + (
        AffectStep(kind="release", id=key.id, relation=f"rendered by {review.chart}"),
        AffectStep(kind="chart", id=chart_path, relation=f"installed by the release ({evidence})"),
    )
    chart_b = charts_base.get(b.chart_path) if b and b.chart_path else None
    chart_h = charts_head.get(h.chart_path) if h and h.chart_path else None
    return ChartPlan(
        path=chart_path, name=(chart_h or chart_b).name, affected=AffectedChart(chart_path, steps),  # type: ignore[union-attr]
        base=chart_b, head=chart_h, release=key.id,
        base_inputs=_inputs(b), head_inputs=_inputs(h),
    )


def _inputs(resolved: ResolvedRelease | None) -> RenderInputs:
    if resolved is None:
        return RenderInputs()
    return RenderInputs(dict(resolved.values), resolved.spec.release_name, resolved.spec.namespace)
