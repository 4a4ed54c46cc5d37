"""Wiring of release following: a HelmRelease or Application installs a chart with its own values.

Releases come from the objects a chart renders and from plain manifests in the repository. Each round
reads the releases of its sources at base and head, resolves the chart each installs and the values it
passes, and renders that chart at both refs when its values or the chart itself changed. The renders of
one round are the sources of the next, a bounded number of levels deep; a release whose chart already
lies on its own path is a cycle and is not reviewed. A release found in a fleet's cluster tree is that
cluster's (model/releases.py `release_id`): same-named releases of two clusters are followed apart,
and only the same release of one cluster passing the same values is rendered once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aftershock.errors import AftershockError
from aftershock.ingest.manifests import PlainManifests
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.ingest.values import diff_values, flatten
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import (
    ReleaseSpec,
    ResolvedRelease,
    cluster_tree,
    release_id,
    release_label,
    split_release_id,
)
from aftershock.model.review import ChartReview, NotReviewed
from aftershock.model.units import AffectedChart, AffectStep, ValuesKeyChange
from aftershock.pipeline.chart_jobs import RenderSettings, SideInput
from aftershock.pipeline.charts import review_charts
from aftershock.pipeline.release_plans import Archives, chart_plan, unpack_external
from aftershock.releases.external import changed_source_file, is_external, resolve_external
from aftershock.releases.parse import declares_release, release_spec
from aftershock.releases.resolve import resolve_chart
from aftershock.releases.values import release_values, secret_values
from aftershock.render.chart_archives import ChartCache
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan

MAX_DEPTH = 4


@dataclass(frozen=True)
class ReleaseSource:
    """Where releases were found: a chart's render, or a plain manifest file."""

    id: str
    path: tuple[
        AffectStep, ...
    ]  # how the change reaches the source; empty for an unchanged manifest
    base_objects: tuple[RenderedObject, ...]
    head_objects: tuple[RenderedObject, ...]
    base_lookup: Mapping[ObjectKey, RenderedObject] = field(default_factory=dict)  # for valuesFrom
    head_lookup: Mapping[ObjectKey, RenderedObject] = field(default_factory=dict)
    scenario: str = "default"  # the source chart's scenario; its releases are reviewed in it too
    cluster: str | None = (
        None  # the cluster the source deploys to (a Flux Kustomization's), when known
    )
    tree: str | None = None  # the cluster tree its releases live in: part of their identity


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
    base: PlainManifests, head: PlainManifests, changed: set[str]
) -> tuple[tuple[ReleaseSource, ...], tuple[NotReviewed, ...]]:
    """One source per plain manifest file, and the files holding a release that could not be read."""
    lookups = plain_lookups(base, head)
    sources = []
    for path in sorted(set(base.objects) | set(head.objects)):
        steps = (AffectStep("file", path, "changed"),) if path in changed else ()
        tree = cluster_tree(path)
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
) -> ReleaseFollowing:
    """`chart_map` is the configuration's `releases.charts`: chart or source name -> chart folder;
    `cache` holds the archives of charts from outside the repository. `covered` holds (chart, release id)
    pairs already reviewed as an affected chart's render context: their values diff is still reported,
    but the chart is not rendered a second time."""
    by_chart = {a.chart: a for a in affected}
    reviews: list[ChartReview] = []
    changes: list[ValuesKeyChange] = []
    gaps: list[NotReviewed] = []
    current: list[ReleaseSource] = list(sources)
    seen: set[tuple[str, str]] = set()  # (release id, the values it passes)
    for depth in range(MAX_DEPTH):
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
                planned, values_changes = _plan(source, key, base, head, affected, chart_map, cache)
            except _Unreached:
                continue
            except _Unresolved as unresolved:
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


class _Unresolved(Exception):
    """A release the change reaches whose chart cannot be had, with its own values diff."""

    def __init__(self, error: AftershockError, values_changes: list[ValuesKeyChange]) -> None:
        super().__init__(error.line())
        self.error, self.values_changes = error, values_changes


def _plan(
    source: ReleaseSource,
    key: ObjectKey,
    base: SideInput,
    head: SideInput,
    affected: Mapping[str, AffectedChart],
    chart_map: Mapping[str, str],
    cache: ChartCache,
) -> tuple[tuple[ChartPlan, Archives] | None, list[ValuesKeyChange]]:
    b = _resolve(source.base_objects, source.base_lookup, key, base, chart_map, cache)
    h = _resolve(source.head_objects, source.head_lookup, key, head, chart_map, cache)
    release = release_id(key, source.tree)
    _check_resolved(source, key, b, h)
    current = h or b
    assert current is not None and current.chart_path is not None  # no problem, so a chart
    chart_path = current.chart_path
    if chart_path == source.id or any(
        s.kind == "chart" and s.id == chart_path for s in source.path
    ):
        raise AftershockError(
            f"release cycle: {chart_path} installs itself through {key}", hint="break the cycle"
        )
    values_changes = diff_values(
        b.values if b else {}, h.values if h else {}, chart=chart_path, file=release_label(release)
    )
    values_changes = _marked_secret(
        values_changes,
        (b.secret_paths if b else frozenset()) | (h.secret_paths if h else frozenset()),
    )
    how = current.evidence.value + (f": version {current.chosen}" if current.chosen else "")
    steps = _steps(source, release, chart_path, how, affected) or _through_source(
        source, release, chart_path, how, (b, h)
    )
    moved = (b is None) != (h is None) or (
        b is not None and h is not None and b.version != h.version
    )
    if steps is None or (not values_changes and chart_path not in affected and not moved):
        return None, []
    plan = chart_plan(release, chart_path, b, h, (base, head), steps, source.cluster)
    return plan, list(values_changes)


