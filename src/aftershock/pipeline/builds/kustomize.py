"""Wiring of kustomizations into the review: each root kustomization a change reaches is built with
kustomize at base and head from the ref's materialised tree (never a checkout) and diffed like a render.

A root is a kustomization folder no other one includes (an overlay, not its bases); it is reached when
a changed file is one its build reads. Its review is a `ChartReview` whose `chart` is the folder and
whose name is `kustomization`; each object names the file that declares it and the patches that changed
it (pipeline/builds/build_origin.py). A build that fails, or that must not run (remote resources, Helm, KRM
functions, paths leaving the repository), is *not reviewed* with the reason.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from aftershock.ingest.gitops.kustomizations import KustomizationSet, find_kustomizations
from aftershock.ingest.object_documents import objects_from_documents, parse_documents
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.yaml_files import in_folders, over_bound
from aftershock.model.change import FileChange, Side
from aftershock.model.errors import AftershockError
from aftershock.model.review import (
    ChartRender,
    ChartReview,
    NotReviewed,
    RenderStatus,
)
from aftershock.model.units import AffectedChart, AffectStep, Unit
from aftershock.pipeline.builds.build_origin import (
    Attribution,
    kustomization_file,
    request_origins,
    source_unit_kind,
)
from aftershock.pipeline.builds.built_review import Built, built_review, with_warnings
from aftershock.pipeline.rendering.chart_jobs import SideInput
from aftershock.render.kustomize import KustomizeBuilder

KUSTOMIZATION_NAME = "kustomization"


@dataclass(frozen=True)
class KustomizeReview:
    reviews: tuple[ChartReview, ...]
    not_reviewed: tuple[NotReviewed, ...]
    built: frozenset[str]  # files some kustomization reads, at either ref: not plain manifests
    reached: tuple[
        tuple[str, str], ...
    ]  # (changed file, root) for each root a changed file reaches


@dataclass(frozen=True)
class _Root:
    folder: str
    changed: tuple[str, ...]


def review_kustomizations(
    files: Sequence[FileChange],
    base: SideInput,
    head: SideInput,
    namespace: str,
    builder: KustomizeBuilder,
    work: Path,
    sets: tuple[KustomizationSet, KustomizationSet] | None = None,
    skip: Collection[str] = (),
) -> KustomizeReview:
    """Build the root kustomizations a change reaches at both refs and diff what they build; roots in
    `skip` (those a Flux Kustomization builds with its own fields) are left to their Kustomization."""
    sets = sets or (find_kustomizations(base[0]), find_kustomizations(head[0]))
    changed = {p for f in files for p in (f.path, f.old_path) if p}
    charts = {c.path for c in (*base[1], *head[1])}
    # A kustomization inside a chart (e.g. one installing the chart's crds/) is the chart's: Helm renders it.
    roots = [
        r
        for r in _reached(sets, changed)
        if r.folder not in skip and not in_folders(f"{r.folder}/x", charts)
    ]
    built = {
        Side.BASE: _build_side(Side.BASE, base[0], sets[0], roots, builder, work, namespace),
        Side.HEAD: _build_side(Side.HEAD, head[0], sets[1], roots, builder, work, namespace),
    }
    reviews, gaps = [], []
    for root in roots:
        review, missing = _review_root(
            root, built[Side.BASE].get(root.folder), built[Side.HEAD].get(root.folder)
        )
        reviews.append(review)
        gaps += missing
    owned = _owned_files(base[0], sets[0]) | _owned_files(head[0], sets[1])
    reached = tuple((p, r.folder) for r in roots for p in r.changed)
    return KustomizeReview(tuple(reviews), tuple(gaps), frozenset(owned), reached)


def _reached(sets: tuple[KustomizationSet, KustomizationSet], changed: set[str]) -> list[_Root]:
    roots = []
    for folder in sorted(set(sets[0].roots()) | set(sets[1].roots())):
        read = set().union(*(s.closure(folder)[0] for s in sets if folder in s.by_folder))
        hit = tuple(sorted(changed & read))
        if hit:
            roots.append(_Root(folder, hit))
    return roots


def _owned_files(tree: RefSnapshot, found: KustomizationSet) -> set[str]:
    """What a kustomization reads, and every YAML file beside a kustomization file."""
    folders = set(found.by_folder)
    beside = {
        p
        for p in tree.file_paths()
        if p.endswith((".yaml", ".yml")) and posixpath.dirname(p) in folders
    }
    return set(found.built_files()) | beside


def _build_side(
    side: Side,
    tree: RefSnapshot,
    found: KustomizationSet,
    roots: Sequence[_Root],
    builder: KustomizeBuilder,
    work: Path,
    namespace: str,
) -> dict[str, Built]:
    """Each reached root at one ref: absent, refused or failed (a ChartRender), or built with its objects."""
    results: dict[str, Built] = {}
    buildable = []
    for root in roots:
        if root.folder not in found.by_folder:
            results[root.folder] = ChartRender(side, RenderStatus.ABSENT)
            continue
        files, folders, problem = found.closure(root.folder)
        problem = problem or over_bound(tree, files)
        if problem:
            results[root.folder] = ChartRender(side, RenderStatus.FAILED, error=problem)
        else:
            buildable.append((root.folder, files, folders))
    dest = work / f"kustomize-{side.value}"
    tree.materialize(
        sorted({p for _, files, folders in buildable for p in (*files, *folders)}), dest
    )
    built = [dest / folder if folder else dest for folder, _, _ in buildable]
    stripped = [_request_origins(folder) for folder in built]
    outcomes = builder.build_many([str(folder) for folder in built])
    for (folder, _, folders), strip, outcome in zip(buildable, stripped, outcomes):
        error = (
            outcome.error.replace(f"{dest}/", "").replace(str(dest), ".") if outcome.error else None
        )  # repository paths
        parsed = _parsed(side, found.by_folder[folder].file, folder, outcome.yaml, error, namespace)
        attributed = _attributed(parsed, Attribution(tree, found, folders, folder), strip)
        results[folder] = with_warnings(attributed, outcome.warnings)
    return results


def _request_origins(folder: Path) -> bool:
    file = kustomization_file(folder)
    return file is not None and request_origins(file)


def _attributed(built: Built, origins: Attribution, strip: bool) -> Built:
    if isinstance(built, ChartRender):
        return built
    render, objects = built
    return render, origins.objects(objects, strip)


def _parsed(
    side: Side, file: str, folder: str, text: str | None, error: str | None, namespace: str
) -> Built:
    if error is not None or text is None:
        return ChartRender(
            side, RenderStatus.FAILED, error=f"kustomize build {folder or '.'}: {error}"
        )
    try:
        objects = objects_from_documents(
            parse_documents({file: text}), chart=folder, namespace=namespace
        )
    except AftershockError as problem:
        return ChartRender(side, RenderStatus.FAILED, error=problem.line())
    return ChartRender(side, RenderStatus.OK, len(objects)), objects


def _review_root(
    root: _Root, base: Built | None, head: Built | None
) -> tuple[ChartReview, list[NotReviewed]]:
    affected = AffectedChart(
        root.folder, (AffectStep("file", root.changed[0], "built by the kustomization"),)
    )
    part = f"kustomization {root.folder or '.'}"
    return built_review(root.folder, KUSTOMIZATION_NAME, affected, part, (base, head))


def kustomize_units(
    units: tuple[tuple[str, tuple[Unit, ...]], ...],
    review: KustomizeReview,
) -> tuple[tuple[str, tuple[Unit, ...]], ...]:
    """A changed file a kustomization reads is a unit of each root it reaches: file -> kustomization ->
    object, and a template of the objects it declares or patches: file -> template -> object."""
    roots: dict[str, list[str]] = {}
    for path, root in review.reached:
        roots.setdefault(path, []).append(root)
    by_root = {r.chart: r for r in review.reviews}
    return tuple(
        (
            path,
            file_units
            + tuple(
                Unit(
                    f"kustomize:{root}:{path}",
                    source_unit_kind(path, by_root.get(root)),
                    path,
                    chart=root,
                )
                for root in roots.get(path, ())
            ),
        )
        for path, file_units in units
    )
