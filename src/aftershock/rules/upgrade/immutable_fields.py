"""Rule immutable-field-changed: the change edits a field Kubernetes refuses to update in place."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.diff.paths import KeySegment, parse_path
from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.diff import FieldChange, ObjectChangeKind
from aftershock.model.objects import ObjectKey
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.hooks import recreated_hook
from aftershock.rules.support.index import ObjectPair

STATEFULSET_MUTABLE = (
    "replicas",
    "template",
    "updateStrategy",
    "ordinals",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
)


def _keys(change: FieldChange) -> tuple[str, ...]:
    return tuple(s.key if isinstance(s, KeySegment) else "[]" for s in parse_path(change.path))


def immutable_part(
    key: ObjectKey, keys: tuple[str, ...], change: FieldChange, pair: ObjectPair
) -> str | None:
    """The immutable field a change touches, or None when the change is allowed."""
    kind = (key.group, key.kind)
    if kind in (("apps", "Deployment"), ("apps", "DaemonSet"), ("apps", "ReplicaSet")) and keys[
        :2
    ] == ("spec", "selector"):
        return "spec.selector"
    if (
        kind == ("apps", "StatefulSet")
        and keys[:1] == ("spec",)
        and len(keys) > 1
        and keys[1] not in STATEFULSET_MUTABLE
    ):
        return f"spec.{keys[1]}"
    if kind == ("batch", "Job") and keys[:2] in (("spec", "selector"), ("spec", "template")):
        return f"spec.{keys[1]}"
    if kind == ("", "Service"):
        if keys[:2] in (("spec", "clusterIP"), ("spec", "clusterIPs")) and change.before not in (
            None,
            "",
        ):
            return f"spec.{keys[1]}"
        if keys[:2] == ("spec", "loadBalancerClass") and change.before is not None:
            return "spec.loadBalancerClass"
    if kind == ("", "PersistentVolumeClaim") and keys[:1] == ("spec",) and len(keys) > 1:
        return (
            None
            if _storage_growth(keys, change) or keys[1] == "volumeAttributesClassName"
            else f"spec.{keys[1]}"
        )
    if kind in (
        ("rbac.authorization.k8s.io", "RoleBinding"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ) and keys[:1] == ("roleRef",):
        return "roleRef"
    if kind in (("", "Secret"), ("", "ConfigMap")) and keys[:1] in (
        ("data",),
        ("stringData",),
        ("binaryData",),
    ):
        return (
            keys[0] if pair.base is not None and pair.base.body.get("immutable") is True else None
        )
    return None


def _storage_growth(keys: tuple[str, ...], change: FieldChange) -> bool:
    if keys != ("spec", "resources", "requests", "storage"):
        return False
    return _quantity(change.after) > _quantity(change.before) >= 0


_UNITS = {
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
}


def _quantity(value: object) -> float:
    """Bytes of a storage quantity such as 10Gi or 500M; -1 when it cannot be read."""
    text = str(value or "").strip()
    for unit in sorted(_UNITS, key=len, reverse=True):
        if text.endswith(unit):
            try:
                return float(text[: -len(unit)]) * _UNITS[unit]
            except ValueError:
                return -1
    try:
        return float(text)
    except ValueError:
        return -1


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if pair.change is None or pair.change.kind is not ObjectChangeKind.CHANGED:
            continue
        if pair.base is not None and pair.head is not None and recreated_hook(pair.base):
            continue  # Helm deletes the old hook and creates the new one: nothing is updated
        touched: dict[str, list[str]] = {}
        for change in pair.change.fields:
            part = immutable_part(pair.key, _keys(change), change, pair)
            if part is not None:
                touched.setdefault(part, []).append(change.path)
        for part, paths in sorted(touched.items()):
            yield Concern(
                subject=pair.subject(part),
                delta=Delta.INTRODUCED,
                message=f"{pair.display}: the change edits {part}, which Kubernetes does not allow to change; "
                f'`helm upgrade` fails with "field is immutable" ({", ".join(paths[:3])}{" …" if len(paths) > 3 else ""})',
                location=ctx.index.locate_object(
                    pair,
                    tuple(p.rsplit(".", 1)[-1].split("[")[0] for p in paths)
                    + (part.rsplit(".", 1)[-1],),
                    in_change=True,
                ),
                path=pair.impact_path(paths[0], "changes"),
                facts=(Fact("field", part), Fact("paths", paths)),
                scope_paths=pair.scope_paths,
            )


RULE = Rule(
    id="immutable-field-changed",
    title="Immutable field changed",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Changes, on an object that keeps its name, to: `spec.selector` of Deployments, DaemonSets and "
        "ReplicaSets; any StatefulSet `spec` field but replicas, template, updateStrategy, ordinals, "
        "persistentVolumeClaimRetentionPolicy and minReadySeconds; Job `spec.template` and `spec.selector`; a "
        "Service's set `spec.clusterIP`/`clusterIPs` and `loadBalancerClass`; PersistentVolumeClaim `spec` "
        "except a storage request that grows (and volumeAttributesClassName); RoleBinding/ClusterRoleBinding "
        "`roleRef`; and the data of a ConfigMap or Secret marked `immutable: true`. Helm hooks (`helm.sh/hook`) that "
        "Helm deletes before creating them again or once they succeed (`helm.sh/hook-delete-policy` "
        "before-hook-creation, Helm's default, or hook-succeeded) are left out: no old copy is updated.",
        why="The API server rejects the update, so `helm upgrade` fails for every existing release (fresh "
        "installs still work, which is why this passes CI). Selector labels are the usual culprit: a label "
        "added to the common labels also lands in the selector.",
        example='    spec:\n      selector:\n        matchLabels:\n          app.kubernetes.io/name: orders\n    +     app.kubernetes.io/version: "2.0"',
        fix="Keep the field as it was (separate selector labels from common labels), or rename the object so "
        "it is replaced, and plan the data or traffic migration that replacement implies.",
    ),
)
