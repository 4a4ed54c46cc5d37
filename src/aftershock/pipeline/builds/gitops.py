"""Wiring of a GitOps repository's own objects into the review, in one place: Flux Kustomizations first,
then the kustomizations no Flux Kustomization builds, then the plain manifests nothing builds.

Each file belongs to one source at a ref: a file a Flux or kustomize build reads is not a plain
manifest, and a kustomization a Flux Kustomization builds is reviewed through it (with its
`targetNamespace`, patches and substitutions), not again on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from aftershock.config.settings import SourceSettings
from aftershock.ingest.gitops.flux import find_flux_kustomizations
from aftershock.ingest.gitops.flux_clusters import FluxClusters, file_clusters
from aftershock.ingest.gitops.flux_kustomization import FluxKustomization
from aftershock.ingest.gitops.kustomizations import find_kustomizations
from aftershock.ingest.gitops.manifests import plain_manifests
from aftershock.model.change import FileChange, Side
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.review import ChartReview, NotReviewed
from aftershock.model.units import Unit, UnitKind
from aftershock.pipeline.builds.build_origin import source_unit_kind
from aftershock.pipeline.builds.flux import (
    FluxId,
    FluxPlan,
    FluxSide,
    build_closure,
    build_side,
    pick,
    review_one,
)
from aftershock.pipeline.builds.kustomize import kustomize_units, review_kustomizations
from aftershock.pipeline.builds.plain import plain_units, review_plain
from aftershock.pipeline.builds.source_reach import reach_through_sources
from aftershock.pipeline.rendering.chart_jobs import SideInput
from aftershock.render.kustomize import KustomizeBuilder

Units = tuple[tuple[str, tuple[Unit, ...]], ...]


@dataclass(frozen=True)
class BuiltSources:
    """What release following starts from besides charts: the builds, and the files they read (whose raw
    documents are then not sources of their own)."""

    reviews: tuple[ChartReview, ...] = ()
    files: frozenset[str] = frozenset()
    # the cluster each file is applied to, at base and at head (ingest/gitops/flux_clusters.py)
    clusters: tuple[FluxClusters, FluxClusters] = (FluxClusters(), FluxClusters())


@dataclass(frozen=True)
class GitOpsReview:
    built: tuple[
        ChartReview, ...
    ]  # Flux Kustomizations and kustomizations: release following starts from them
    plain: tuple[ChartReview, ...]  # plain manifests (release following reads their files itself)
    not_reviewed: tuple[NotReviewed, ...]
    units: Units  # the review's units, with each changed file linked to the sources that read it
    built_files: frozenset[str] = frozenset()
    # Flux Kustomizations reached only through a chart source their releases read
    # (pipeline/builds/source_reach.py): release following starts from them; the report shows
    # their releases, not their unchanged builds
    carriers: tuple[ChartReview, ...] = ()
    clusters: tuple[FluxClusters, FluxClusters] = (FluxClusters(), FluxClusters())

    @property
    def sources(self) -> BuiltSources:
        return BuiltSources(self.built + self.carriers, self.built_files, self.clusters)


def review_gitops(
    files: Sequence[FileChange],
    base: SideInput,
    head: SideInput,
    units: Units,
    namespace: str,
    builder: KustomizeBuilder,
    work: Path,
    sources: Sequence[SourceSettings] = (),
) -> GitOpsReview:
    """`sources`: where Flux sources live (`.aftershock.yaml` `sources:`)."""
    sides = tuple(
        _flux_side(side, side_input, namespace, sources)
        for side, side_input in ((Side.BASE, base), (Side.HEAD, head))
    )
    changed = {p for f in files for p in (f.path, f.old_path) if p}
    plans = {s.side: {k: build_closure(f, s) for k, f in s.kustomizations.items()} for s in sides}
    reached = _reached(sides, plans, changed)
    built = {
        s.side: build_side(
            s, [plans[s.side][k] for k in reached if k in plans[s.side]], builder, work, namespace
        )
        for s in sides
    }
    flux_reviews, gaps = [], []
    for key, hits in reached.items():
        flux = sides[1].kustomizations.get(key) or sides[0].kustomizations[key]
        review, missing = review_one(
            flux, hits, built[Side.BASE].get(key), built[Side.HEAD].get(key)
        )
        flux_reviews.append(review)
        gaps += missing
    flux_files = {p for side in plans.values() for plan in side.values() for p in plan.files}
    flux_folders = {p for side in plans.values() for plan in side.values() for p in plan.folders}
    kustomize_sets = sides[0].kustomize, sides[1].kustomize
    kustomized = review_kustomizations(
        files, base, head, namespace, builder, work, kustomize_sets, skip=flux_folders
    )
    plain = review_plain(files, base, head, namespace, excluded=kustomized.built | flux_files)
    linked = _flux_units(
        kustomize_units(plain_units(units, plain), kustomized), reached, sides, flux_reviews
    )
    found = (*flux_reviews, *kustomized.reviews, *plain.reviews)
    through = reach_through_sources(sides, plans, reached, found, builder, work, namespace)
    return GitOpsReview(
        tuple(flux_reviews) + kustomized.reviews,
        plain.reviews,
        tuple(gaps) + kustomized.not_reviewed + plain.not_reviewed + through.not_reviewed,
        linked,
        frozenset(kustomized.built | flux_files),
        through.carriers,
        (file_clusters(sides[0].kustomizations), file_clusters(sides[1].kustomizations)),
    )


def _flux_side(
    side: Side, side_input: SideInput, namespace: str, sources: Sequence[SourceSettings]
) -> FluxSide:
    tree, charts = side_input
    # plain review reports unreadable files
    found, _unreadable = find_flux_kustomizations(tree, charts, namespace, sources)
    lookup: dict[ObjectKey, tuple[RenderedObject, ...]] = {}
    for obj in plain_manifests(tree, charts, namespace).all_objects():
        lookup[obj.key] = lookup.get(obj.key, ()) + (obj,)
    return FluxSide(side, tree, found, find_kustomizations(tree), lookup)


def _reached(
    sides: Sequence[FluxSide], plans: Mapping[Side, Mapping[FluxId, FluxPlan]], changed: set[str]
) -> dict[FluxId, list[str]]:
    """Kustomization -> the changed files that reach it (its build's files, its own file, its variables' files)."""
    keys = sorted(set(sides[0].kustomizations) | set(sides[1].kustomizations))
    reached: dict[FluxId, list[str]] = {}
    for key in keys:
        read: set[str] = set()
        for side in sides:
            flux = side.kustomizations.get(key)
            if flux is None:
                continue
            read |= set(plans[side.side][key].files) | {flux.file}
            read |= _variable_files(flux, side)
        hits = sorted(changed & read)
        if hits or _spec_changed(key, sides):
            reached[key] = hits
    return reached


def _variable_files(flux: FluxKustomization, side: FluxSide) -> set[str]:
    keys = [ObjectKey("", r.kind, flux.key.namespace, r.name) for r in flux.substitute_from]
    picked = [pick(side.lookup.get(k, ()), flux) for k in keys]
    return {o.template for o in picked if o is not None}


def _spec_changed(key: FluxId, sides: Sequence[FluxSide]) -> bool:
    before, after = (s.kustomizations.get(key) for s in sides)
    if before is None or after is None:
        return True
    return dict(before.body) != dict(after.body)


def _flux_units(
    units: Units,
    reached: Mapping[FluxId, list[str]],
    sides: Sequence[FluxSide],
    reviews: Sequence[ChartReview],
) -> Units:
    """A changed file a Flux Kustomization's build reads is a unit of that Kustomization's path, and a
    template of the objects it declares or patches there (`reviews` in the order of `reached`)."""
    paths: dict[str, set[str]] = {}
    built: dict[str, list[ChartReview]] = {}
    for (key, hits), review in zip(reached.items(), reviews):
        flux = sides[1].kustomizations.get(key) or sides[0].kustomizations[key]
        built.setdefault(flux.path, []).append(review)
        for path in hits:
            paths.setdefault(path, set()).add(flux.path)
    return tuple(
        (
            path,
            file_units
            + tuple(
                Unit(f"flux:{folder}:{path}", _unit_kind(path, built[folder]), path, chart=folder)
                for folder in sorted(paths.get(path, ()))
            ),
        )
        for path, file_units in units
    )


def _unit_kind(path: str, reviews: Sequence[ChartReview]) -> UnitKind:
    kinds = {source_unit_kind(path, review) for review in reviews}
    return UnitKind.TEMPLATE if UnitKind.TEMPLATE in kinds else UnitKind.CHART_FILE