def _check_resolved(
    source: ReleaseSource, key: ObjectKey, b: ResolvedRelease | None, h: ResolvedRelease | None
) -> None:
    """A release whose chart cannot be had is not reviewed when the change reaches it (its own values diff
    is still shown: _Unresolved); one the change leaves alone is no gap of this review (_Unreached)."""
    problems = [(side, r) for side, r in (("base", b), ("head", h)) if r is not None and r.problem]
    if not problems:
        return
    before = next((o.body for o in source.base_objects if o.key == key), None)
    after = next((o.body for o in source.head_objects if o.key == key), None)
    values = diff_values(
        b.values if b else {},
        h.values if h else {},
        chart=(h or b).chart_path or key.id,  # type: ignore[union-attr]
        file=release_label(release_id(key, source.tree)),
    )
    if before == after and not values and _source_change(source, b, h) is None:
        raise _Unreached()
    side, resolved = problems[-1]
    raise _Unresolved(
        AftershockError(str(resolved.problem), where=f"{key} at {side}"), list(values)
    )


def _source_change(
    source: ReleaseSource, b: ResolvedRelease | None, h: ResolvedRelease | None
) -> AffectStep | None:
    resolved = h or b
    if resolved is None:
        return None
    changed = changed_source_file(resolved.spec, source.base_lookup, source.head_lookup)
    return AffectStep("file", changed, "changed") if changed else None


def _through_source(
    source: ReleaseSource,
    release: str,
    chart_path: str,
    how: str,
    sides: tuple[ResolvedRelease | None, ResolvedRelease | None],
) -> tuple[AffectStep, ...] | None:
    """The path to the downstream render when only the release's chart source changed."""
    changed = _source_change(source, *sides)
    if changed is None:
        return None
    spec = (sides[1] or sides[0]).spec  # type: ignore[union-attr]
    return (
        changed,
        AffectStep(
            "release", release, f"reads its chart from {spec.source_kind} {spec.source_name}"
        ),
        AffectStep("chart", chart_path, f"installed by the release ({how})"),
    )


class _Unreached(Exception):
    """A release whose chart cannot be had, which the change does not reach."""


def _marked_secret(
    changes: Sequence[ValuesKeyChange], secret_paths: frozenset[str]
) -> tuple[ValuesKeyChange, ...]:
    """Changes of values a Secret supplies (or of maps holding them) marked `secret`."""
    if not secret_paths:
        return tuple(changes)

    def holds_secret(path: str) -> bool:
        return any(
            p == path or p.startswith(path + ".") or path.startswith(p + ".") for p in secret_paths
        )

    return tuple(replace(c, secret=True) if holds_secret(c.path) else c for c in changes)


def _steps(
    source: ReleaseSource,
    release: str,
    chart_path: str,
    evidence: str,
    affected: Mapping[str, AffectedChart],
) -> tuple[AffectStep, ...] | None:
    """The path to the downstream render: through the source when the change reaches it, else through
    the downstream chart itself; None when the change reaches neither."""
    if source.path:
        return source.path + (
            AffectStep("release", release, f"declared by {source.id}"),
            AffectStep("chart", chart_path, f"installed by the release ({evidence})"),
        )
    if chart_path in affected:
        return affected[chart_path].path + (
            AffectStep("release", release, f"installs it with its values ({evidence})"),
        )
    return None


def _resolve(
    objects: Sequence[RenderedObject],
    lookup: Mapping[ObjectKey, RenderedObject],
    key: ObjectKey,
    side: SideInput,
    chart_map: Mapping[str, str],
    cache: ChartCache,
) -> ResolvedRelease | None:
    tree, charts = side
    obj = next((o for o in objects if o.key == key), None)
    if obj is None:
        return None
    spec = release_spec(obj)
    assert spec is not None
    path, evidence, problem = resolve_chart(spec, charts, chart_map)
    if problem and is_external(spec):
        return resolve_external(spec, lookup, tree.text_or_none, cache)
    if problem:
        return ResolvedRelease(
            spec, None, evidence, _values_or_empty(spec, lookup, tree), problem=problem
        )
    secret_paths = frozenset(p for p, _ in flatten(secret_values(spec, lookup)))
    return ResolvedRelease(
        spec,
        path,
        evidence,
        release_values(spec, lookup, tree.text_or_none, path),
        secret_paths=secret_paths,
    )


def _values_or_empty(
    spec: ReleaseSpec, lookup: Mapping[ObjectKey, RenderedObject], tree: RefSnapshot
) -> dict[str, Any]:
    """The values a release passes, for its values diff even when its chart cannot be resolved."""
    try:
        return release_values(spec, lookup, tree.text_or_none, None)
    except AftershockError:
        return {}
