"""Wiring of Flux Kustomizations into the review: each one a change reaches is built as the
kustomize-controller would, at base and head, and diffed.

A build is kustomize over the Kustomization's path (Flux's own generated kustomization, listing the
manifests and nested kustomizations, when the path has none), under a generated overlay holding
`targetNamespace` as `namespace` and the spec's `patches`, `images`, `components`, `namePrefix` and
`nameSuffix`; then `postBuild` substitution (releases/envsubst.py) with the variables of
`substituteFrom` (the repository's ConfigMaps and Secrets) overridden by `substitute`. Its review is a
`ChartReview` of the path whose `release` is the Kustomization and whose `cluster` is the
`clusters/<name>` tree declaring it, so the graph shows cluster -> Kustomization -> object, and the
HelmReleases it builds are followed from it.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from aftershock import yamlio
from aftershock.diff.objects import diff_objects
from aftershock.errors import AftershockError
from aftershock.ingest.flux import FluxKustomization, cluster_of
from aftershock.ingest.kustomizations import KustomizationSet
from aftershock.ingest.plain_objects import looks_like_manifest
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import release_id
from aftershock.model.review import (
    ChartOutcome,
    ChartRender,
    ChartReview,
    NotReviewed,
    RenderStatus,
    Side,
)
from aftershock.model.units import AffectedChart, AffectStep
from aftershock.releases import envsubst
from aftershock.render.kustomize import KustomizeBuilder
from aftershock.render.manifests import objects_from_documents, parse_documents

Lookup = Mapping[
    ObjectKey, tuple[RenderedObject, ...]
]  # the repository's ConfigMaps and Secrets by key
FluxId = tuple[str, ObjectKey]  # (file, key): see FluxKustomization.id


@dataclass(frozen=True)
class FluxSide:
    """One ref: its tree, its Flux Kustomizations, its kustomizations and its ConfigMaps and Secrets."""

    side: Side
    tree: RefSnapshot
    kustomizations: Mapping[FluxId, FluxKustomization]
    kustomize: KustomizationSet
    lookup: Lookup


@dataclass(frozen=True)
class _Plan:
    flux: FluxKustomization
    files: frozenset[str]
    folders: frozenset[str]
    generated: (
        tuple[str, ...] | None
    )  # resources of Flux's generated kustomization, when the path has none
    problem: str | None = None


def build_closure(flux: FluxKustomization, side: FluxSide) -> _Plan:
    """What building `flux` reads at one ref, and what blocks it."""
    tree, found = side.tree, side.kustomize
    if flux.problem:
        return _Plan(flux, frozenset(), frozenset(), None, flux.problem)
    if not tree.tree.is_dir(flux.path):
        return _Plan(
            flux,
            frozenset(),
            frozenset(),
            None,
            f"spec.path {flux.path or '.'} does not exist at this ref",
        )
    if flux.path in found.by_folder:
        closed, dirs, issue = found.closure(flux.path)
        return _Plan(flux, closed, dirs, None, issue)
    nested = sorted(f for f in found.by_folder if _under(f, flux.path))
    tops = [f for f in nested if not any(_under(f, other) for other in nested if other != f)]
    manifests = [
        p
        for p in tree.tree.paths_under(flux.path)
        if p.endswith((".yaml", ".yml"))
        and not any(_under(p, t) for t in tops)
        and _is_manifest(tree, p)
    ]
    files, folders, problem = set(manifests), {flux.path}, None
    for top in tops:
        more, dirs, issue = found.closure(top)
        files |= more
        folders |= dirs
        problem = problem or issue
    resources = tuple(posixpath.relpath(p, flux.path or ".") for p in sorted(manifests + tops))
    return _Plan(flux, frozenset(files), frozenset(folders), resources, problem)


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
    plans: Sequence[_Plan],
    builder: KustomizeBuilder,
    work: Path,
    namespace: str,
) -> dict[FluxId, ChartRender | tuple[ChartRender, tuple[RenderedObject, ...]]]:
    """Build every planned Kustomization at one ref in one materialised tree."""
    results: dict[FluxId, Any] = {}
    ready = []
    for plan in plans:
        problem = plan.problem or _variables_problem(plan.flux, side.lookup)
        if problem:
            results[plan.flux.id] = ChartRender(side.side, RenderStatus.FAILED, error=problem)
        else:
            ready.append(plan)
    dest = work / f"flux-{side.side.value}"
    side.tree.materialize(sorted({p for plan in ready for p in (*plan.files, *plan.folders)}), dest)
    overlays = [_write_overlay(dest, index, plan) for index, plan in enumerate(ready)]
    for plan, outcome in zip(ready, builder.build_many([str(o) for o in overlays])):
        error = outcome.error.replace(f"{dest}/", "") if outcome.error else None
        results[plan.flux.id] = _objects(side, plan.flux, outcome.yaml, error, namespace)
    return results


def _write_overlay(dest: Path, index: int, plan: _Plan) -> Path:
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
    overlay = dest / ".aftershock-flux" / str(index)
    overlay.mkdir(parents=True)
    to_path = posixpath.relpath(str(folder), str(overlay))
    body: dict[str, Any] = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [to_path],
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
        obj = pick(
            lookup.get(ObjectKey("", ref.kind, flux.key.namespace, ref.name), ()), flux.cluster
        )
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


def pick(objects: Sequence[RenderedObject], cluster: str | None) -> RenderedObject | None:
    """The object of the Kustomization's own cluster tree when several clusters declare one of that name."""
    own = [o for o in objects if cluster_of(o.template) == cluster]
    return (own or list(objects) or [None])[0]  # type: ignore[list-item]


