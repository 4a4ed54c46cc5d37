"""The cluster each Flux Kustomization applies to, read from the chain of Kustomizations that applies it.

A Kustomization is applied by the Kustomization whose build folder most closely holds the file that
declares it (another one than itself). Following that chain ends at a root, which something outside
the chain applies. A root whose own build folder holds its file applies itself: that is the
Kustomization `flux bootstrap` sets up, one per cluster.

A Kustomization's cluster is then, in order:
- the `clusters/<name>/` tree its file is in (`model.releases.cluster_tree`);
- the `clusters/<name>/` tree of its root's file (an app declared under `apps/` by `clusters/prod`);
- when the repository holds two or more bootstrap roots, the folder its root builds: each bootstrap
  root is a cluster of its own, as in a repository of test clusters side by side;
- none otherwise: one cluster, the one the review calls in-cluster.

Folders stand for builds here: a folder's build may leave out a file under it, so a chain is
approximate, and a file outside every build folder has no root and no cluster of its own. Two kinds
of Kustomization apply nothing here: one whose source is elsewhere (its folder is not this
repository's), and one applied by another whose folder lies inside its own (one building the
whole repository from inside a cluster's tree, say): read as the applier of every file under its
folder, it would put every cluster in one.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TypeVar

from aftershock.ingest.gitops.flux_kustomization import FluxKustomization
from aftershock.model.releases import cluster_tree

Id = TypeVar("Id")


def with_clusters(found: Mapping[Id, FluxKustomization]) -> dict[Id, FluxKustomization]:
    """`found` with each Kustomization's `cluster` and `tree` set from its chain (see the module)."""
    chains = _Chains(found.values())
    bootstrap = {
        k.id for k in found.values() if chains.root(k).id == k.id and chains.applies_itself(k)
    }
    named_by_folder = len(bootstrap) >= 2
    out: dict[Id, FluxKustomization] = {}
    for key, flux in found.items():
        root = chains.root(flux)
        tree = root.path if root.id in bootstrap else None
        cluster = cluster_tree(flux.file) or cluster_tree(root.file)
        if cluster is None and named_by_folder and tree is not None:
            cluster = tree
        out[key] = replace(flux, cluster=cluster, tree=tree)
    return out


@dataclass(frozen=True)
class FluxClusters:
    """The cluster a file of one ref is applied to: that of the Kustomization whose build folder most
    closely holds it, else its `clusters/<name>/` tree (as for a release in a plain manifest)."""

    folders: Mapping[str, str | None] = field(default_factory=dict, hash=False)  # folder -> cluster

    def of(self, path: str) -> str | None:
        named = cluster_tree(path)
        if named is not None or not self.folders:
            return named
        folder = posixpath.dirname(path)
        while folder not in self.folders:
            if not folder:
                return None
            folder = posixpath.dirname(folder)
        return self.folders[folder]


def file_clusters(found: Mapping[Id, FluxKustomization]) -> FluxClusters:
    """The clusters of the files `found` (Kustomizations whose clusters `with_clusters` set) apply."""
    return FluxClusters(_Chains(found.values()).folder_clusters())


class _Chains:
    """Which Kustomization applies which, by the folders they build."""

    def __init__(self, kustomizations: Iterable[FluxKustomization]) -> None:
        self._by_folder: dict[str, list[FluxKustomization]] = {}
        for flux in sorted(kustomizations, key=lambda k: k.id):
            if flux.problem is None:
                self._by_folder.setdefault(flux.path, []).append(flux)
        around = [k for ks in self._by_folder.values() for k in ks if self._around_applier(k)]
        for flux in around:
            self._by_folder[flux.path].remove(flux)
        self._roots: dict[object, FluxKustomization] = {}

    def folder_clusters(self) -> dict[str, str | None]:
        return {folder: ks[0].cluster for folder, ks in self._by_folder.items() if ks}

    def applies_itself(self, flux: FluxKustomization) -> bool:
        return _holds(flux.path, flux.file)

    def _around_applier(self, flux: FluxKustomization) -> bool:
        """Whether another Kustomization's folder, inside `flux`'s own, holds `flux`'s file."""
        if not self.applies_itself(flux):
            return False
        folder = posixpath.dirname(flux.file)
        while folder != flux.path and folder:
            if any(k.id != flux.id for k in self._by_folder.get(folder, ())):
                return True
            folder = posixpath.dirname(folder)
        return False

    def applier(self, flux: FluxKustomization) -> FluxKustomization | None:
        """The Kustomization building the deepest folder that holds `flux`'s file, other than itself."""
        folder = posixpath.dirname(flux.file)
        while True:
            others = [k for k in self._by_folder.get(folder, ()) if k.id != flux.id]
            if others:
                return others[0]
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    def root(self, flux: FluxKustomization) -> FluxKustomization:
        """The end of `flux`'s chain; in a loop, the loop's first Kustomization by id."""
        if flux.id in self._roots:
            return self._roots[flux.id]
        chain = [flux]
        ids = [flux.id]
        while (up := self.applier(chain[-1])) is not None and up.id not in ids:
            chain.append(up)
            ids.append(up.id)
        loop = chain[ids.index(up.id) :] if up is not None else chain[-1:]
        end = min(loop, key=lambda k: k.id)
        for member in chain:
            self._roots[member.id] = end
        return end


def _holds(folder: str, path: str) -> bool:
    return folder == "" or path.startswith(folder + "/")
