"""Flux Kustomizations (`kustomize.toolkit.fluxcd.io`) declared in the repository at one ref.

Each is read from the YAML files outside the charts (found by their group and kind, then parsed as
manifests): the path it builds, in this repository (its source resolved by ingest/gitops/flux_sources.py, or
the reason it cannot be), `targetNamespace`, `postBuild` and the kustomize fields Flux adds to the build (`patches`,
`images`, `components`, `namePrefix`, `nameSuffix`). The cluster of a Kustomization is read from
the chain of Kustomizations that applies it (ingest/gitops/flux_clusters.py).
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from aftershock.config.settings import SourceSettings
from aftershock.ingest.gitops.flux_clusters import with_clusters
from aftershock.ingest.gitops.flux_kustomization import FluxKustomization
from aftershock.ingest.gitops.flux_sources import (
    GIT_REPOSITORY,
    DeclaredSource,
    FluxSources,
    SourceRef,
    flux_sources,
    source_ref,
)
from aftershock.ingest.gitops.kustomize_namespace import kustomize_namespace
from aftershock.ingest.gitops.plain_objects import manifest_objects
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.yaml_files import yaml_texts
from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import ValuesReference, cluster_tree
from aftershock.model.units import Chart

FLUX_KUSTOMIZE_GROUP = "kustomize.toolkit.fluxcd.io"
SOURCE_GROUP = "source.toolkit.fluxcd.io"
_MARKERS = (FLUX_KUSTOMIZE_GROUP, SOURCE_GROUP)
# The fields of a Flux Kustomization's spec that Flux applies as kustomize would.
BUILD_FIELDS = ("patches", "images", "components", "namePrefix", "nameSuffix")
_LIST_FIELDS = ("patches", "images", "components")  # the others are strings


cluster_of = cluster_tree  # `prod` for anything under `clusters/prod/`


def find_flux_kustomizations(
    tree: RefSnapshot,
    charts: Collection[Chart],
    namespace: str,
    mappings: Sequence[SourceSettings] = (),
) -> tuple[dict[tuple[str, ObjectKey], FluxKustomization], dict[str, str]]:
    """Every Flux Kustomization by id (file, key), and files that declare one but cannot be read (path -> reason).

    `mappings` (`.aftershock.yaml` `sources:`) say where sources other than this repository's root live."""
    folders = frozenset(c.path for c in charts)
    objects: list[tuple[str, RenderedObject]] = []
    unreadable: dict[str, str] = {}
    for path, text in yaml_texts(tree, folders)[0].items():
        if not any(m in text for m in _MARKERS):
            continue
        try:
            given = kustomize_namespace(path, tree.text_or_none) or namespace
            objects += [(path, obj) for obj in _objects(path, text, given)]
        except AftershockError as error:
            if FLUX_KUSTOMIZE_GROUP in text and "Kustomization" in text:
                unreadable[path] = error.line()
    kustomizations = [
        (path, o)
        for path, o in objects
        if o.key.group == FLUX_KUSTOMIZE_GROUP and o.key.kind == "Kustomization"
    ]
    sources = _sources(mappings, objects, kustomizations)
    found: dict[tuple[str, ObjectKey], FluxKustomization] = {}
    for path, obj in kustomizations:
        flux = flux_kustomization(obj, cluster_of(path), sources)
        found.setdefault(flux.id, flux)
    return with_clusters(found), unreadable


def _sources(
    mappings: Sequence[SourceSettings],
    objects: Sequence[tuple[str, RenderedObject]],
    kustomizations: Sequence[tuple[str, RenderedObject]],
) -> FluxSources:
    declared = [
        DeclaredSource(SourceRef(GIT_REPOSITORY, o.key.namespace, o.key.name), path, url)
        for path, o in objects
        if o.key.group == SOURCE_GROUP
        and o.key.kind == GIT_REPOSITORY
        and isinstance(url := _spec(o).get("url"), str)
    ]
    builders = [
        (source_ref(_spec(o), o.key.namespace), path, _spec_path(_spec(o))[0])
        for path, o in kustomizations
    ]
    return flux_sources(mappings, declared, builders)


