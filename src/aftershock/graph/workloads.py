"""Which workloads a rendered object is or feeds, read from the objects' bodies (pure).

A workload is an object that runs pods. Another object feeds a workload when a pod spec names it
(envFrom, env valueFrom, volumes, serviceAccountName, imagePullSecrets), when its selector matches the
pod labels (Service, PodDisruptionBudget, NetworkPolicy), when it targets it (HorizontalPodAutoscaler),
or through one hop that ends in one of those (Ingress -> Service, RoleBinding -> ServiceAccount,
Role -> RoleBinding -> ServiceAccount).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from aftershock.model.objects import ObjectKey, RenderedObject

WORKLOAD_KINDS: frozenset[tuple[str, str]] = frozenset(
    {
        ("apps", "Deployment"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("apps", "ReplicaSet"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("", "Pod"),
    }
)
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
_RBAC = "rbac.authorization.k8s.io"

Feed = tuple[ObjectKey, str]  # the workload's key, and how the object reaches it in words


def is_workload(key: ObjectKey) -> bool:
    return (key.group, key.kind) in WORKLOAD_KINDS


def fed_workloads(
    key: ObjectKey, body: Mapping[str, Any], objects: Sequence[RenderedObject]
) -> tuple[Feed, ...]:
    """The workloads among `objects` that the object (`key`, `body`) feeds, each once, in key order."""
    # A cluster-scoped object (ClusterRole, ClusterRoleBinding) may feed workloads in any namespace.
    workloads = [
        o for o in objects if is_workload(o.key) and key.namespace in ("", o.key.namespace)
    ]
    feeds: dict[ObjectKey, str] = {}
    for workload_key, via in _feeds(key, body, workloads, objects):
        feeds.setdefault(workload_key, via)
    return tuple(sorted(feeds.items()))


def _feeds(
    key: ObjectKey,
    body: Mapping[str, Any],
    workloads: Sequence[RenderedObject],
    objects: Sequence[RenderedObject],
) -> Iterator[Feed]:
    if key.group == "":
        yield from _named_by_pods(key, workloads)
    if (key.group, key.kind) == ("", "Service"):
        yield from _selected(
            _mapping(_get(body, "spec", "selector")), workloads, "Service selector"
        )
        yield from (
            (w.key, "StatefulSet serviceName")
            for w in workloads
            if w.key.kind == "StatefulSet" and _get(w.body, "spec", "serviceName") == key.name
        )
    elif (key.group, key.kind) == ("policy", "PodDisruptionBudget"):
        yield from _selected(
            _match_labels(_get(body, "spec", "selector")), workloads, "PodDisruptionBudget selector"
        )
    elif (key.group, key.kind) == ("networking.k8s.io", "NetworkPolicy"):
        if _get(body, "spec", "podSelector", "matchExpressions"):
            return  # expressions are not evaluated; an empty matchLabels would wrongly select every pod
        yield from _selected(
            _match_labels(_get(body, "spec", "podSelector")),
            workloads,
            "NetworkPolicy podSelector",
            empty_selects_all=True,
        )
    elif key.group == "autoscaling" and key.kind == "HorizontalPodAutoscaler":
        target = _mapping(_get(body, "spec", "scaleTargetRef"))
        yield from (
            (w.key, "scaleTargetRef")
            for w in workloads
            if w.key.kind == target.get("kind") and w.key.name == target.get("name")
        )
    elif (key.group, key.kind) == ("networking.k8s.io", "Ingress"):
        yield from _through_services(key, body, workloads, objects)
    elif key.group == _RBAC and key.kind in ("RoleBinding", "ClusterRoleBinding"):
        yield from _through_subjects(body, workloads, f"{key.kind} subject")
    elif key.group == _RBAC and key.kind in ("Role", "ClusterRole"):
        yield from _through_bindings(key, workloads, objects)


def _named_by_pods(key: ObjectKey, workloads: Sequence[RenderedObject]) -> Iterator[Feed]:
    for workload in workloads:
        for kind, name, via in pod_references(workload.body, workload.key.kind):
            if kind == key.kind and name == key.name:
                yield workload.key, via


def pod_references(body: Mapping[str, Any], kind: str) -> Iterator[tuple[str, str, str]]:
    """(kind, name, how) of every ConfigMap, Secret, ServiceAccount and PersistentVolumeClaim a workload's
    pods use; a pod naming no ServiceAccount uses "default"."""
    spec = _pod_spec(body, kind)
    account = spec.get("serviceAccountName") or spec.get("serviceAccount") or "default"
    yield "ServiceAccount", str(account), "serviceAccountName"
    for secret in _list(spec.get("imagePullSecrets")):
        yield "Secret", str(_mapping(secret).get("name")), "imagePullSecrets"
    for volume in map(_mapping, _list(spec.get("volumes"))):
        yield from _volume_references(volume)
    for field in _CONTAINER_LISTS:
        for container in map(_mapping, _list(spec.get(field))):
            yield from _container_references(container)
    for claim in map(_mapping, _list(_get(body, "spec", "volumeClaimTemplates"))):
        yield "PersistentVolumeClaim", str(_get(claim, "metadata", "name")), "volumeClaimTemplates"


def _volume_references(volume: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    if "configMap" in volume:
        yield "ConfigMap", str(_get(volume, "configMap", "name")), "volume configMap"
    if "secret" in volume:
        yield "Secret", str(_get(volume, "secret", "secretName")), "volume secret"
    if "persistentVolumeClaim" in volume:
        yield (
            "PersistentVolumeClaim",
            str(_get(volume, "persistentVolumeClaim", "claimName")),
            "volume claim",
        )
    for source in map(_mapping, _list(_get(volume, "projected", "sources"))):
        if "configMap" in source:
            yield "ConfigMap", str(_get(source, "configMap", "name")), "projected volume configMap"
        if "secret" in source:
            yield "Secret", str(_get(source, "secret", "name")), "projected volume secret"


def _container_references(container: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    for source in map(_mapping, _list(container.get("envFrom"))):
        if "configMapRef" in source:
            yield "ConfigMap", str(_get(source, "configMapRef", "name")), "envFrom configMapRef"
        if "secretRef" in source:
            yield "Secret", str(_get(source, "secretRef", "name")), "envFrom secretRef"
    for variable in map(_mapping, _list(container.get("env"))):
        value_from = _mapping(variable.get("valueFrom"))
        if "configMapKeyRef" in value_from:
            yield (
                "ConfigMap",
                str(_get(value_from, "configMapKeyRef", "name")),
                "env configMapKeyRef",
            )
        if "secretKeyRef" in value_from:
            yield "Secret", str(_get(value_from, "secretKeyRef", "name")), "env secretKeyRef"


def _selected(
    selector: Mapping[str, Any],
    workloads: Sequence[RenderedObject],
    via: str,
    *,
    empty_selects_all: bool = False,
) -> Iterator[Feed]:
    if not selector and not empty_selects_all:
        return
    for workload in workloads:
        labels = _mapping(
            _get(_pod_template(workload.body, workload.key.kind), "metadata", "labels")
        )
        if all(str(labels.get(k)) == str(v) for k, v in selector.items()):
            yield workload.key, via


def _through_services(
    key: ObjectKey,
    body: Mapping[str, Any],
    workloads: Sequence[RenderedObject],
    objects: Sequence[RenderedObject],
) -> Iterator[Feed]:
    backends = [_get(body, "spec", "defaultBackend", "service", "name")]
    for rule in map(_mapping, _list(_get(body, "spec", "rules"))):
        for path in map(_mapping, _list(_get(rule, "http", "paths"))):
            backends.append(_get(path, "backend", "service", "name"))
    # a name that is not a string names no Service
    names = {name for name in backends if isinstance(name, str)}
    for service in objects:
        if (
            (service.key.group, service.key.kind) == ("", "Service")
            and service.key.name in names
            and service.key.namespace == key.namespace
        ):
            selector = _mapping(_get(service.body, "spec", "selector"))
            yield from _selected(selector, workloads, f"Ingress backend Service {service.key.name}")


def _through_subjects(
    body: Mapping[str, Any], workloads: Sequence[RenderedObject], via: str
) -> Iterator[Feed]:
    accounts = {
        (str(s.get("namespace", "")), str(s.get("name")))
        for s in map(_mapping, _list(body.get("subjects")))
        if s.get("kind") == "ServiceAccount"
    }
    for workload in workloads:
        for kind, name, _ in pod_references(workload.body, workload.key.kind):
            if kind == "ServiceAccount" and (
                (workload.key.namespace, name) in accounts or ("", name) in accounts
            ):
                yield workload.key, f"{via} ServiceAccount {name}"


def _through_bindings(
    key: ObjectKey, workloads: Sequence[RenderedObject], objects: Sequence[RenderedObject]
) -> Iterator[Feed]:
    binding_kind = "RoleBinding" if key.kind == "Role" else "ClusterRoleBinding"
    for binding in objects:
        ref = _mapping(binding.body.get("roleRef"))
        same_scope = key.kind == "ClusterRole" or binding.key.namespace == key.namespace
        if (
            binding.key.group == _RBAC
            and binding.key.kind in (binding_kind, "RoleBinding")
            and same_scope
            and ref.get("kind") == key.kind
            and ref.get("name") == key.name
        ):
            yield from _through_subjects(
                binding.body, workloads, f"{binding.key.kind} {binding.key.name}"
            )


def _pod_template(body: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    if kind == "Pod":
        return body
    if kind == "CronJob":
        return _mapping(_get(body, "spec", "jobTemplate", "spec", "template"))
    return _mapping(_get(body, "spec", "template"))


def _pod_spec(body: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    return _mapping(_pod_template(body, kind).get("spec"))


def _match_labels(selector: Any) -> Mapping[str, Any]:
    return _mapping(_mapping(selector).get("matchLabels"))


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
