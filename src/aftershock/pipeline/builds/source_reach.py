"""Flux Kustomizations the change reaches through a chart source: a change to an OCIRepository,
HelmRepository, GitRepository or HelmChart (what decides its chart: releases/chart_sources.py)
reaches every HelmRelease reading its chart from it, and so the Kustomizations that build those
releases, though no file they read changed.

The changed sources are those of the builds and manifests the change reaches (with the namespace
their build gives them). A Kustomization not reached otherwise is a candidate when a file of its
build holds a HelmRelease naming such a source (by kind and name, or through a variable that
postBuild substitutes); candidates are built at both refs, and those whose built HelmReleases read
a changed source (kind, namespace, name; the namespace defaulting to the release's own, which the
build's `targetNamespace` may set) carry the change: release following starts from their builds,
with the path file -> source object -> Kustomization -> release. Their builds are sources only
(each unchanged by the change itself), not reviews of their own. At most `MAX_SOURCE_BUILDS`
candidates are built; each one over the bound is *not reviewed*, with the source that reaches it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aftershock.ingest.object_documents import parse_documents
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.change import Side
from aftershock.model.errors import AftershockError
from aftershock.model.objects import RenderedObject
from aftershock.model.releases import cluster_tree, split_release_id
from aftershock.model.review import ChartRender, ChartReview, NotReviewed
from aftershock.model.units import AffectStep
from aftershock.pipeline.builds.built_review import Built
from aftershock.pipeline.builds.flux import FluxId, FluxPlan, FluxSide, build_side, review_one
from aftershock.releases.chart_sources import (
    DECLARED_SOURCE,
    ChangedSource,
    changed_sources,
    chart_source_key,
    is_chart_source,
)
from aftershock.releases.parse import FLUX_GROUP, release_spec
from aftershock.render.kustomize import KustomizeBuilder

MAX_SOURCE_BUILDS = 500  # Kustomizations built because a chart source their releases read changed


@dataclass(frozen=True)
class SourceReach:
    carriers: tuple[ChartReview, ...] = ()  # builds holding a release whose chart source changed
    not_reviewed: tuple[NotReviewed, ...] = ()


@dataclass(frozen=True)
class _Found:
    """A changed chart source and the cluster tree of the build or file declaring it."""

    source: ChangedSource
    cluster: str | None


def reach_through_sources(
    sides: Sequence[FluxSide],
    plans: Mapping[Side, Mapping[FluxId, FluxPlan]],
    reached: Mapping[FluxId, object],
    reviews: Sequence[ChartReview],
    builder: KustomizeBuilder,
    work: Path,
    namespace: str,
) -> SourceReach:
    """The Kustomizations outside `reached` whose releases read a chart source that changed in
    `reviews` (the builds and manifests the change reaches), built at both refs."""
    found = _changed(reviews)
    if not found:
        return SourceReach()
    candidates = _candidates(sides, plans, reached, found)
    ids = sorted(candidates, key=lambda k: (k[0], k[1].id))
    kept, cut = ids[:MAX_SOURCE_BUILDS], ids[MAX_SOURCE_BUILDS:]
    built = {
        s.side: build_side(
            s,
            [plans[s.side][k] for k in kept if k in plans[s.side]],
            builder,
            work / "source-reach",
            namespace,
        )
        for s in sides
    }
    carriers, gaps = [], []
    for key in kept:
        flux = sides[1].kustomizations.get(key) or sides[0].kustomizations[key]
        pair = built[sides[0].side].get(key), built[sides[1].side].get(key)
        reading = _read(pair, [f.source for f in found if _same_cluster(f, flux.cluster)])
        if reading is None and not _failed(pair):
            continue  # its releases read other sources
        via = reading or candidates[key]
        review, missing = review_one(flux, (), *pair, via=_steps(via))
        carriers.append(review)
        # a build failing at a ref: its namespace, so the source it reads, may not be known
        said = str(via) if reading else _named(via)
        gaps += [replace(g, reason=f"{_reaching(said, via)}; {g.reason}") for g in missing]
    gaps += [_over_bound(sides, key, candidates[key]) for key in cut]
    return SourceReach(tuple(carriers), tuple(gaps))


def _changed(reviews: Sequence[ChartReview]) -> list[_Found]:
    """The chart sources whose chart differs between the refs, per cluster tree, over all the
    reviews together: a source moved from one build to another (both reached) did not change."""
    pools: dict[str | None, tuple[list[RenderedObject], list[RenderedObject]]] = {}
    for review in reviews:
        tree = split_release_id(review.release)[1] if review.release else None
        for index, objects in enumerate((review.base_objects, review.head_objects)):
            for obj in objects:
                if is_chart_source(obj.key):
                    pool = pools.setdefault(tree or cluster_tree(obj.template), ([], []))
                    pool[index].append(obj)
    return [
        _Found(source, cluster)
        for cluster, (base, head) in pools.items()
        for source in changed_sources(base, head)
    ]


def _same_cluster(found: _Found, cluster: str | None) -> bool:
    return found.cluster is None or cluster is None or found.cluster == cluster


def _candidates(
    sides: Sequence[FluxSide],
    plans: Mapping[Side, Mapping[FluxId, FluxPlan]],
    reached: Mapping[FluxId, object],
    found: Sequence[_Found],
) -> dict[FluxId, ChangedSource]:
    """Kustomizations not reached otherwise, a file of whose build names a changed source in a
    HelmRelease: each with the first source it names."""
    result: dict[FluxId, ChangedSource] = {}
    for side in sides:
        for key, plan in plans[side.side].items():
            if key in reached or key in result:
                continue
            near = [f.source for f in found if _same_cluster(f, plan.flux.cluster)]
            for path in sorted(plan.files):
                named = _names_source(side.tree, path, near)
                if named is not None:
                    result[key] = named
                    break
    return result


def _names_source(
    tree: RefSnapshot, path: str, sources: Sequence[ChangedSource]
) -> ChangedSource | None:
    """The first of `sources` a HelmRelease of the file names (a variable naming any of them)."""
    try:
        text = tree.text_or_none(path) or ""
    except AftershockError:
        return None  # too big to read: its build says so, if it is built
    if "HelmRelease" not in text or not sources:
        return None
    for kind, name in _source_refs(path, text):
        for source in sources:
            if source.key.kind == kind and (name == source.key.name or "${" in name):
                return source
    return None


@functools.lru_cache(maxsize=4096)  # by content: an unchanged file is read once for both refs
def _source_refs(path: str, text: str) -> tuple[tuple[str, str], ...]:
    """(kind, name) of the chart source each HelmRelease of a manifest file names, as written."""
    try:
        documents = parse_documents({path: text})
    except AftershockError:
        return ()
    refs = []
    for _, _, body in documents:
        if not isinstance(body, dict) or body.get("kind") != "HelmRelease":
            continue
        if not str(body.get("apiVersion", "")).startswith(FLUX_GROUP + "/"):
            continue
        spec = _map(body.get("spec"))
        ref = _map(_map(_map(spec.get("chart")).get("spec")).get("sourceRef")) or _map(
            spec.get("chartRef")
        )
        refs.append((str(ref.get("kind") or ""), str(ref.get("name") or "")))
    return tuple(refs)


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _read(
    pair: tuple[Built | None, Built | None], sources: Sequence[ChangedSource]
) -> ChangedSource | None:
    """The changed source a HelmRelease of the build reads, at either ref."""
    by_key = {s.key: s for s in sources}
    for built in pair:
        for obj in _objects(built):
            try:
                spec = release_spec(obj) if obj.key.group == FLUX_GROUP else None
            except AftershockError:
                continue  # release following says why it cannot read it
            key = chart_source_key(spec) if spec is not None else None
            if key is not None and key in by_key:
                return by_key[key]
    return None


def _objects(built: Built | None) -> tuple[RenderedObject, ...]:
    return () if built is None or isinstance(built, ChartRender) else tuple(built[1])


def _failed(pair: tuple[Built | None, Built | None]) -> bool:
    return any(isinstance(b, ChartRender) for b in pair)


def _steps(source: ChangedSource) -> tuple[AffectStep, ...]:
    return (
        AffectStep("file", source.file, "changed"),
        AffectStep("object", source.key.id, DECLARED_SOURCE),
    )


def _named(source: ChangedSource) -> str:
    """The source as a HelmRelease's file names it (its namespace is known once built)."""
    return f"{source.key.kind} {source.key.name}"


def _over_bound(sides: Sequence[FluxSide], key: FluxId, source: ChangedSource) -> NotReviewed:
    flux = sides[1].kustomizations.get(key) or sides[0].kustomizations[key]
    part = f"Flux Kustomization {flux.key}" + (
        f" in cluster {flux.cluster}" if flux.cluster else ""
    )
    return NotReviewed(
        part,
        f"{_reaching(_named(source), source)}; not built: a review builds at most "
        f"{MAX_SOURCE_BUILDS} Kustomizations that a changed chart source reaches",
    )


def _reaching(said: str, source: ChangedSource) -> str:
    return (
        f"it builds a HelmRelease reading its chart from {said}, "
        f"which the change edits ({source.file})"
    )
