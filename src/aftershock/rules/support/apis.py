"""Kubernetes API versions deprecated or removed, from the Kubernetes deprecated API migration guide.

Source: https://kubernetes.io/docs/reference/using-api/deprecation-guide/ . Each entry is
(apiVersion, kind, deprecated in, removed in, replacement apiVersion).
"""

from __future__ import annotations

from dataclasses import dataclass

DEPRECATION_GUIDE = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"


@dataclass(frozen=True)
class ApiRetirement:
    api_version: str
    kind: str
    deprecated: tuple[int, int]
    removed: tuple[int, int] | None
    replacement: str


_V = tuple[int, int]


def _entries() -> list[tuple[str, tuple[str, ...], _V, _V | None, str]]:
    return [
        (
            "extensions/v1beta1",
            ("Deployment", "DaemonSet", "ReplicaSet"),
            (1, 9),
            (1, 16),
            "apps/v1",
        ),
        ("apps/v1beta1", ("Deployment", "StatefulSet", "ReplicaSet"), (1, 9), (1, 16), "apps/v1"),
        (
            "apps/v1beta2",
            ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"),
            (1, 9),
            (1, 16),
            "apps/v1",
        ),
        ("extensions/v1beta1", ("NetworkPolicy",), (1, 9), (1, 16), "networking.k8s.io/v1"),
        ("extensions/v1beta1", ("PodSecurityPolicy",), (1, 10), (1, 16), "policy/v1beta1"),
        ("extensions/v1beta1", ("Ingress",), (1, 14), (1, 22), "networking.k8s.io/v1"),
        (
            "networking.k8s.io/v1beta1",
            ("Ingress", "IngressClass"),
            (1, 19),
            (1, 22),
            "networking.k8s.io/v1",
        ),
        (
            "admissionregistration.k8s.io/v1beta1",
            ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"),
            (1, 16),
            (1, 22),
            "admissionregistration.k8s.io/v1",
        ),
        (
            "apiextensions.k8s.io/v1beta1",
            ("CustomResourceDefinition",),
            (1, 16),
            (1, 22),
            "apiextensions.k8s.io/v1",
        ),
        (
            "apiregistration.k8s.io/v1beta1",
            ("APIService",),
            (1, 19),
            (1, 22),
            "apiregistration.k8s.io/v1",
        ),
        (
            "authentication.k8s.io/v1beta1",
            ("TokenReview",),
            (1, 19),
            (1, 22),
            "authentication.k8s.io/v1",
        ),
        (
            "authorization.k8s.io/v1beta1",
            ("SubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectAccessReview"),
            (1, 19),
            (1, 22),
            "authorization.k8s.io/v1",
        ),
        (
            "certificates.k8s.io/v1beta1",
            ("CertificateSigningRequest",),
            (1, 19),
            (1, 22),
            "certificates.k8s.io/v1",
        ),
        ("coordination.k8s.io/v1beta1", ("Lease",), (1, 19), (1, 22), "coordination.k8s.io/v1"),
        (
            "rbac.authorization.k8s.io/v1beta1",
            ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"),
            (1, 17),
            (1, 22),
            "rbac.authorization.k8s.io/v1",
        ),
        ("scheduling.k8s.io/v1beta1", ("PriorityClass",), (1, 14), (1, 22), "scheduling.k8s.io/v1"),
        (
            "storage.k8s.io/v1beta1",
            ("CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"),
            (1, 19),
            (1, 22),
            "storage.k8s.io/v1",
        ),
        ("batch/v1beta1", ("CronJob",), (1, 21), (1, 25), "batch/v1"),
        ("discovery.k8s.io/v1beta1", ("EndpointSlice",), (1, 21), (1, 25), "discovery.k8s.io/v1"),
        ("events.k8s.io/v1beta1", ("Event",), (1, 21), (1, 25), "events.k8s.io/v1"),
        ("autoscaling/v2beta1", ("HorizontalPodAutoscaler",), (1, 22), (1, 25), "autoscaling/v2"),
        ("policy/v1beta1", ("PodDisruptionBudget",), (1, 21), (1, 25), "policy/v1"),
        (
            "policy/v1beta1",
            ("PodSecurityPolicy",),
            (1, 21),
            (1, 25),
            "Pod Security Admission (no replacement kind)",
        ),
        ("node.k8s.io/v1beta1", ("RuntimeClass",), (1, 20), (1, 25), "node.k8s.io/v1"),
        (
            "flowcontrol.apiserver.k8s.io/v1beta1",
            ("FlowSchema", "PriorityLevelConfiguration"),
            (1, 23),
            (1, 26),
            "flowcontrol.apiserver.k8s.io/v1",
        ),
        ("autoscaling/v2beta2", ("HorizontalPodAutoscaler",), (1, 23), (1, 26), "autoscaling/v2"),
        ("storage.k8s.io/v1beta1", ("CSIStorageCapacity",), (1, 24), (1, 27), "storage.k8s.io/v1"),
        (
            "flowcontrol.apiserver.k8s.io/v1beta2",
            ("FlowSchema", "PriorityLevelConfiguration"),
            (1, 26),
            (1, 29),
            "flowcontrol.apiserver.k8s.io/v1",
        ),
        (
            "flowcontrol.apiserver.k8s.io/v1beta3",
            ("FlowSchema", "PriorityLevelConfiguration"),
            (1, 29),
            (1, 32),
            "flowcontrol.apiserver.k8s.io/v1",
        ),
        ("v1", ("Endpoints",), (1, 33), None, "discovery.k8s.io/v1 EndpointSlice"),
    ]


RETIREMENTS: dict[tuple[str, str], ApiRetirement] = {
    (api, kind): ApiRetirement(api, kind, deprecated, removed, replacement)
    for api, kinds, deprecated, removed, replacement in _entries()
    for kind in kinds
}


def retirement(api_version: str, kind: str) -> ApiRetirement | None:
    return RETIREMENTS.get((api_version, kind))
