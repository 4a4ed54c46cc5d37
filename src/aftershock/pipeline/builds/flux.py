"""Wiring of Flux Kustomizations into the review: each one a change reaches is built as the
kustomize-controller would, at base and head, and diffed.

A build is kustomize over the Kustomization's path (Flux's own generated kustomization, listing the
manifests and nested kustomizations, when the path has none), over the ref's tree materialised with
what its kustomizations and the spec's `components` name, under a generated overlay (beside that
tree) holding `targetNamespace` as `namespace` and the spec's `patches`, `images`, `components`, `namePrefix` and
`nameSuffix`; then `postBuild` substitution (releases/envsubst.py) with the variables of
`substituteFrom` (the repository's ConfigMaps and Secrets) overridden by `substitute`. Its review is a
`ChartReview` of the path (each object naming the file that declares it and the patches that changed
it: pipeline/builds/build_origin.py) whose `release` is the Kustomization and whose `cluster` is the
`clusters/<name>` tree declaring it, so the graph shows cluster -> Kustomization -> object, and the
HelmReleases it builds are followed from it.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from aftershock.gocompat import yamlio
from aftershock.ingest.gitops.flux import cluster_of
from aftershock.ingest.gitops.flux_kustomization import FluxKustomization
from aftershock.ingest.gitops.kustomizations import KustomizationSet
from aftershock.ingest.gitops.kustomize_inputs import patch_targets
from aftershock.ingest.gitops.plain_objects import looks_like_manifest
from aftershock.ingest.object_documents import objects_from_documents, parse_documents
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.yaml_files import over_bound
from aftershock.model.change import Side
from aftershock.model.contexts import RenderInputs
from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import release_id
from aftershock.model.review import (
    ChartRender,
    ChartReview,
    NotReviewed,
    RenderStatus,
)
from aftershock.model.units import AffectedChart, AffectStep
from aftershock.pipeline.builds.build_origin import Attribution
from aftershock.pipeline.builds.built_review import Built, built_review, with_warnings
from aftershock.releases import envsubst
from aftershock.render.kustomize import KustomizeBuilder

Lookup = Mapping[
    ObjectKey, tuple[RenderedObject, ...]
]  # the repository's ConfigMaps and Secrets by key
FluxId = tuple[str, ObjectKey]  # (file, key): see FluxKustomization.id
# One side's build of a Kustomization: its failure, or its render and objects.


@dataclass(frozen=True)
class FluxSide:
    """One ref: its tree, its Flux Kustomizations, its kustomizations and its ConfigMaps and Secrets."""

    side: Side
    tree: RefSnapshot
    kustomizations: Mapping[FluxId, FluxKustomization]
    kustomize: KustomizationSet
    lookup: Lookup


@dataclass(frozen=True)
class FluxPlan:
    flux: FluxKustomization
    files: frozenset[str]
    folders: frozenset[str]
    generated: (
        tuple[str, ...] | None
    )  # resources of Flux's generated kustomization, when the path has none
    problem: str | None = None


def build_closure(flux: FluxKustomization, side: FluxSide) -> FluxPlan:
    """What building `flux` reads at one ref, and what blocks it."""
    tree, found = side.tree, side.kustomize
    if flux.problem:
        return FluxPlan(flux, frozenset(), frozenset(), None, flux.problem)
    if not tree.tree.is_dir(flux.path):
        return FluxPlan(
            flux,
            frozenset(),
            frozenset(),
            None,
            f"spec.path {flux.path or '.'} does not exist at this ref",
        )
    generated = None
    if flux.path in found.by_folder:
        files, folders, problem = found.closure(flux.path)
    else:
        files, folders, problem, generated = _generated_closure(flux, side)
    for component in _components(flux):
        if component == ".." or component.startswith("../"):
            problem = problem or f"spec.components {component!r} leaves the repository"
            continue
        more, dirs, issue = found.closure(component)
        files, folders, problem = files | more, folders | dirs, problem or issue
    return FluxPlan(flux, frozenset(files), frozenset(folders), generated, problem)


def _components(flux: FluxKustomization) -> list[str]:
    """The folders of the spec's `components`, relative to its path as Flux reads them."""
    named = flux.build_fields.get("components") or ()
    return [posixpath.normpath(posixpath.join(flux.path, c)) for c in named if isinstance(c, str)]


