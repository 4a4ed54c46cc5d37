"""Flux Kustomizations (`kustomize.toolkit.fluxcd.io`) declared in the repository at one ref.

Each is read from the YAML files outside the charts (found by their group and kind, then parsed as
manifests): the path it builds (in this repository: Flux's source is taken to be the repository under
review), `targetNamespace`, `postBuild` and the kustomize fields Flux adds to the build (`patches`,
`images`, `components`, `namePrefix`, `nameSuffix`). The cluster of a Kustomization is the
`clusters/<name>` tree that declares it.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from aftershock.errors import AftershockError
from aftershock.ingest.manifests import in_a_chart
from aftershock.ingest.plain_objects import manifest_objects
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.ingest.yaml_files import yaml_texts
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import ValuesReference, cluster_tree
from aftershock.model.units import Chart

FLUX_KUSTOMIZE_GROUP = "kustomize.toolkit.fluxcd.io"
# The fields of a Flux Kustomization's spec that Flux applies as kustomize would.
BUILD_FIELDS = ("patches", "images", "components", "namePrefix", "nameSuffix")


@dataclass(frozen=True)
class FluxKustomization:
    key: ObjectKey
    file: str  # the repository file declaring it
    path: str  # the repository folder it builds ("" for the root)
    cluster: str | None
    target_namespace: str | None = None
    substitute: Mapping[str, str] = field(default_factory=dict, hash=False)
    substitute_from: tuple[ValuesReference, ...] = ()
    build_fields: Mapping[str, Any] = field(default_factory=dict, hash=False)
    body: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)
    problem: str | None = None

    @property
    def id(self) -> tuple[str, ObjectKey]:
        """Two clusters (or trees) often declare a Kustomization of the same name: its file is part of its identity."""
        return self.file, self.key


cluster_of = cluster_tree  # `prod` for anything under `clusters/prod/`


def find_flux_kustomizations(
    tree: RefSnapshot,
    charts: Collection[Chart],
    namespace: str,
) -> tuple[dict[tuple[str, ObjectKey], FluxKustomization], dict[str, str]]:
    """Every Flux Kustomization by id (file, key), and files that declare one but cannot be read (path -> reason)."""
    folders = {c.path for c in charts}
    found: dict[tuple[str, ObjectKey], FluxKustomization] = {}
    unreadable: dict[str, str] = {}
    for path, text in yaml_texts(tree)[0].items():
        if (
            FLUX_KUSTOMIZE_GROUP not in text
            or "Kustomization" not in text
            or in_a_chart(path, folders)
        ):
            continue
        try:
            objects = _objects(path, text, namespace)
        except AftershockError as error:
            unreadable[path] = error.line()
            continue
        for obj in objects:
            if (
                obj.key.group == FLUX_KUSTOMIZE_GROUP
                and obj.key.kind == "Kustomization"
                and _from_git(obj)
            ):
                flux = flux_kustomization(obj, cluster_of(path))
                found.setdefault(flux.id, flux)
    return found, unreadable


@functools.lru_cache(maxsize=4096)  # by content: an unchanged file is parsed once for both refs
def _objects(path: str, text: str, namespace: str) -> tuple[RenderedObject, ...]:
    return manifest_objects(path, text, namespace)


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _from_git(obj: RenderedObject) -> bool:
    """A Kustomization of an OCIRepository, Bucket or ExternalArtifact builds a path of another source."""
    source = _map(_map(obj.body.get("spec")).get("sourceRef"))
    return bool(source.get("kind", "GitRepository") == "GitRepository")


def flux_kustomization(obj: RenderedObject, cluster: str | None) -> FluxKustomization:
    spec = _map(obj.body.get("spec"))
    raw_path = spec["path"] if isinstance(spec.get("path"), str) else "./"
    path = posixpath.normpath(raw_path.lstrip("/"))  # Flux reads the path from the source's root
    path = "" if path == "." else path
    problem = None
    if path == ".." or path.startswith("../"):
        problem, path = f"spec.path {raw_path!r} leaves the repository", ""
    post = _map(spec.get("postBuild"))
    substitute = _map(post.get("substitute"))
    refs = tuple(
        ValuesReference(
            kind=str(r.get("kind", "")),
            name=str(r.get("name", "")),
            optional=bool(r.get("optional", False)),
        )
        for r in post.get("substituteFrom") or ()
        if isinstance(r, dict)
    )
    target = spec.get("targetNamespace")
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
        build_fields={k: spec[k] for k in BUILD_FIELDS if spec.get(k)},
        body=obj.body,
        problem=problem,
    )
