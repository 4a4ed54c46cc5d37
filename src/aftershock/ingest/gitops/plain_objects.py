"""Every Kubernetes object of the repository's plain manifests at one ref, grouped by folder.

A plain manifest is a YAML file outside every chart (and outside the files a kustomization builds)
holding Kubernetes documents: multi-document files, `kind: List`, CRDs. A document is a Kubernetes
object when it has a string `apiVersion` and `kind` and a `metadata.name` (a `*List` needs `items`);
other YAML (CI files, values files, tool configuration) is left alone. Kustomize's own configuration
(`kustomize.config.k8s.io`, `config.kubernetes.io`) is not an object. A file that looks like a
manifest (top-level `apiVersion:` and `kind:`) but is not valid YAML is unreadable, with the reason.
A document with `apiVersion`, `kind` and `metadata` (or `spec`/`data`) but no `metadata.name` is an
object Kubernetes would reject: it is recorded as nameless, for the review to say it is not reviewed.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from aftershock.ingest.object_documents import objects_from_documents, parse_documents
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.yaml_files import in_folders
from aftershock.model.errors import AftershockError
from aftershock.model.objects import RenderedObject
from aftershock.model.units import Chart

_LOOKS_KUBERNETES = re.compile(r"^apiVersion:.*^kind:|^kind:.*^apiVersion:", re.M | re.S)
_NOT_OBJECTS = ("kustomize.config.k8s.io", "config.kubernetes.io")


@dataclass(frozen=True)
class PlainObjects:
    """Objects by folder (repository path of the folder holding the files), and unreadable files."""

    folders: dict[str, tuple[RenderedObject, ...]] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)  # file path -> reason
    files: dict[str, tuple[str, ...]] = field(default_factory=dict)  # folder -> its manifest files
    # file path -> its documents that look like objects but name none ("document 2 (Deployment)")
    nameless: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def all_objects(self) -> tuple[RenderedObject, ...]:
        return tuple(o for folder in sorted(self.folders) for o in self.folders[folder])


def looks_like_manifest(text: str) -> bool:
    """Top-level `apiVersion:` and `kind:` lines: worth parsing as Kubernetes YAML."""
    return bool(_LOOKS_KUBERNETES.search(text))


def folder_of(path: str) -> str:
    return posixpath.dirname(path)


def plain_objects(
    tree: RefSnapshot,
    charts: Iterable[Chart],
    namespace: str,
    *,
    excluded: Collection[str] = (),
    folders: Collection[str] | None = None,
) -> PlainObjects:
    """The plain manifests of `tree`: outside `charts`, not in `excluded` (files a kustomization builds),
    in `folders` only when given (a review reads only the folders a change touches)."""
    chart_folders = {c.path for c in charts}
    wanted = set(folders) if folders is not None else None
    candidates = [
        p
        for p in sorted(tree.file_paths())
        if p.endswith((".yaml", ".yml"))
        and p not in excluded
        and (wanted is None or folder_of(p) in wanted)
        and not in_folders(p, chart_folders)
    ]
    found = PlainObjects()
    for path, text in _texts(tree, candidates, found.unreadable):
        if not _LOOKS_KUBERNETES.search(text):
            continue
        try:
            documents = parse_documents({path: text})
        except AftershockError as error:
            found.unreadable[path] = error.line()
            continue
        nameless = tuple(
            f"document {index + 1} ({body['kind']})"
            for _, index, body in documents
            if is_nameless_object(body)
        )
        if nameless:
            found.nameless[path] = nameless
        objects = _objects(path, documents, namespace)
        if objects:
            folder = folder_of(path)
            found.folders[folder] = found.folders.get(folder, ()) + objects
            found.files[folder] = found.files.get(folder, ()) + (path,)
    return found


def manifest_objects(path: str, text: str, namespace: str) -> tuple[RenderedObject, ...]:
    """The Kubernetes objects of one manifest file (`template` is its path); MalformedInputError when
    it is not YAML."""
    return _objects(path, parse_documents({path: text}), namespace)


def _objects(
    path: str, documents: Iterable[tuple[str, int, Any]], namespace: str
) -> tuple[RenderedObject, ...]:
    kept = [d for d in documents if is_kubernetes(d[2])]
    return objects_from_documents(kept, chart=folder_of(path), namespace=namespace)


def _typed(body: Any) -> bool:
    """A mapping with a string `apiVersion` and `kind`, outside kustomize's own configuration."""
    if not isinstance(body, dict):
        return False
    api_version, kind = body.get("apiVersion"), body.get("kind")
    if not (isinstance(api_version, str) and isinstance(kind, str) and api_version and kind):
        return False
    return api_version.split("/", 1)[0] not in _NOT_OBJECTS


def is_kubernetes(body: Any) -> bool:
    """Whether a parsed document is a Kubernetes object (or a list of them), not other YAML."""
    if not _typed(body):
        return False
    if body["kind"].endswith("List") and isinstance(body.get("items"), list):
        return True
    metadata = body.get("metadata")
    return isinstance(metadata, dict) and bool(metadata.get("name") or metadata.get("generateName"))


def is_nameless_object(body: Any) -> bool:
    """An object that names none: typed, with `metadata`, `spec` or `data` (tool configuration such as a
    kubeconfig has none of them), but no `metadata.name` or `generateName`."""
    if not _typed(body) or is_kubernetes(body) or body["kind"].endswith("List"):
        return False
    return any(key in body for key in ("metadata", "spec", "data", "stringData"))


def _texts(
    tree: RefSnapshot, paths: list[str], unreadable: dict[str, str]
) -> Iterable[tuple[str, str]]:
    """Each file's text; a file too large or not UTF-8 is left out (recorded when it looks like a manifest)."""
    for path in paths:
        try:
            text = tree.text_or_none(path)
        except AftershockError as error:
            unreadable[path] = error.line()
            continue
        if text is not None:
            yield path, text