def _generated_closure(
    flux: FluxKustomization, side: FluxSide
) -> tuple[frozenset[str], frozenset[str], str | None, tuple[str, ...]]:
    """Flux's generated kustomization for a path without one: its manifests and top nested kustomizations."""
    tree, found = side.tree, side.kustomize
    nested = sorted(f for f in found.by_folder if _under(f, flux.path))
    tops = [f for f in nested if not any(_under(f, other) for other in nested if other != f)]
    manifests = [
        p
        for p in tree.tree.paths_under(flux.path)
        if p.endswith((".yaml", ".yml"))
        and not any(_under(p, t) for t in tops)
        and _is_manifest(tree, p)
    ]
    read: set[str] = set(manifests)
    included: set[str] = {flux.path}
    issue: str | None = None
    for top in tops:
        more, dirs, nested_issue = found.closure(top)
        read |= more
        included |= dirs
        issue = issue or nested_issue
    resources = tuple(posixpath.relpath(p, flux.path or ".") for p in sorted(manifests + tops))
    return frozenset(read), frozenset(included), issue, resources


def _under(path: str, folder: str) -> bool:
    return folder == "" or path.startswith(folder + "/")


def _is_manifest(tree: RefSnapshot, path: str) -> bool:
    try:
        text = tree.text_or_none(path)
    except AftershockError:
        return True  # kustomize reports it
    return bool(text) and looks_like_manifest(text or "")


def build_side(
    side: FluxSide,
    plans: Sequence[FluxPlan],
    builder: KustomizeBuilder,
    work: Path,
    namespace: str,
) -> dict[FluxId, Built]:
    """Build every planned Kustomization at one ref in one materialised tree."""
    results: dict[FluxId, Built] = {}
    ready = []
    for plan in plans:
        problem = (
            plan.problem
            or _variables_problem(plan.flux, side.lookup)
            or over_bound(side.tree, plan.files)
        )
        if problem:
            results[plan.flux.id] = ChartRender(side.side, RenderStatus.FAILED, error=problem)
        else:
            ready.append(plan)
    dest = work / f"flux-{side.side.value}"
    # Beside the tree, not in it: kustomize refuses a resource folder that contains the overlay (a cycle).
    overlay_root = work / f"flux-{side.side.value}-overlays"
    side.tree.materialize(sorted({p for plan in ready for p in (*plan.files, *plan.folders)}), dest)
    overlays = [_write_overlay(dest, overlay_root / str(i), plan) for i, plan in enumerate(ready)]
    for plan, overlay, outcome in zip(
        ready, overlays, builder.build_many([str(o) for o in overlays])
    ):
        error = _repository_paths(outcome.error, dest) if outcome.error else None
        built = _objects(side, plan.flux, outcome.yaml, error, namespace)
        if not isinstance(built, ChartRender):
            top = posixpath.relpath(str(overlay), str(dest))
            origins = _origins(side, plan, top, dest.name)
            built = (built[0], origins.objects(built[1], strip=True))
        results[plan.flux.id] = with_warnings(built, outcome.warnings)
    return results


def _repository_paths(error: str, dest: Path) -> str:
    """kustomize's error with the tree's paths, as the overlay and the workspace name them, made relative."""
    for tree in (str(dest), f"../../{dest.name}"):
        error = error.replace(f"{tree}/", "").replace(tree, ".")
    return error


def _origins(side: FluxSide, plan: FluxPlan, top: str, tree_folder: str) -> Attribution:
    """The files of one build, the Kustomization's own patches and name affixes included; the
    overlay lies beside the materialised tree (`tree_folder`), so `top` starts with `..`."""
    spec = {"patches": plan.flux.build_fields.get("patches")}
    own = tuple(patch_targets(side.tree, top, plan.flux.file, spec))
    renames = bool({"namePrefix", "nameSuffix"} & set(plan.flux.build_fields))
    return Attribution(
        side.tree, side.kustomize, plan.folders, top, own, renames, tree_folder=tree_folder
    )


def _write_overlay(dest: Path, overlay: Path, plan: FluxPlan) -> Path:
    """Flux's generated kustomization (when the path has none) and the overlay carrying the spec's fields."""
    folder = dest / plan.flux.path if plan.flux.path else dest
    if plan.generated is not None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "kustomization.yaml").write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "kustomize.config.k8s.io/v1beta1",
                    "kind": "Kustomization",
                    "resources": list(plan.generated),
                }
            )
        )
    overlay.mkdir(parents=True)
    to_path = posixpath.relpath(str(folder), str(overlay))
    body: dict[str, Any] = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [to_path],
        "buildMetadata": ["originAnnotations"],  # read and stripped again: see build_origin
    }
    if plan.flux.target_namespace:
        body["namespace"] = plan.flux.target_namespace
    for key, value in plan.flux.build_fields.items():
        body[key] = (
            [posixpath.join(to_path, c) for c in value if isinstance(c, str)]
            if key == "components"
            else value
        )
    (overlay / "kustomization.yaml").write_text(yaml.safe_dump(body, sort_keys=False))
    return overlay


