"""A Flux Kustomization as the review reads it: what it builds, for which cluster, with which fields."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aftershock.model.objects import ObjectKey
from aftershock.model.releases import ValuesReference


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
    source: str = "GitRepository"  # the sourceRef, e.g. "OCIRepository flux-system/cluster"
    tree: str | None = None  # the folder its bootstrap root builds (ingest/gitops/flux_clusters.py)

    @property
    def id(self) -> tuple[str, ObjectKey]:
        """Two clusters (or trees) often declare a Kustomization of the same name: its file is part of its identity."""
        return self.file, self.key
