"""What a change of a field of a common operator resource does: a small table the rules read.

Each entry names a kind (API group and kind), a field (keys from the object's root), when its change
matters (a test of the value at base and at head; `None` when the object or the field is absent
there), how much, and the consequence in words a reviewer would use; only a few matter when the
change creates the object (a new default StorageClass), the rest only when it changes one (a new
Kustomization that prunes has pruned nothing yet). Not a rule per kind: the rule
`field-consequence` reads every entry, and a new entry is one line here.

Sources: the projects' own documentation of each field (cert-manager Certificate and Issuer,
Prometheus operator, Flux Kustomization and HelmRelease, Cluster API MachineDeployment and
KubeadmControlPlane, Kubernetes StorageClass, MetalLB IPAddressPool, Calico IPPool).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aftershock.findings.model import Severity

Test = Callable[[Any, Any], bool]  # (value at base, value at head) -> whether the change matters


def changed(before: Any, after: Any) -> bool:
    """Set at both refs, to different values."""
    return before is not None and after is not None and before != after


def turned_on(before: Any, after: Any) -> bool:
    return _true(after) and not _true(before)


def became(value: str) -> Test:
    return lambda before, after: str(after) == value and str(before) != value


def set_at_head(before: Any, after: Any) -> bool:
    return after is not None and before != after


def _true(value: Any) -> bool:
    return value is True or str(value).lower() == "true"


@dataclass(frozen=True)
class FieldMeaning:
    group: str  # API group; "" for the core group
    kind: str
    field: tuple[str, ...]  # keys from the object's root
    matters: Test
    severity: Severity
    consequence: str  # what follows, said after "<field> changes: "
    on_create: bool = False  # whether it matters for an object the change adds (else only a change)


DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"

MEANINGS: tuple[FieldMeaning, ...] = (
    FieldMeaning(
        "storage.k8s.io",
        "StorageClass",
        ("metadata", "annotations", DEFAULT_CLASS),
        turned_on,
        Severity.HIGH,
        "a new default StorageClass: every claim without storageClassName binds to it, and with two "
        "defaults the cluster picks one of them",
        on_create=True,
    ),
    FieldMeaning(
        "storage.k8s.io",
        "StorageClass",
        ("reclaimPolicy",),
        became("Delete"),
        Severity.HIGH,
        "the volumes of new claims are deleted with their claims",
    ),
    FieldMeaning(
        "storage.k8s.io",
        "StorageClass",
        ("parameters",),
        changed,
        Severity.HIGH,
        "a StorageClass's parameters are immutable: the apply fails unless the class is deleted and "
        "created again, and existing volumes keep the old parameters",
    ),
    FieldMeaning(
        "cert-manager.io",
        "Certificate",
        ("spec", "secretName"),
        changed,
        Severity.MEDIUM,
        "the certificate is issued into another Secret; whatever mounts the old one keeps the old "
        "certificate until it expires",
    ),
    FieldMeaning(
        "cert-manager.io",
        "Certificate",
        ("spec", "issuerRef"),
        changed,
        Severity.MEDIUM,
        "the certificate is issued again by another issuer: clients that pin the old CA reject it",
    ),
    FieldMeaning(
        "cert-manager.io",
        "ClusterIssuer",
        ("spec", "acme", "server"),
        changed,
        Severity.MEDIUM,
        "certificates are now issued by another ACME endpoint (staging and production differ in trust)",
    ),
    FieldMeaning(
        "kustomize.toolkit.fluxcd.io",
        "Kustomization",
        ("spec", "prune"),
        turned_on,
        Severity.HIGH,
        "Flux now deletes every object this Kustomization applied and no longer renders, those left "
        "behind by earlier changes included",
    ),
    FieldMeaning(
        "kustomize.toolkit.fluxcd.io",
        "Kustomization",
        ("spec", "targetNamespace"),
        changed,
        Severity.HIGH,
        "every object it applies moves to another namespace: created there, and pruned from the old "
        "one (state such as volumes does not move)",
    ),
    FieldMeaning(
        "helm.toolkit.fluxcd.io",
        "HelmRelease",
        ("spec", "releaseName"),
        changed,
        Severity.HIGH,
        "Helm installs a new release and uninstalls the old one: every object is deleted and created "
        "again, claims of StatefulSets included",
    ),
    FieldMeaning(
        "helm.toolkit.fluxcd.io",
        "HelmRelease",
        ("spec", "targetNamespace"),
        changed,
        Severity.HIGH,
        "the release is installed again in another namespace and the old one uninstalled",
    ),
    FieldMeaning(
        "cluster.x-k8s.io",
        "MachineDeployment",
        ("spec", "template", "spec"),
        changed,
        Severity.MEDIUM,
        "every machine of the MachineDeployment is replaced, in rolling batches",
    ),
    FieldMeaning(
        "controlplane.cluster.x-k8s.io",
        "KubeadmControlPlane",
        ("spec", "version"),
        changed,
        Severity.MEDIUM,
        "the control plane is upgraded, one machine at a time; workers must follow within one minor",
    ),
    FieldMeaning(
        "metallb.io",
        "IPAddressPool",
        ("spec", "serviceAllocation", "namespaces"),
        set_at_head,
        Severity.MEDIUM,
        "every LoadBalancer Service of those namespaces may take an address from this pool, not only "
        "the ones meant for it (no service selector narrows it)",
        on_create=True,
    ),
    FieldMeaning(
        "crd.projectcalico.org",
        "IPPool",
        ("spec", "cidr"),
        changed,
        Severity.HIGH,
        "running pods keep addresses from the old range, outside the pool; routes and policies that "
        "name the range break until they restart",
    ),
)
