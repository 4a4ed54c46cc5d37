"""Plain Kubernetes manifests in the repository (outside any chart) that matter to release following:
HelmReleases and Applications, the ConfigMaps and Secrets their values may come from, and the Flux
HelmRepositories and OCIRepositories their external charts come from."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

from aftershock.ingest.gitops.flux_clusters import FluxClusters
from aftershock.ingest.gitops.kustomize_namespace import kustomize_namespace
from aftershock.ingest.object_documents import parse_manifests
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.yaml_files import yaml_texts
from aftershock.model.errors import AftershockError
from aftershock.model.objects import RenderedObject
from aftershock.model.units import Chart

_KINDS = ("HelmRelease", "Application", "ConfigMap", "Secret", "HelmRepository", "OCIRepository")
_RELEVANT = re.compile(
    r"^kind:\s*[\"']?(HelmRelease|Application|ConfigMap|Secret|HelmRepository|OCIRepository)\b",
    re.M,
)
_RELEASE = re.compile(r"^kind:\s*[\"']?(HelmRelease|Application)\b", re.M)


@dataclass(frozen=True)
class PlainManifests:
    """Objects by file, and files holding a release that could not be read (path -> reason)."""

    objects: dict[str, tuple[RenderedObject, ...]] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    clusters: FluxClusters = field(default_factory=FluxClusters)  # the cluster of each file

    def all_objects(self) -> tuple[RenderedObject, ...]:
        return tuple(o for path in sorted(self.objects) for o in self.objects[path])


_READ: OrderedDict[tuple[str, int, frozenset[str], str], PlainManifests] = OrderedDict()
_KEPT = 4  # a review reads two refs (its GitOps inputs and its render stage both ask)


def plain_manifests(tree: RefSnapshot, charts: Iterable[Chart], namespace: str) -> PlainManifests:
    """Read every YAML file outside the charts that declares a release, ConfigMap or Secret: once per
    commit, charts and namespace (treat the result as read-only)."""
    folders = frozenset(c.path for c in charts)
    key = (tree.tree.ref, tree.max_file_bytes, folders, namespace)
    if key not in _READ:
        _READ[key] = _read(tree, folders, namespace)
        while len(_READ) > _KEPT:
            _READ.popitem(last=False)
    _READ.move_to_end(key)
    return _READ[key]


def _read(tree: RefSnapshot, folders: frozenset[str], namespace: str) -> PlainManifests:
    found = PlainManifests()
    # a file too large or not UTF-8 is not a manifest this review can follow
    texts, _ = yaml_texts(tree, folders)
    for path in sorted(texts):
        text = texts[path]
        if not _RELEVANT.search(text):
            continue
        try:
            given = kustomize_namespace(path, tree.text_or_none) or namespace
            objects = parse_manifests({path: text}, chart="", namespace=given)
        except AftershockError as error:
            if _RELEASE.search(text):
                found.unreadable[path] = error.line()
            continue
        found.objects[path] = tuple(o for o in objects if o.key.kind in _KINDS)
    return found
