"""Wiring of the review's cluster: what Helm's `lookup` finds at each ref, and the charts it makes affected.

Per side, the cluster snapshot holds the repository's plain manifests, the objects other charts of
the repository render at that ref (those whose templates name an object an affected chart looks up),
and `.aftershock.yaml` `cluster:` objects (read at the base ref, like the configuration). Only the
charts that call `lookup` render against it, so every other render keeps its request and cache key.

A chart whose `lookup` names an object that a reviewed chart's render changed is reached by the
change through that object even when none of its files changed: `lookup_dependents` finds those.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from aftershock.config.settings import AftershockConfig
from aftershock.ingest.gitops.cluster_objects import read_cluster_objects
from aftershock.ingest.gitops.manifests import PlainManifests
from aftershock.ingest.lookups import (
    UNKNOWN_RELEASE,
    LookupCall,
    ReleaseIdentity,
    parse_template,
    reachable_calls,
)
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.tree import EntryKind
from aftershock.model.change import Side
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.review import ChartOutcome, ChartReview
from aftershock.model.units import AffectedChart, AffectStep, Chart
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, SideInput
from aftershock.pipeline.rendering.charts import one_side_plan, render_side, side_objects
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.lookup.cluster import ClusterSnapshot, cluster_snapshot
from aftershock.render.plan import ChartPlan, dependency_closure

_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl", ".txt")
MAX_PROVIDERS = 20  # charts rendered per side only to fill the cluster


def call_matches(call: LookupCall, obj: RenderedObject, release: ReleaseIdentity) -> bool:
    """Whether `obj` is among what `call` asks for: the kind must be equal where it is known, and
    so must apiVersion, namespace and name (an empty namespace or name asks for all)."""
    kind, api_version = call.kind.value(release), call.api_version.value(release)
    namespace, name = call.namespace.value(release), call.name.value(release)
    return (
        (kind is None or kind == obj.key.kind)
        and (api_version is None or api_version == obj.api_version)
        and (not namespace or namespace == obj.key.namespace)
        and (not name or name == obj.key.name)
    )


def _templates(folder: str) -> str:
    return f"{folder}/templates" if folder else "templates"


def lookup_targets(
    tree: RefSnapshot, chart: Chart, charts: Mapping[str, Chart]
) -> tuple[LookupCall, ...]:
    """The `lookup` calls a render of the chart may run: in its templates and its dependencies',
    those inside a `define` only when the rendered text includes it."""
    return _reachable_targets(_template_texts(tree, chart, charts))


def _template_texts(tree: RefSnapshot, chart: Chart, charts: Mapping[str, Chart]) -> dict[str, str]:
    """The texts of the templates of the chart and its dependencies, by path."""
    paths = [
        path
        for folder in dependency_closure(chart, charts)
        for path in tree.tree.paths_under(_templates(folder))
        if path.endswith(_TEMPLATE_SUFFIXES)
    ]
    entries = tree.tree.entries
    batch = tree.read_texts(p for p in paths if entries[p].kind is EntryKind.BLOB)  # one batch
    return {p: batch[p] if p in batch else (tree.text_or_none(p) or "") for p in paths}


def _reachable_targets(texts: Mapping[str, str]) -> tuple[LookupCall, ...]:
    if not any("lookup" in text for text in texts.values()):
        return ()  # the common case, without reading any template's actions
    return reachable_calls(parse_template(path, text) for path, text in texts.items())


def _written_calls(texts: Mapping[str, str]) -> Iterable[LookupCall]:
    """Every call the texts hold where a render could run it: a superset of the reachable ones,
    found by parsing only the files that name `lookup` (reachability needs every file's includes)."""
    for path, text in texts.items():
        if "lookup" in text:
            parsed = parse_template(path, text)
            yield from parsed.top_calls
            for calls, _ in parsed.defines.values():
                yield from calls


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
    release: ReleaseIdentity = UNKNOWN_RELEASE,
) -> dict[Side, ClusterSnapshot | None]:
    """The cluster snapshot of each side (`extra`: the declared objects); None at a side where no
    planned chart calls `lookup`. `release`: the identity every chart renders as, where given."""
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
        provided = [o for o in provided if any(call_matches(t, o, release) for t in targets)]
        clusters[side] = cluster_snapshot(
            manifests.all_objects(), provided, extra, default_namespace=settings.namespace
        )
    return clusters


