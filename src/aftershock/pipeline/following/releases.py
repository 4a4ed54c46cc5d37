"""Wiring of release following: a HelmRelease or Application installs a chart with its own values.

Releases come from the objects a chart renders and from plain manifests in the repository. Each round
reads the releases of its sources at base and head, resolves the chart each installs and the values it
passes, and renders that chart at both refs when its values or the chart itself changed. The renders of
one round are the sources of the next, a bounded number of levels deep; a release whose chart already
lies on its own path is a cycle and is not reviewed. A release found in a fleet's cluster tree is that
cluster's (model/releases.py `release_id`): same-named releases of two clusters are followed apart,
and only the same release of one cluster passing the same values is rendered once. What one release
resolves to, and whether the change reaches it, is pipeline/following/release_resolution.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from aftershock.ingest.gitops.manifests import PlainManifests
from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import (
    release_id,
    release_label,
    split_release_id,
)
from aftershock.model.review import ChartReview, NotReviewed
from aftershock.model.units import AffectedChart, AffectStep, ValuesKeyChange
from aftershock.pipeline.following.release_plans import Archives, unpack_external
from aftershock.pipeline.following.release_resolution import (
    ReleaseSource,
    UnreachedRelease,
    UnresolvedRelease,
    plan_release,
)
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, SideInput
from aftershock.pipeline.rendering.charts import review_charts
from aftershock.pipeline.rendering.line_traces import WantedLines
from aftershock.releases.parse import declares_release
from aftershock.render.external.chart_archives import ChartCache
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan

MAX_DEPTH = 4


@dataclass(frozen=True)
class ReleaseFollowing:
    reviews: tuple[ChartReview, ...]
    values_changes: tuple[
        ValuesKeyChange, ...
    ]  # per release, between the values passed at base and head
    not_reviewed: tuple[NotReviewed, ...]


Lookups = tuple[Mapping[ObjectKey, RenderedObject], Mapping[ObjectKey, RenderedObject]]


def plain_lookups(base: PlainManifests, head: PlainManifests) -> Lookups:
    """Every plain ConfigMap and Secret (and release) by key, at base and head, for valuesFrom."""
    return {o.key: o for o in base.all_objects()}, {o.key: o for o in head.all_objects()}


def manifest_sources(
    base: PlainManifests, head: PlainManifests, changed: set[str], lookups: Lookups | None = None
) -> tuple[tuple[ReleaseSource, ...], tuple[NotReviewed, ...]]:
    """One source per plain manifest file, and the files holding a release that could not be read;
    their valuesFrom reads `lookups` (the plain manifests' own objects when not given)."""
    lookups = lookups or plain_lookups(base, head)
    sources = []
    for path in sorted(set(base.objects) | set(head.objects)):
        steps = (AffectStep("file", path, "changed"),) if path in changed else ()
        tree = (head if path in head.objects else base).clusters.of(path)
        objects = base.objects.get(path, ()), head.objects.get(path, ())
        sources.append(ReleaseSource(path, steps, *objects, *lookups, cluster=tree, tree=tree))
    gaps = [
        NotReviewed(f"manifest {p}", r)
        for side in (base, head)
        for p, r in sorted(side.unreadable.items())
    ]
    return tuple(sources), tuple(dict.fromkeys(gaps))


def chart_source(review: ChartReview, plain: Lookups) -> ReleaseSource:
    base_lookup = {**plain[0], **{o.key: o for o in review.base_objects}}
    head_lookup = {**plain[1], **{o.key: o for o in review.head_objects}}
    source_id = f"{review.chart}@{review.release}" if review.release else review.chart
    return ReleaseSource(
        source_id,
        review.affected.path,
        review.base_objects,
        review.head_objects,
        base_lookup,
        head_lookup,
        review.scenario,
        review.cluster,
        split_release_id(review.release)[1] if review.release else None,
    )


def follow_releases(
    sources: Sequence[ReleaseSource],
    plain: Lookups,
    base: SideInput,
    head: SideInput,
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    affected: Sequence[AffectedChart],
    rendered: Callable[[RenderOutcome], None] | None = None,
    chart_map: Mapping[str, str] | None = None,
    covered: frozenset[tuple[str, str]] = frozenset(),
    cache: ChartCache = ChartCache(),
    trace: WantedLines | None = None,
    reach: Callable[[tuple[SideInput, SideInput], Collection[str]], tuple[SideInput, SideInput]]
    | None = None,
) -> ReleaseFollowing:
    """`trace`: the changed template lines to trace through the renders (pipeline/rendering/line_traces.py).
    `chart_map` is the configuration's `releases.charts`: chart or source name -> chart folder;
    `cache` holds the archives of charts from outside the repository. `covered` holds (chart, release id)
    pairs already reviewed as an affected chart's render context: their values diff is still reported,
    but the chart is not rendered a second time. `reach` resolves from history the dependencies of
    the charts a round comes to render (pipeline/rendering/chart_history.py)."""
    by_chart = {a.chart: a for a in affected}
    reviews: list[ChartReview] = []
    changes: list[ValuesKeyChange] = []
    gaps: list[NotReviewed] = []
    current: list[ReleaseSource] = list(sources)
    seen: set[tuple[str, str]] = set()  # (release id, the values it passes)
    for depth in range(MAX_DEPTH):
        before = set(seen)
        plans, round_changes, round_gaps = _plans(
            current, base, head, by_chart, seen, chart_map or {}, covered, cache
        )
        if reach is not None and plans:
            sides = reach((base, head), {p.path for p, _ in plans})
            if sides != (base, head):  # planned again on the charts as history resolves them
                (base, head), seen = sides, before
                plans, round_changes, round_gaps = _plans(
                    current, base, head, by_chart, seen, chart_map or {}, covered, cache
                )
        changes += round_changes
        gaps += round_gaps
        if not plans:
            break
        unpack_external(plans, work / f"releases-{depth}")
        found, render_gaps = review_charts(
            [p for p, _ in plans],
            base,
            head,
            renderer,
            settings,
            work / f"releases-{depth}",
            rendered=rendered,
            trace=trace,
        )
        reviews += found
        gaps += render_gaps
        current = [chart_source(r, plain) for r in found]
    return ReleaseFollowing(tuple(reviews), tuple(changes), tuple(gaps))


def _plans(
    sources: Sequence[ReleaseSource],
    base: SideInput,
    head: SideInput,
    affected: Mapping[str, AffectedChart],
    seen: set[tuple[str, str]],
    chart_map: Mapping[str, str],
    covered: frozenset[tuple[str, str]],
    cache: ChartCache,
) -> tuple[list[tuple[ChartPlan, Archives]], list[ValuesKeyChange], list[NotReviewed]]:
    """A release is planned once per distinct pair of values it passes (a scenario of its source that
    passes the same values as another adds nothing); its values diff and problems are said once."""
    plans, changes, gaps = [], [], []
    said: set[str] = {release for release, _ in seen}
    for source in sources:
        for key in sorted(
            {o.key for o in (*source.base_objects, *source.head_objects) if declares_release(o)}
        ):
            release = release_id(key, source.tree)
            try:
                planned, values_changes = plan_release(
                    source, key, base, head, affected, chart_map, cache
                )
            except UnreachedRelease:
                continue
            except UnresolvedRelease as unresolved:
                changes += unresolved.values_changes
                gaps.append(NotReviewed(release_label(release), unresolved.error.line()))
                continue
            except AftershockError as error:
                if release not in said:
                    gaps.append(NotReviewed(release_label(release), error.line()))
                said.add(release)
                continue
            plan = planned[0] if planned is not None else None
            identity = (release, _inputs_key(plan))
            if identity in seen:
                continue  # the same release in the same cluster, passing the same values
            seen.add(identity)
            if release not in said:
                changes += values_changes
            said.add(release)
            if planned is not None and not (
                source.scenario == "default" and (planned[0].path, release) in covered
            ):
                plans.append(_in_scenario(planned, source.scenario))
    return plans, changes, gaps


def _in_scenario(planned: tuple[ChartPlan, Archives], scenario: str) -> tuple[ChartPlan, Archives]:
    plan, archives = planned
    return (replace(plan, scenario=scenario) if scenario != "default" else plan), archives


def _inputs_key(plan: ChartPlan | None) -> str:
    if plan is None:
        return ""
    return json.dumps(
        [plan.base_inputs.values, plan.head_inputs.values], sort_keys=True, default=str
    )
