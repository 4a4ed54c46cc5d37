"""Wiring of the review's cluster: what Helm's `lookup` finds at each ref, and the charts it makes affected.

Per side, the cluster snapshot holds the repository's plain manifests, the objects other charts of
the repository render at that ref (those whose templates name an object an affected chart looks up),
and `.aftershock.yaml` `cluster:` objects (read at the base ref, like the configuration). Only the
charts that call `lookup` render against it, so every other render keeps its request and cache key.

A chart whose `lookup` names an object that a reviewed chart's render changed is reached by the
change through that object even when none of its files changed: `lookup_dependents` finds those.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aftershock.config import AftershockConfig
from aftershock.ingest.cluster_objects import read_cluster_objects
from aftershock.ingest.manifests import PlainManifests
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.model.objects import RenderedObject
from aftershock.model.review import ChartOutcome, ChartReview, Side
from aftershock.model.units import AffectedChart, AffectStep, Chart
from aftershock.pipeline.chart_jobs import RenderSettings, SideInput
from aftershock.pipeline.charts import one_side_plan, render_side, side_objects
from aftershock.render.cluster import ClusterSnapshot, cluster_snapshot
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan, dependency_closure

# `lookup "v1" "ConfigMap" "ns" "name"`: literal arguments only; a variable stays unknown ("*").
_LOOKUP = re.compile(
    r'\blookup\s+(?:"([^"]*)"|\S+)\s+(?:"([^"]*)"|\S+)\s+(?:"([^"]*)"|\S+)\s+(?:"([^"]*)"|[^\s)}]+)'
)
_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl", ".txt")
MAX_PROVIDERS = 20  # charts rendered per side only to fill the cluster


@dataclass(frozen=True)
class LookupTarget:
    """What one `lookup` call asks for; None where the argument is not a literal."""

    api_version: str | None
    kind: str | None
    namespace: str | None
    name: str | None
    template: str  # repository path of the template holding the call

    def matches(self, obj: RenderedObject) -> bool:
        return (
            (self.api_version is None or self.api_version == obj.api_version)
            and (self.kind is None or self.kind == obj.key.kind)
            and (not self.namespace or self.namespace == obj.key.namespace)
            and (not self.name or self.name == obj.key.name)
        )


def lookup_targets(
    tree: RefSnapshot, chart: Chart, charts: Mapping[str, Chart]
) -> tuple[LookupTarget, ...]:
    """The `lookup` calls in the templates of a chart and of the charts it includes."""
    found = []
    for folder in dependency_closure(chart, charts):
        prefix = f"{folder}/templates" if folder else "templates"
        for path in tree.tree.paths_under(prefix):
            if not path.endswith(_TEMPLATE_SUFFIXES):
                continue
            text = tree.text_or_none(path) or ""
            if "lookup" not in text:
                continue
            for match in _LOOKUP.finditer(text):
                api_version, kind, namespace, name = match.groups()
                found.append(LookupTarget(api_version, kind, namespace, name, template=path))
    return tuple(found)


def declared_objects(
    config: AftershockConfig, base_tree: RefSnapshot
) -> tuple[dict[str, Any], ...]:
    """`.aftershock.yaml` `cluster:` objects, read at the base ref like the configuration itself."""
    return (
        read_cluster_objects(config.cluster, base_tree)
        if config.cluster.objects or config.cluster.files
        else ()
    )


def review_clusters(
    plans: Sequence[ChartPlan],
    base: SideInput,
    head: SideInput,
    plain: tuple[PlainManifests, PlainManifests],
    extra: Sequence[Mapping[str, Any]],
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    rendered: Callable[[RenderOutcome], None] | None = None,
) -> dict[Side, ClusterSnapshot | None]:
    """The cluster snapshot of each side (`extra`: the declared objects); None at a side where no
    planned chart calls `lookup`."""
    clusters: dict[Side, ClusterSnapshot | None] = {}
    for side, side_input, manifests in ((Side.BASE, base, plain[0]), (Side.HEAD, head, plain[1])):
        tree, charts = side_input
        by_path = {c.path: c for c in charts}
        looking = [c for p in plans if (c := (p.base if side is Side.BASE else p.head)) is not None]
        targets = [t for c in looking for t in lookup_targets(tree, c, by_path)]
        if not targets:
            clusters[side] = None
            continue
        provided = provider_objects(
            targets, {c.path for c in looking}, side, side_input, renderer, settings, work, rendered
        )
        clusters[side] = cluster_snapshot(
            manifests.all_objects(), provided, extra, default_namespace=settings.namespace
        )
    return clusters


def provider_objects(
    targets: Sequence[LookupTarget],
    skip: set[str],
    side: Side,
    side_input: SideInput,
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    rendered: Callable[[RenderOutcome], None] | None,
) -> list[RenderedObject]:
    """Objects rendered, with their defaults, by the charts whose templates name a looked-up object."""
    tree, charts = side_input
    names = {t.name for t in targets if t.name}
    plans: list[ChartPlan] = []
    for chart in charts:
        if not chart.renderable or chart.path in skip or len(plans) >= MAX_PROVIDERS:
            continue
        texts = tree.texts_under(
            [f"{chart.path}/templates" if chart.path else "templates"], suffixes=_TEMPLATE_SUFFIXES
        )
        if any(name in text for text in texts for name in names):
            plans.append(one_side_plan(chart, side, "cluster"))
    if not plans:
        return []
    results = render_side(
        plans, side, side_input, renderer, settings, work / f"cluster-{side.value}", rendered
    )
    objects: list[RenderedObject] = []
    for plan, (outcome, error) in zip(plans, results):
        if outcome is not None and error is None:
            objects += [
                o
                for o in side_objects(outcome, plan, side, charts)
                if any(t.matches(o) for t in targets)
            ]
    return objects


def lookup_dependents(
    reviews: Sequence[ChartReview],
    planned: Iterable[str],
    side_inputs: tuple[SideInput, SideInput],
) -> list[AffectedChart]:
    """Charts not yet planned whose `lookup` names an object a reviewed render changed, with the path."""
    changed = [(r, c.key) for r in reviews if r.outcome is ChartOutcome.CHANGED for c in r.changes]
    if not changed:
        return []
    objects = {(r.chart, o.key): o for r in reviews for o in (*r.base_objects, *r.head_objects)}
    done = set(planned)
    found: list[AffectedChart] = []
    for tree, charts in side_inputs:
        by_path = {c.path: c for c in charts}
        for chart in charts:
            if not chart.renderable or chart.path in done:
                continue
            for target in lookup_targets(tree, chart, by_path):
                hit = next(
                    (
                        (r, k)
                        for r, k in changed
                        if (r.chart, k) in objects and target.matches(objects[(r.chart, k)])
                    ),
                    None,
                )
                if hit is not None:
                    review, key = hit
                    done.add(chart.path)
                    found.append(
                        AffectedChart(
                            chart.path,
                            review.affected.path
                            + (
                                AffectStep("object", key.id, f"rendered by {review.chart}"),
                                AffectStep("chart", chart.path, f"looks it up ({target.template})"),
                            ),
                        )
                    )
                    break
    return found


def with_rendered(
    clusters: Mapping[Side, ClusterSnapshot | None],
    reviews: Sequence[ChartReview],
    plain: tuple[PlainManifests, PlainManifests],
    extra: Sequence[Mapping[str, Any]],
    namespace: str,
) -> dict[Side, ClusterSnapshot]:
    """The clusters with the objects the reviewed charts render at each side added (for dependents);
    the declared objects `extra` still come last, so they win."""
    result = {}
    for side, manifests in ((Side.BASE, plain[0]), (Side.HEAD, plain[1])):
        rendered = [
            o
            for r in reviews
            if r.scenario == "default" and r.release is None
            for o in (r.base_objects if side is Side.BASE else r.head_objects)
        ]
        prior = clusters.get(side)
        bodies = list(prior.objects) if prior is not None else []
        result[side] = cluster_snapshot(
            [*bodies, *manifests.all_objects()], rendered, extra, default_namespace=namespace
        )
    return result
