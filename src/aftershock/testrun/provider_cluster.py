"""The cluster a test's `kubernetesProvider` gives `lookup`: its objects as a ClusterSnapshot, each kind
visible only where client-go's fake would have stored it (its guessed resource)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.helmtest.kubeprovider import (
    KubernetesProvider,
    SchemeEntry,
    guessed_resource,
    split_key,
)
from aftershock.render.lookup.cluster import ClusterSnapshot, KindScope, snapshot_from_objects

FAKE_LIST_METADATA = (("continue", ""), ("resourceVersion", ""))


def _served(key: str, entry: SchemeEntry) -> KindScope | None:
    """The kind a scheme entry makes visible: only when its GVR is where the fake stored the kind."""
    split = split_key(key)
    if split is None:
        return None
    api_version, kind = split
    group, _, version = api_version.rpartition("/")
    if (entry.group, entry.version, entry.resource) != (group, version, guessed_resource(kind)):
        return None
    return KindScope(api_version, kind, entry.namespaced)


def provider_snapshot(provider: KubernetesProvider, json_ready: Any) -> ClusterSnapshot | None:
    """The cluster of a test's effective provider; None when it gives no objects (then upstream
    renders without a fake client, and `lookup` finds nothing). `json_ready` makes decoded YAML
    JSON-ready (the planner's)."""
    if not provider.objects:
        return None
    scopes = [scope for key, entry in provider.scheme if (scope := _served(key, entry)) is not None]
    objects = [json_ready(body) for body in provider.objects if isinstance(body, Mapping)]
    return snapshot_from_objects(
        objects,
        scopes=scopes,
        only_scoped_kinds=True,
        place_namespaces=False,
        list_metadata=FAKE_LIST_METADATA,
    )