def _spec(obj: RenderedObject) -> dict[str, Any]:
    spec = obj.body.get("spec")
    return spec if isinstance(spec, dict) else {}


def _spec_path(spec: Mapping[str, Any]) -> tuple[str, str]:
    """(spec.path normalised from the source's root, "" for it; the path as written)."""
    raw = spec.get("path")
    raw_path = raw if isinstance(raw, str) else "./"
    path = posixpath.normpath(raw_path.lstrip("/"))  # Flux reads the path from the source's root
    return ("" if path == "." else path), raw_path


@functools.lru_cache(maxsize=4096)  # by content: an unchanged file is parsed once for both refs
def _objects(path: str, text: str, namespace: str) -> tuple[RenderedObject, ...]:
    return manifest_objects(path, text, namespace)


def flux_kustomization(
    obj: RenderedObject, cluster: str | None, sources: FluxSources | None = None
) -> FluxKustomization:
    spec = _spec(obj)
    path, raw_path = _spec_path(spec)
    problem = None
    if path == ".." or path.startswith("../"):
        problem, path = f"spec.path {raw_path!r} leaves its source", ""
    ref = source_ref(spec, obj.key.namespace)
    resolved = (sources or FluxSources((), {})).resolve(ref, obj.template)
    if resolved.root is None:
        problem = problem or resolved.problem
    elif resolved.root:
        path = posixpath.join(resolved.root, path) if path else resolved.root
    post = _mapping(spec.get("postBuild"))
    substitute = _mapping(post.get("substitute"))
    refs, refs_problem = _substitute_from(post.get("substituteFrom"))
    if post.get("substitute") is not None and not isinstance(post.get("substitute"), dict):
        # Read as empty, its variables would fall back to their defaults: a build Flux never makes.
        refs_problem = refs_problem or "spec.postBuild.substitute is not a mapping"
    target = spec.get("targetNamespace")
    build_fields, build_problem = _build_fields(spec)
    return FluxKustomization(
        key=obj.key,
        file=obj.template,
        path=path,
        cluster=cluster,
        target_namespace=target if isinstance(target, str) and target else None,
        substitute={
            str(k): "" if v is None else str(v).replace("\n", "") for k, v in substitute.items()
        },
        substitute_from=refs,
        build_fields=build_fields,
        body=obj.body,
        problem=problem or refs_problem or build_problem,
        source=str(ref),
    )


def _build_fields(spec: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The kustomize fields the spec sets, or why Flux's API would refuse them (a field of the wrong type)."""
    fields = {k: spec[k] for k in BUILD_FIELDS if spec.get(k)}
    for key, value in fields.items():
        kind = (list, "a list") if key in _LIST_FIELDS else (str, "a string")
        if not isinstance(value, kind[0]):
            return {}, f"spec.{key} is not {kind[1]}"
    return fields, None


def _substitute_from(
    entries: Any,
) -> tuple[tuple[ValuesReference, ...], str | None]:
    """postBuild.substituteFrom's ConfigMaps and Secrets, or why it cannot be read (Flux's API
    takes a list only: anything else would drop variables the build needs)."""
    if entries is None:
        return (), None
    if not isinstance(entries, list):
        return (), "spec.postBuild.substituteFrom is not a list"
    refs = tuple(
        ValuesReference(
            kind=str(r.get("kind", "")),
            name=str(r.get("name", "")),
            optional=bool(r.get("optional", False)),
        )
        for r in entries
        if isinstance(r, dict)
    )
    return refs, None


def _mapping(value: Any) -> Mapping[str, Any]:
    """A mapping field of a manifest, or an empty one when it is absent or not a mapping."""
    return value if isinstance(value, dict) else {}