def provider_objects(
    targets: Sequence[LookupCall],
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
    names = {name for t in targets if (name := t.name.value())}
    plans: list[ChartPlan] = []
    for chart in charts:
        if not chart.renderable or chart.path in skip or len(plans) >= MAX_PROVIDERS:
            continue
        texts = tree.texts_under([_templates(chart.path)], suffixes=_TEMPLATE_SUFFIXES)
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
            objects += side_objects(outcome, plan, side, charts)
    return objects


def lookup_dependents(
    reviews: Sequence[ChartReview],
    planned: Iterable[str],
    side_inputs: tuple[SideInput, SideInput],
    release: ReleaseIdentity = UNKNOWN_RELEASE,
) -> list[AffectedChart]:
    """Charts not yet planned whose `lookup` asks for an object a reviewed render changed, with the
    path. A call whose kind is not known statically may ask for any object, and its step says so.
    A change only a probe shows (made-up values) reaches no other chart: no cluster holds it."""
    changed = [
        (r, c.key)
        for r in reviews
        if r.outcome is ChartOutcome.CHANGED and not r.probe
        for c in r.changes
    ]
    if not changed:
        return []
    objects = {(r.chart, o.key): o for r in reviews for o in (*r.base_objects, *r.head_objects)}
    done = set(planned)
    found: list[AffectedChart] = []
    known: dict[str, bool] = {}  # blob sha: names `lookup` (most blobs are the same at both refs)
    for tree, charts in side_inputs:
        by_path = {c.path: c for c in charts}
        closures = {
            c.path: dependency_closure(c, by_path)
            for c in charts
            if c.renderable and c.path not in done
        }
        naming = folders_naming_lookup(tree, {f for fs in closures.values() for f in fs}, known)
        for chart in charts:
            if chart.path in done or naming.isdisjoint(closures.get(chart.path, ())):
                continue
            texts = _template_texts(tree, chart, by_path)
            written = _written_calls(texts)
            if all(_changed_hit(c, changed, objects, release) is None for c in written):
                continue  # no call written asks for a changed object, whatever renders reach
            for target in _reachable_targets(texts):
                hit = _changed_hit(target, changed, objects, release)
                if hit is not None:
                    done.add(chart.path)
                    found.append(_reached(chart, *hit, target))
                    break
    return found


def _changed_hit(
    call: LookupCall,
    changed: Sequence[tuple[ChartReview, ObjectKey]],
    objects: Mapping[tuple[str, ObjectKey], RenderedObject],
    release: ReleaseIdentity,
) -> tuple[ChartReview, ObjectKey] | None:
    """The first changed object (with its review) that `call` asks for."""
    return next(
        (
            (r, k)
            for r, k in changed
            if (r.chart, k) in objects and call_matches(call, objects[(r.chart, k)], release)
        ),
        None,
    )


def folders_naming_lookup(
    tree: RefSnapshot, folders: Iterable[str], known: dict[str, bool]
) -> frozenset[str]:
    """The folders among `folders` with a template whose text names `lookup`, every blob read once
    in one batch (`known` carries what was read at the other ref). A symlink or a file over the
    size limit counts as naming it, so `lookup_targets` reads (or refuses) it as before."""
    naming, unread = tree.scan_templates(folders, _TEMPLATE_SUFFIXES, _names_lookup, known)
    return naming | unread


def _names_lookup(text: str) -> bool:
    return "lookup" in text


def _reached(chart: Chart, review: ChartReview, key: ObjectKey, call: LookupCall) -> AffectedChart:
    unknown = "" if call.kind.static else "; its kind is not known statically"
    return AffectedChart(
        chart.path,
        review.affected.path
        + (
            AffectStep("object", key.id, f"rendered by {review.chart}"),
            AffectStep("chart", chart.path, f"looks it up ({call.template}{unknown})"),
        ),
    )


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
