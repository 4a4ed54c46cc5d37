"""PodDisruptionBudgets and what they cover: the workloads they select, their replicas and autoscalers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from aftershock.model.objects import RenderedObject
from aftershock.rules.support.access import as_map, text
from aftershock.rules.support.ports import port_number
from aftershock.rules.support.release import ReleaseObjects
from aftershock.rules.support.selectors import label_selector

REPLICATED = frozenset(
    {
        "Deployment",
        "StatefulSet",
        "ReplicaSet",
        "ReplicationController",
        "DeploymentConfig",
        "Rollout",
    }
)
AUTOSCALERS = (
    ("HorizontalPodAutoscaler", "minReplicas", 1),
    ("ScaledObject", "minReplicaCount", 0),
)


@dataclass(frozen=True)
class Covered:
    """A replicated workload a budget selects, with its replicas and the autoscaler's minimum if one scales it."""

    workload: RenderedObject
    replicas: int
    autoscaler: str | None  # "HorizontalPodAutoscaler hpa1"
    min_replicas: int | None


def budget(obj: RenderedObject) -> tuple[Any, Any]:
    spec = as_map(obj.body.get("spec"))
    return spec.get("minAvailable"), spec.get("maxUnavailable")


def min_available_count(obj: RenderedObject) -> int | None:
    """The budget's `minAvailable` when it is a number of pods and `maxUnavailable` is unset (which the API
    rejects alongside it), the only form compared with replica counts; else None."""
    min_available, max_unavailable = budget(obj)
    return port_number(min_available) if max_unavailable is None else None


def covered(pdb: RenderedObject, release: ReleaseObjects) -> Iterator[Covered]:
    selector = label_selector(as_map(pdb.body.get("spec")).get("selector"))
    if selector is None or selector.empty:
        return
    for template in release.selected_pods(selector, pdb.key.namespace):
        obj = template.workload
        if obj.key.kind not in REPLICATED:
            continue
        replicas = as_map(obj.body.get("spec")).get("replicas", 1)
        scaler = _autoscaler(obj, release)
        yield Covered(obj, replicas if port_number(replicas) is not None else 1, *scaler)


def _autoscaler(workload: RenderedObject, release: ReleaseObjects) -> tuple[str | None, int | None]:
    for kind, field, default in AUTOSCALERS:
        for scaler in release.of_kind(kind):
            spec = as_map(scaler.body.get("spec"))
            target = as_map(spec.get("scaleTargetRef"))
            if (
                scaler.key.namespace == workload.key.namespace
                and text(target.get("name")) == workload.key.name
                and text(target.get("kind")) in ("", workload.key.kind)
            ):
                minimum = spec.get(field, default)
                return f"{kind} {scaler.key.name}", minimum if port_number(
                    minimum
                ) is not None else default
    return None, None


def percent(value: Any) -> int | None:
    """The percentage of an "NN%" IntOrString; None for a number or anything else."""
    if isinstance(value, str) and value.endswith("%") and value[:-1].strip().isdigit():
        return int(value[:-1])
    return None
