"""Rule helm-hook-dependency: a pre-install or pre-upgrade hook needs an object the release has not created yet."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, dig, text
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.pods import PodSpec, containers_of, pod_spec_of

HOOK_ANNOTATION = "helm.sh/hook"
_NO_HOOKS: frozenset[str] = frozenset()


def hooks(obj: RenderedObject) -> frozenset[str]:
    value = text(as_map(dig(obj.body, "metadata", "annotations")).get(HOOK_ANNOTATION))
    if not value:
        return _NO_HOOKS  # most objects are no hook
    return frozenset(part.strip() for part in value.split(",") if part.strip())


def references(pod: PodSpec, namespace: str) -> set[tuple[str, str, str]]:
    """(kind, namespace, name) of the ServiceAccount, ConfigMaps, Secrets and claims a pod needs to start."""
    found: set[tuple[str, str, str]] = set()
    account = text(pod.spec.get("serviceAccountName"))
    if account:
        found.add(("ServiceAccount", namespace, account))
    for volume in map(as_map, as_list(pod.spec.get("volumes"))):
        _optional_ref(found, "ConfigMap", namespace, as_map(volume.get("configMap")), "name")
        _optional_ref(found, "Secret", namespace, as_map(volume.get("secret")), "secretName")
        claim = text(dig(volume, "persistentVolumeClaim", "claimName"))
        if claim:
            found.add(("PersistentVolumeClaim", namespace, claim))
    for container in containers_of(pod):
        for source in map(as_map, as_list(container.body.get("envFrom"))):
            _optional_ref(found, "ConfigMap", namespace, as_map(source.get("configMapRef")), "name")
            _optional_ref(found, "Secret", namespace, as_map(source.get("secretRef")), "name")
        for env in map(as_map, as_list(container.body.get("env"))):
            _optional_ref(
                found,
                "ConfigMap",
                namespace,
                as_map(dig(env, "valueFrom", "configMapKeyRef")),
                "name",
            )
            _optional_ref(
                found, "Secret", namespace, as_map(dig(env, "valueFrom", "secretKeyRef")), "name"
            )
    return found


def _optional_ref(
    found: set[tuple[str, str, str]], kind: str, namespace: str, ref: Mapping[str, Any], field: str
) -> None:
    if ref and text(ref.get(field)) and ref.get("optional") is not True:
        found.add((kind, namespace, text(ref.get(field))))


def _release_objects(objects: Sequence[RenderedObject]) -> set[tuple[str, str, str]]:
    """Objects the release itself creates (not hooks), as (kind, namespace, name)."""
    return {
        (o.key.kind, o.key.namespace, o.key.name)
        for o in objects
        if o.key.group == "" and not hooks(o)
    }


def _waiting_on(pair: ObjectPair, phase: str) -> list[str]:
    head = pair.head
    pod = pod_spec_of(head) if head is not None else None
    if head is None or pod is None:
        return []
    needed = references(pod, head.key.namespace)
    created_now = _release_objects(pair.chart.head_objects)
    if phase == "pre-upgrade":
        created_now -= _release_objects(
            pair.chart.base_objects
        )  # objects from the previous release exist already
    return sorted(f"{kind} {name}" for kind, _, name in needed & created_now)


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if pair.head is None:
            continue
        phases = [phase for phase in ("pre-install", "pre-upgrade") if phase in hooks(pair.head)]
        for phase in phases:
            waiting = _waiting_on(pair, phase)
            if not waiting:
                continue
            base_waiting = (
                _waiting_on(ObjectPair(pair.chart, pair.base, pair.base, None), phase)
                if pair.base
                else []
            )
            delta = (
                Delta.PRE_EXISTING
                if pair.unchanged or (phase == "pre-install" and base_waiting == waiting)
                else Delta.INTRODUCED
            )
            when = "an install" if phase == "pre-install" else "the upgrade that introduces them"
            yield Concern(
                subject=pair.subject(phase),
                delta=delta,
                message=f"{pair.display} is a {phase} hook that needs {', '.join(waiting)}, which the release only "
                f"creates after its pre hooks: {when} waits until the hook times out and fails",
                location=ctx.index.locate_object(
                    pair,
                    tuple(w.split(" ", 1)[1] for w in waiting) + ("helm.sh/hook",),
                    in_change=delta is Delta.INTRODUCED,
                ),
                path=pair.impact_path('metadata.annotations["helm.sh/hook"]', "declares"),
                facts=(Fact("phase", phase), Fact("needs", waiting)),
                scope_paths=pair.scope_paths,
            )


RULE = Rule(
    id="helm-hook-dependency",
    title="Helm hook waits for the release it runs before",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Pods and workloads annotated `helm.sh/hook: pre-install` whose pod needs (service account, "
        "non-optional ConfigMap or Secret volumes and env references, claims) an object that the same chart "
        "creates as a normal (non-hook) resource; and `pre-upgrade` hooks that need such an object added by this "
        "change. Medium confidence: the object may also exist already, created outside the release.",
        why="Helm creates normal resources only after the pre-install/pre-upgrade hooks succeed, so the hook pod "
        "cannot start (CreateContainerConfigError, FailedMount, or no service account) and the install blocks "
        "until its timeout, then fails; the pods are never created.",
        example="    metadata:\n      annotations:\n        helm.sh/hook: pre-install\n    spec:\n      template:\n        spec:\n          serviceAccountName: migrations   # created by templates/serviceaccount.yaml",
        fix="Make the needed objects hooks too, with a lower `helm.sh/hook-weight` than the job, or run the step "
        "as a post-install hook or an init container.",
    ),
)
