"""Rendered Kubernetes objects and their identity key."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class ObjectKey:
    """Identity of a Kubernetes object: API group, kind, namespace and name.

    `group` is "" for the core group; `namespace` is "" for cluster-scoped objects.
    """

    group: str
    kind: str
    namespace: str
    name: str

    @property
    def id(self) -> str:
        group = self.group or "core"
        return f"{group}/{self.kind}/{self.namespace or '_'}/{self.name}"

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{kind} {where}{self.name}"


@dataclass(frozen=True)
class RenderedObject:
    """One Kubernetes object as Helm rendered it, with where it came from.

    `body` is the parsed document (JSON-compatible; treat it as read-only).
    `template` is the rendered file's path as Helm names it, e.g. `app/templates/deploy.yaml`
    or `app/charts/lib/templates/x.yaml`; `chart` is the repository path of the chart rendered.
    For an object a kustomize build made, `template` is the resource file declaring it (or the
    kustomization file whose generator made it, then named in `generator`, e.g. ConfigMapGenerator),
    and `shaped_by` the other files of the build that changed or fed it (patches, generator files).
    """

    key: ObjectKey
    api_version: str
    body: Mapping[str, Any] = field(compare=False, hash=False)
    chart: str
    template: str
    document_index: int = 0
    generator: str | None = None
    shaped_by: tuple[str, ...] = ()