def variables(flux: FluxKustomization, lookup: Lookup) -> dict[str, str]:
    """`substituteFrom` in order (later ones win), then `substitute`; MalformedInputError when a
    required source is missing or a name is invalid."""
    found: dict[str, str] = {}
    for ref in flux.substitute_from:
        obj = pick(lookup.get(ObjectKey("", ref.kind, flux.key.namespace, ref.name), ()), flux)
        if obj is None:
            if ref.optional:
                continue
            raise AftershockError(
                f"substituteFrom {ref.kind}/{ref.name} is not in the repository",
                where=str(flux.key),
                hint="add it, or mark it optional: true",
            )
        found.update(_data(obj))
    found.update(flux.substitute)
    envsubst.check_names(found, str(flux.key))
    return found


def pick(objects: Sequence[RenderedObject], flux: FluxKustomization) -> RenderedObject | None:
    """The object of the Kustomization's own cluster when several clusters declare one of that name:
    under the folder its bootstrap root builds, else in its `clusters/<name>/` tree."""
    tree = None if flux.tree is None else flux.tree.rstrip("/") + "/"
    in_tree = [o for o in objects if tree is not None and o.template.startswith(tree)]
    own = in_tree or [o for o in objects if cluster_of(o.template) == flux.cluster]
    candidates = own or list(objects)
    return candidates[0] if candidates else None


def _variables_problem(flux: FluxKustomization, lookup: Lookup) -> str | None:
    try:
        variables(flux, lookup)
    except AftershockError as error:
        return error.line()
    return None


def _data(obj: RenderedObject) -> dict[str, str]:
    """A ConfigMap's data, or a Secret's data (decoded) and stringData, newlines dropped as Flux does."""
    values: dict[str, str] = {}
    raw_data = obj.body.get("data")
    data: Mapping[str, Any] = raw_data if isinstance(raw_data, dict) else {}
    for key, value in data.items():
        text = "" if value is None else str(value)
        if obj.key.kind == "Secret":
            try:
                text = base64.b64decode(text, validate=False).decode("utf-8", "replace")
            except (binascii.Error, ValueError):
                pass
        values[str(key)] = text.replace("\n", "")
    raw_string_data = obj.body.get("stringData")
    string_data: Mapping[str, Any] = (
        raw_string_data if obj.key.kind == "Secret" and isinstance(raw_string_data, dict) else {}
    )
    values.update({str(k): str(v).replace("\n", "") for k, v in string_data.items()})
    return values


def _objects(
    side: FluxSide, flux: FluxKustomization, text: str | None, error: str | None, namespace: str
) -> Built:
    if error is not None or text is None:
        return ChartRender(
            side.side, RenderStatus.FAILED, error=f"kustomize build {flux.path or '.'}: {error}"
        )
    try:
        documents = parse_documents({flux.file: text})
        found = variables(flux, side.lookup)
        if found:  # Flux substitutes only when there are variables
            documents = tuple((t, i, _substituted(b, found, flux)) for t, i, b in documents)
        objects = objects_from_documents(
            documents, chart=flux.path, namespace=flux.target_namespace or namespace
        )
    except AftershockError as problem:
        return ChartRender(side.side, RenderStatus.FAILED, error=problem.line())
    return ChartRender(side.side, RenderStatus.OK, len(objects)), objects


def _substituted(body: Any, found: Mapping[str, str], flux: FluxKustomization) -> Any:
    if not isinstance(body, dict) or envsubst.disabled(body):
        return body
    text = yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=2**20)
    return yamlio.load_one(
        envsubst.substitute(text, found), source=f"{flux.key} after postBuild substitution"
    )


def review_one(
    flux: FluxKustomization,
    changed: Sequence[str],
    base: Built | None,
    head: Built | None,
    via: tuple[AffectStep, ...] = (),
) -> tuple[ChartReview, list[NotReviewed]]:
    """The review of one Kustomization from its two sides' builds (None: absent at that ref);
    `via`: how the change reaches it when no file it reads changed (a chart source its releases read)."""
    steps = (AffectStep("file", changed[0], "changed"),) if changed else via
    affected = AffectedChart(
        flux.path,
        steps
        + (
            AffectStep(
                "release", release_id(flux.key, flux.cluster), "built by the Flux Kustomization"
            ),
        ),
    )
    name = posixpath.basename(flux.path) or "."
    part = f"Flux Kustomization {flux.key}" + (
        f" in cluster {flux.cluster}" if flux.cluster else ""
    )
    release, cluster = release_id(flux.key, flux.cluster), flux.cluster or "in-cluster"
    review, gaps = built_review(flux.path, name, affected, part, (base, head), release, cluster)
    if any(ref.kind == "Secret" for ref in flux.substitute_from):
        # what a Secret holds may be substituted anywhere in the build: its objects are not shown
        # in clear (the Secret taint, the plain diff), as a chart's rendered from a Secret's values
        secret = RenderInputs(private=True)
        review = replace(review, base_inputs=secret, head_inputs=secret)
    return review, gaps
