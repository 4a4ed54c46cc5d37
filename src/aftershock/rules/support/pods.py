"""Pod specs inside workload objects, and their containers, with the field paths that reach them."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aftershock.diff.paths import KeySegment, Segment, format_path
from aftershock.model.objects import RenderedObject
from aftershock.rules.support.access import as_list, as_map, dig, is_map, named_entries
from aftershock.rules.support.cached import cached

# (group, kind) -> keys from the object to its PodSpec
POD_SPEC_KEYS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): ("spec",),
    ("", "ReplicationController"): ("spec", "template", "spec"),
    ("", "PodTemplate"): ("template", "spec"),
    ("apps", "Deployment"): ("spec", "template", "spec"),
    ("apps", "ReplicaSet"): ("spec", "template", "spec"),
    ("apps", "StatefulSet"): ("spec", "template", "spec"),
    ("apps", "DaemonSet"): ("spec", "template", "spec"),
    ("batch", "Job"): ("spec", "template", "spec"),
    ("batch", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
    ("argoproj.io", "Rollout"): ("spec", "template", "spec"),
    ("apps.openshift.io", "DeploymentConfig"): ("spec", "template", "spec"),
}
# Fields only a PodSpec has: an unknown kind whose spec.template.spec holds one is judged as a
# workload even before it has containers (a template that only sets hostPID is still a pod's).
POD_SPEC_FIELDS = frozenset(
    {
        "containers",
        "initContainers",
        "ephemeralContainers",
        "hostPID",
        "hostIPC",
        "hostNetwork",
        "volumes",
        "serviceAccountName",
        "serviceAccount",
        "automountServiceAccountToken",
        "securityContext",
        "nodeSelector",
        "restartPolicy",
        "hostUsers",
        "shareProcessNamespace",
        "tolerations",
        "affinity",
        "priorityClassName",
    }
)
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


@dataclass(frozen=True)
class PodSpec:
    """A pod spec found in an object: its body, the path to it and the pod template's metadata."""

    spec: Mapping[str, Any]
    prefix: tuple[Segment, ...]
    metadata: Mapping[str, Any]
    metadata_prefix: tuple[Segment, ...]
    # what helpers derive from the spec, kept for the other rules that ask (the index shares one PodSpec)
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def path(self, *keys: str) -> str:
        return path_after(self.prefix_text, keys)

    def metadata_path(self, *keys: str) -> str:
        return path_after(self.metadata_prefix_text, keys)

    @cached
    def prefix_text(self) -> str:
        return format_path(self.prefix)

    @cached
    def metadata_prefix_text(self) -> str:
        return format_path(self.metadata_prefix)


@dataclass(frozen=True)
class Container:
    list_name: str  # containers, initContainers or ephemeralContainers
    name: str
    body: Mapping[str, Any]
    prefix: tuple[Segment, ...]
    # what helpers derive from the container, kept for the other rules that ask (as PodSpec's)
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def path(self, *keys: str) -> str:
        return path_after(self.prefix_text, keys)

    @cached
    def prefix_text(self) -> str:
        """`format_path(prefix)`, written once: the `[name=...]` segment costs a JSON read."""
        return format_path(self.prefix)

    @cached
    def label(self) -> str:
        kind = {"initContainers": "init container", "ephemeralContainers": "ephemeral container"}
        return f"{kind.get(self.list_name, 'container')} {self.name}"

    @cached
    def security_context(self) -> Mapping[str, Any]:
        """Read once for the many rules that look into it."""
        return as_map(self.body.get("securityContext"))


@functools.lru_cache(maxsize=8192)
def path_after(prefix_text: str, keys: tuple[str, ...]) -> str:
    """`extended_path` of a prefix and map keys; rules ask for the same few paths of every pod, and
    workloads share their prefixes (`spec.template.spec.containers[name=app]`)."""
    return extended_path(prefix_text, [KeySegment(key) for key in keys])


def extended_path(prefix_text: str, segments: Sequence[Segment]) -> str:
    """`format_path` of a prefix, given as its text, followed by `segments`."""
    tail = format_path(segments)
    if not prefix_text or not tail or tail.startswith("["):
        return prefix_text + tail
    return f"{prefix_text}.{tail}"


def pod_spec_of(obj: RenderedObject) -> PodSpec | None:
    """The pod spec of a workload object: known kinds, or any object whose spec.template.spec holds a
    field only a PodSpec has (containers or not)."""
    keys = POD_SPEC_KEYS.get((obj.key.group, obj.key.kind))
    if keys is None:
        template_spec = dig(obj.body, "spec", "template", "spec")
        if is_map(template_spec) and POD_SPEC_FIELDS.intersection(template_spec):
            keys = ("spec", "template", "spec")
    if keys is None:
        return None
    spec = dig(obj.body, *keys)
    if not is_map(spec):
        return None
    meta_keys = keys[:-1] + ("metadata",)
    return PodSpec(
        spec=spec,
        prefix=_segments(keys),
        metadata=as_map(dig(obj.body, *meta_keys)),
        metadata_prefix=_segments(meta_keys),
    )


@functools.lru_cache(maxsize=64)
def _segments(keys: tuple[str, ...]) -> tuple[KeySegment, ...]:
    """The path of keys as segments: the few pod spec paths are shared by every workload."""
    return tuple(KeySegment(key) for key in keys)


def containers_of(pod: PodSpec) -> Iterator[Container]:
    found = pod.derived.get("containers")
    if found is None:
        found = pod.derived["containers"] = tuple(
            Container(list_name, name, body, (*pod.prefix, KeySegment(list_name), segment))
            for list_name in CONTAINER_LISTS
            for segment, name, body in named_entries(pod.spec.get(list_name))
        )
    return iter(found)


def pod_security_context(pod: PodSpec) -> Mapping[str, Any]:
    found = pod.derived.get("securityContext")
    if found is None:  # read once for the many rules that look into it
        found = pod.derived["securityContext"] = as_map(pod.spec.get("securityContext"))
    return found


def volumes_of(pod: PodSpec) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """(path, name, volume) of each volume of the pod."""
    for segment, name, body in named_entries(pod.spec.get("volumes")):
        yield extended_path(pod.prefix_text, (KeySegment("volumes"), segment)), name, body


def is_windows_pod(pod: PodSpec) -> bool:
    return as_map(pod.spec.get("os")).get("name") == "windows"


def has_containers(pod: PodSpec) -> bool:
    return any(as_list(pod.spec.get(name)) for name in CONTAINER_LISTS)
