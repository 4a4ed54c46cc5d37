"""Releases found in rendered output or plain manifests: Flux HelmReleases and Argo CD Applications.

A release is identified by its object's key and, when it lives in a fleet's cluster tree
(`clusters/<name>/`, or a Flux Kustomization declared there), by that cluster: `podinfo/podinfo` of
`clusters/prod` and of `clusters/staging` are two releases, each with its own values and objects.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aftershock.model.objects import ObjectKey


def cluster_tree(path: str) -> str | None:
    """`prod` for anything under `clusters/prod/`."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "clusters" else None


def release_id(key: ObjectKey, tree: str | None) -> str:
    """The id of a release: its object's `ObjectKey.id`, then `@<cluster>` when it lives in a cluster tree."""
    return f"{key.id}@{tree}" if tree else key.id


def split_release_id(release: str) -> tuple[ObjectKey, str | None]:
    """The inverse of release_id ("core" for the core group, "_" for no namespace)."""
    group, kind, namespace, rest = release.split("/", 3)
    name, _, tree = rest.partition("@")
    key = ObjectKey(
        "" if group == "core" else group, kind, "" if namespace == "_" else namespace, name
    )
    return key, tree or None


def release_label(release: str) -> str:
    """`release <key as text>`, then ` in cluster <name>`: the `file` of a release's values changes and the
    part a gap of the release names."""
    key, tree = split_release_id(release)
    return f"release {key}" + (f" in cluster {tree}" if tree else "")


class ReleaseKind(str, enum.Enum):
    FLUX = "flux_helmrelease"
    ARGO = "argo_application"


class Evidence(str, enum.Enum):
    OBSERVED = "observed"  # stated by the release itself (a path in this repository)
    INFERRED = "inferred"  # reasoned, e.g. a chart matched by name


@dataclass(frozen=True)
class ValuesReference:
    """One Flux `valuesFrom` entry (or an Argo value file, with kind "File")."""

    kind: str
    name: str
    values_key: str = "values.yaml"
    target_path: str | None = None
    optional: bool = False


@dataclass(frozen=True)
class ReleaseSpec:
    """What a release asks its controller to install, read from the release object."""

    key: ObjectKey
    kind: ReleaseKind
    chart: str | None  # the chart as written: a path in a GitRepository, or a chart name
    source_kind: (
        str | None
    )  # GitRepository, HelmRepository, OCIRepository, HelmChart, ... or "argo"
    source_name: str | None
    release_name: str
    namespace: str
    values: Mapping[str, Any] = field(default_factory=dict, hash=False)
    values_from: tuple[ValuesReference, ...] = ()
    cluster: str | None = None  # a kubeConfig secret or an Argo destination
    version: str | None = (
        None  # the chart version asked for (Flux `version`, Argo `targetRevision`)
    )
    repository: str | None = None  # an Argo source's repoURL when it names a chart, not a path
    source_namespace: str | None = None  # a Flux sourceRef's (chartRef's) own namespace, when set


@dataclass(frozen=True)
class ResolvedRelease:
    """A release with its downstream chart resolved, and the values the controller would pass."""

    spec: ReleaseSpec
    chart_path: str | None
    evidence: Evidence
    values: Mapping[str, Any] = field(default_factory=dict, hash=False)
    problem: str | None = None  # why it cannot be reviewed, when it cannot
    secret_paths: frozenset[str] = (
        frozenset()
    )  # values paths a `valuesFrom` Secret supplies (never shown)
    archive: bytes | None = field(
        default=None, repr=False, compare=False
    )  # an external chart's archive
    version: str | None = None  # an external chart's version (exact: a range is pinned)
    chosen: str | None = None  # how a range was pinned: the version, among what