def _variables_problem(flux: FluxKustomization, lookup: Lookup) -> str | None:
    try:
        variables(flux, lookup)
    except AftershockError as error:
        return error.line()
    return None


def _data(obj: RenderedObject) -> dict[str, str]:
    """A ConfigMap's data, or a Secret's data (decoded) and stringData, newlines dropped as Flux does."""
    values: dict[str, str] = {}
    data: Mapping[str, Any] = obj.body["data"] if isinstance(obj.body.get("data"), dict) else {}
    for key, value in data.items():
        text = "" if value is None else str(value)
        if obj.key.kind == "Secret":
            try:
                text = base64.b64decode(text, validate=False).decode("utf-8", "replace")
            except (binascii.Error, ValueError):
                pass
        values[str(key)] = text.replace("\n", "")
    string_data: Mapping[str, Any] = (
        obj.body["stringData"]
        if obj.key.kind == "Secret" and isinstance(obj.body.get("stringData"), dict)
        else {}
    )
    values.update({str(k): str(v).replace("\n", "") for k, v in string_data.items()})
    return values


def _objects(
    side: FluxSide, flux: FluxKustomization, text: str | None, error: str | None, namespace: str
) -> Any:
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
    base: Any,
    head: Any,
) -> tuple[ChartReview, list[NotReviewed]]:
    """The review of one Kustomization from its two sides' builds (None: absent at that ref)."""
    steps = (AffectStep("file", changed[0], "changed"),) if changed else ()
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
    sides = [_split(base, Side.BASE), _split(head, Side.HEAD)]
    (base_render, base_objects), (head_render, head_objects) = sides
    release, cluster = release_id(flux.key, flux.cluster), flux.cluster or "in-cluster"
    part = f"Flux Kustomization {flux.key}" + (
        f" in cluster {flux.cluster}" if flux.cluster else ""
    )
    failed = [r for r in (base_render, head_render) if r.status is RenderStatus.FAILED]
    if failed:
        gaps = [NotReviewed(part, r.error or "build failed", r.side) for r in failed]
        return ChartReview(
            flux.path,
            name,
            affected,
            base_render,
            head_render,
            ChartOutcome.NOT_REVIEWED,
            release=release,
            cluster=cluster,
        ), gaps
    changes = diff_objects(base_objects, head_objects)
    outcome = ChartOutcome.CHANGED if changes else ChartOutcome.UNCHANGED
    return ChartReview(
        flux.path,
        name,
        affected,
        base_render,
        head_render,
        outcome,
        changes,
        base_objects=base_objects,
        head_objects=head_objects,
        release=release,
        cluster=cluster,
    ), []


def _split(built: Any, side: Side) -> tuple[ChartRender, tuple[RenderedObject, ...]]:
    if built is None:
        return ChartRender(side, RenderStatus.ABSENT), ()
    if isinstance(built, ChartRender):
        return built, ()
    render, objects = built
    return render, tuple(objects)
