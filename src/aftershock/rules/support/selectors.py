"""Kubernetes label selectors, matched as the API server does (k8s.io/apimachinery labels.Selector):
`matchLabels` and `matchExpressions` (In, NotIn, Exists, DoesNotExist), or a plain map (a Service's
or a ReplicationController's selector). Hand-written for fidelity with apimachinery's semantics."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aftershock.rules.support.access import as_list, as_map, is_map, text


@dataclass(frozen=True)
class Selector:
    labels: tuple[tuple[str, str], ...]
    expressions: tuple[tuple[str, str, frozenset[str]], ...]  # (key, operator, values)

    @property
    def empty(self) -> bool:
        return not self.labels and not self.expressions

    def matches(self, labels: object) -> bool:
        """Whether `labels` (a label map; anything else has no labels) satisfies the selector."""
        got = {str(k): text(v) for k, v in as_map(labels).items()}
        if any(got.get(key) != value for key, value in self.labels):
            return False
        return all(
            _expression(got, key, operator, values) for key, operator, values in self.expressions
        )

    def describe(self) -> str:
        parts = [f"{k}={v}" for k, v in self.labels]
        parts += [
            f"{k} {op} ({','.join(sorted(v))})" if v else f"{k} {op}"
            for k, op, v in self.expressions
        ]
        return ", ".join(parts) or "(everything)"


def _expression(labels: dict[str, str], key: str, operator: str, values: frozenset[str]) -> bool:
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return False  # the API server rejects other operators


def label_selector(value: Any) -> Selector | None:
    """A metav1.LabelSelector (matchLabels/matchExpressions); None when absent or not a map."""
    if not is_map(value):
        return None
    labels = tuple(sorted((str(k), text(v)) for k, v in as_map(value.get("matchLabels")).items()))
    expressions = tuple(
        (
            text(e.get("key")),
            text(e.get("operator")),
            frozenset(text(v) for v in as_list(e.get("values"))),
        )
        for e in map(as_map, as_list(value.get("matchExpressions")))
    )
    return Selector(labels, expressions)


def map_selector(value: Any) -> Selector | None:
    """A plain label map used as a selector (Service, ReplicationController, DeploymentConfig)."""
    if not is_map(value):
        return None
    return Selector(tuple(sorted((str(k), text(v)) for k, v in value.items())), ())


def workload_selector(body: Mapping[str, Any]) -> Selector | None:
    """spec.selector of a workload: a LabelSelector when it has matchLabels/matchExpressions, else a map."""
    value = as_map(body.get("spec")).get("selector")
    if is_map(value) and ("matchLabels" in value or "matchExpressions" in value):
        return label_selector(value)
    return map_selector(value)


def object_selector(obj_kind: str, body: Mapping[str, Any]) -> tuple[str, Selector | None]:
    """The field and the selector by which an object of `obj_kind` picks pods (or Services): a
    Service's map, a NetworkPolicy's `podSelector`, the LabelSelector of a PodDisruptionBudget,
    PodMonitor or ServiceMonitor; ("", None) for other kinds."""
    spec = as_map(body.get("spec"))
    if obj_kind == "Service":
        return "spec.selector", map_selector(spec.get("selector"))
    if obj_kind == "NetworkPolicy":
        return "spec.podSelector", label_selector(spec.get("podSelector"))
    if obj_kind in ("PodDisruptionBudget", "PodMonitor", "ServiceMonitor"):
        return "spec.selector", label_selector(spec.get("selector"))
    return "", None
