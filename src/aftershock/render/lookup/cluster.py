"""The cluster a render's `lookup` sees: `ClusterSnapshot`, a set of Kubernetes objects by
apiVersion, kind, namespace and name, and the pure functions that build one.

Objects are stored as an API server returns them: a namespaced object without a namespace is placed
in the snapshot's default namespace (and says so in `metadata.namespace`); a cluster-scoped one has
none. A kind is cluster-scoped when an explicit scope says so (helm-unittest's `scheme`), when a
CustomResourceDefinition of the snapshot declares `scope: Cluster`, or when it is one of Kubernetes'
own cluster-scoped kinds (`CLUSTER_SCOPED_KINDS`). Kubernetes' own kinds are served even when the
snapshot holds none (a list of them is empty); a kind the cluster does not serve gives `lookup` an
empty map, as Helm's lookup does for a kind its discovery does not list. Unlike a real cluster, an
object is found only under the apiVersion it was given (no conversion between versions), and is served
as given: what an API server adds (uid, resourceVersion, creationTimestamp, defaults) is absent. `digest` names the content for render cache keys.
The API server that serves a snapshot to Helm is `render.lookup.kubeapi`.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from aftershock.model.objects import RenderedObject

# Kubernetes' built-in cluster-scoped kinds, by group ("" is the core group).
CLUSTER_SCOPED_KINDS: frozenset[tuple[str, str]] = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("", "ComponentStatus"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("apiregistration.k8s.io", "APIService"),
        ("storage.k8s.io", "StorageClass"),
        ("storage.k8s.io", "CSIDriver"),
        ("storage.k8s.io", "CSINode"),
        ("storage.k8s.io", "VolumeAttachment"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("networking.k8s.io", "IngressClass"),
        ("networking.k8s.io", "IPAddress"),
        ("networking.k8s.io", "ServiceCIDR"),
        ("node.k8s.io", "RuntimeClass"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
        ("certificates.k8s.io", "CertificateSigningRequest"),
        ("certificates.k8s.io", "ClusterTrustBundle"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
        ("resource.k8s.io", "DeviceClass"),
        ("resource.k8s.io", "ResourceSlice"),
        ("policy", "PodSecurityPolicy"),
    }
)
# Kubernetes' built-in namespaced kinds a lookup commonly asks for: served (empty lists) even when
# the snapshot holds none of them, as a real cluster does.
NAMESPACED_KINDS: frozenset[tuple[str, str]] = frozenset(
    {
        ("", "ConfigMap"),
        ("", "Secret"),
        ("", "Service"),
        ("", "ServiceAccount"),
        ("", "Pod"),
        ("", "PersistentVolumeClaim"),
        ("", "Endpoints"),
        ("", "Event"),
        ("", "LimitRange"),
        ("", "ResourceQuota"),
        ("", "ReplicationController"),
        ("", "PodTemplate"),
        ("apps", "Deployment"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("apps", "ReplicaSet"),
        ("apps", "ControllerRevision"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("networking.k8s.io", "Ingress"),
        ("networking.k8s.io", "NetworkPolicy"),
        ("rbac.authorization.k8s.io", "Role"),
        ("rbac.authorization.k8s.io", "RoleBinding"),
        ("policy", "PodDisruptionBudget"),
        ("autoscaling", "HorizontalPodAutoscaler"),
        ("coordination.k8s.io", "Lease"),
        ("discovery.k8s.io", "EndpointSlice"),
        ("events.k8s.io", "Event"),
        ("storage.k8s.io", "CSIStorageCapacity"),
    }
)
DEFAULT_NAMESPACE = "default"
# What a real API server's list carries in `metadata` (its resourceVersion is left empty here).
API_SERVER_LIST_METADATA: tuple[tuple[str, str], ...] = (("resourceVersion", ""),)


class ClusterKey(NamedTuple):
    """Where an object lives in a cluster; `namespace` is "" for a cluster-scoped object."""

    api_version: str
    kind: str
    namespace: str
    name: str


class KindScope(NamedTuple):
    """An explicit statement that `kind` of `api_version` exists and whether it is namespaced."""

    api_version: str
    kind: str
    namespaced: bool


def group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


@dataclass(frozen=True, eq=False)
class ClusterSnapshot:
    """Objects sorted by key, one per key. With `only_scoped_kinds`, a kind without a `scopes`
    entry does not exist (helm-unittest's fake client); otherwise every kind does.
    `list_metadata` is what a list answer carries in `metadata`. Compared by `digest`."""

    objects: tuple[Mapping[str, Any], ...] = ()
    scopes: tuple[KindScope, ...] = ()
    only_scoped_kinds: bool = False
    list_metadata: tuple[tuple[str, str], ...] = API_SERVER_LIST_METADATA

    @functools.cached_property
    def digest(self) -> str:
        text = json.dumps(
            [
                list(self.objects),
                [list(s) for s in self.scopes],
                self.only_scoped_kinds,
                [list(p) for p in self.list_metadata],
            ],
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClusterSnapshot) and other.digest == self.digest

    def __hash__(self) -> int:
        return hash(self.digest)

    @functools.cached_property
    def _by_key(self) -> dict[ClusterKey, Mapping[str, Any]]:
        return {key: body for body in self.objects if (key := object_key(body)) is not None}

    @functools.cached_property
    def _object_kinds(self) -> dict[str, set[str]]:
        """apiVersion -> the kinds of the objects held under it (discovery asks once per lookup)."""
        kinds: dict[str, set[str]] = {}
        for key in self._by_key:
            kinds.setdefault(key.api_version, set()).add(key.kind)
        return kinds

    @functools.cached_property
    def _scope_table(self) -> dict[tuple[str, str], bool]:
        """(apiVersion, kind) -> namespaced, from the explicit scopes and the snapshot's CRDs."""
        table = dict(_crd_scopes(self.objects))
        table.update({(s.api_version, s.kind): s.namespaced for s in self.scopes})
        return table

    def kinds(self, api_version: str) -> list[tuple[str, bool]]:
        """(kind, namespaced) of every kind this cluster serves under `api_version` by name: those
        of its objects, its scopes and its CRDs, and Kubernetes' own kinds of the API group."""
        found = {kind for version, kind in self._scope_table if version == api_version}
        if not self.only_scoped_kinds:
            found |= self._object_kinds.get(api_version, set())
            group = group_of(api_version)
            found |= {
                kind
                for kind_group, kind in CLUSTER_SCOPED_KINDS | NAMESPACED_KINDS
                if kind_group == group
            }
        return sorted((kind, self.namespaced(api_version, kind)) for kind in found)

    def namespaced(self, api_version: str, kind: str) -> bool:
        scope = self._scope_table.get((api_version, kind))
        if scope is not None:
            return scope
        return (group_of(api_version), kind) not in CLUSTER_SCOPED_KINDS

    def get(
        self, api_version: str, kind: str, namespace: str, name: str
    ) -> Mapping[str, Any] | None:
        return self._by_key.get(ClusterKey(api_version, kind, namespace, name))

    def items(self, api_version: str, kind: str, namespace: str | None) -> list[Mapping[str, Any]]:
        """The objects of a kind, in one namespace or (None) in all, in the API server's order."""
        return [
            body
            for key, body in self._by_key.items()
            if key.api_version == api_version
            and key.kind == kind
            and (namespace is None or key.namespace == namespace)
        ]


def object_key(body: Mapping[str, Any]) -> ClusterKey | None:
    """The key of a stored object; None without apiVersion, kind or name."""
    metadata = body.get("metadata")
    if not isinstance(metadata, Mapping):
        return None
    api_version, kind, name = body.get("apiVersion"), body.get("kind"), metadata.get("name")
    if not (isinstance(api_version, str) and isinstance(kind, str) and isinstance(name, str)):
        return None
    if not (api_version and kind and name):
        return None
    namespace = metadata.get("namespace")
    return ClusterKey(api_version, kind, namespace if isinstance(namespace, str) else "", name)


def _crd_scopes(objects: Iterable[Mapping[str, Any]]) -> Iterable[tuple[tuple[str, str], bool]]:
    """(apiVersion, kind) -> namespaced for every served version of each CRD among `objects`."""
    for body in objects:
        if (
            body.get("kind") != "CustomResourceDefinition"
            or group_of(str(body.get("apiVersion"))) != "apiextensions.k8s.io"
        ):
            continue
        spec = body.get("spec")
        if not isinstance(spec, Mapping) or not isinstance(spec.get("names"), Mapping):
            continue
        group, kind = spec.get("group"), spec["names"].get("kind")
        versions = [v.get("name") for v in spec.get("versions") or () if isinstance(v, Mapping)]
        if isinstance(spec.get("version"), str):
            versions.append(spec["version"])  # apiextensions.k8s.io/v1beta1
        for version in versions:
            if isinstance(group, str) and isinstance(kind, str) and isinstance(version, str):
                yield (f"{group}/{version}", kind), spec.get("scope") != "Cluster"


def snapshot_from_objects(
    objects: Iterable[Mapping[str, Any]],
    *,
    scopes: Iterable[KindScope] = (),
    only_scoped_kinds: bool = False,
    default_namespace: str = DEFAULT_NAMESPACE,
    list_metadata: tuple[tuple[str, str], ...] = API_SERVER_LIST_METADATA,
    place_namespaces: bool = True,
) -> ClusterSnapshot:
    """A snapshot of plain objects (later ones replace earlier ones of the same key); objects
    without apiVersion, kind or name are left out, as a cluster could not hold them. Without
    `place_namespaces`, objects keep the namespace they give (a fake client's store)."""
    given = [body for body in objects if isinstance(body, Mapping) and object_key(body) is not None]
    scope_list = tuple(scopes)
    probe = ClusterSnapshot(tuple(given), scope_list, only_scoped_kinds)  # only for scopes
    placed: dict[ClusterKey, Mapping[str, Any]] = {}
    for body in given:
        stored = (
            _placed(body, probe, default_namespace)
            if place_namespaces
            else copy.deepcopy(dict(body))
        )
        key = object_key(stored)
        assert key is not None
        placed[key] = stored
    return ClusterSnapshot(
        tuple(placed[key] for key in sorted(placed)), scope_list, only_scoped_kinds, list_metadata
    )


def _placed(
    body: Mapping[str, Any], probe: ClusterSnapshot, default_namespace: str
) -> dict[str, Any]:
    """A copy of `body` with `metadata.namespace` as the API server would store it."""
    stored = copy.deepcopy(dict(body))
    metadata = dict(stored["metadata"])
    if probe.namespaced(stored["apiVersion"], stored["kind"]):
        if not metadata.get("namespace"):
            metadata["namespace"] = default_namespace
    else:
        metadata.pop("namespace", None)
    stored["metadata"] = metadata
    return stored


def snapshot_from_rendered(
    objects: Iterable[RenderedObject], *, default_namespace: str = DEFAULT_NAMESPACE
) -> ClusterSnapshot:
    """A snapshot of rendered objects, each in the namespace the render gave it."""
    return snapshot_from_objects(
        (_with_namespace(o.body, o.key.namespace) for o in objects),
        default_namespace=default_namespace,
    )


def _with_namespace(body: Mapping[str, Any], namespace: str) -> Mapping[str, Any]:
    metadata = body.get("metadata")
    if not namespace or not isinstance(metadata, Mapping) or metadata.get("namespace"):
        return body
    return {**body, "metadata": {**metadata, "namespace": namespace}}


def cluster_snapshot(
    plain_objects: Iterable[RenderedObject | Mapping[str, Any]] = (),
    rendered_objects: Iterable[RenderedObject] = (),
    extra_objects: Iterable[Mapping[str, Any]] = (),
    *,
    default_namespace: str = DEFAULT_NAMESPACE,
) -> ClusterSnapshot:
    """The cluster a review renders against: the repository's plain manifests (parsed, or plain
    dicts), then rendered objects, then `extra_objects` (`.aftershock.yaml` `cluster:`), a later
    one replacing an earlier one of the same key."""

    def body(item: RenderedObject | Mapping[str, Any]) -> Mapping[str, Any]:
        return (
            _with_namespace(item.body, item.key.namespace)
            if isinstance(item, RenderedObject)
            else item
        )

    bodies = [*map(body, plain_objects), *map(body, rendered_objects), *extra_objects]
    return snapshot_from_objects(bodies, default_namespace=default_namespace)


def snapshot_message(snapshot: ClusterSnapshot) -> dict[str, Any]:
    """The snapshot as JSON for a render worker (`snapshot_from_message` reads it back)."""
    return {
        "digest": snapshot.digest,
        "objects": list(snapshot.objects),
        "scopes": [list(s) for s in snapshot.scopes],
        "only_scoped_kinds": snapshot.only_scoped_kinds,
        "list_metadata": [list(p) for p in snapshot.list_metadata],
    }


def snapshot_from_message(message: Mapping[str, Any]) -> ClusterSnapshot:
    return ClusterSnapshot(
        tuple(message["objects"]),
        tuple(KindScope(*s) for s in message["scopes"]),
        bool(message["only_scoped_kinds"]),
        tuple((k, v) for k, v in message["list_metadata"]),
    )
