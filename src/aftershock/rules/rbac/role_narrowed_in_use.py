"""Rule rbac-role-narrowed-in-use: a role loses permissions while a workload runs as a service
account bound to it."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.rbac.role_widened import MAX_LISTED, permission_text
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.rbac import (
    ROLES,
    covered,
    is_binding,
    permissions,
    policy_rules,
)

SERVICE_ACCOUNT_FIELDS = ("serviceAccountName", "serviceAccount")


def bound_accounts(
    objects: tuple[RenderedObject, ...], role: RenderedObject
) -> set[tuple[str, str]]:
    """(namespace, name) of the service accounts a binding of the render binds to `role`."""
    found = set()
    for binding in objects:
        if not is_binding(binding):
            continue
        ref = as_map(binding.body.get("roleRef"))
        if text(ref.get("kind")) != role.key.kind or text(ref.get("name")) != role.key.name:
            continue
        for subject in map(as_map, as_list(binding.body.get("subjects"))):
            if text(subject.get("kind")) == "ServiceAccount":
                namespace = text(subject.get("namespace")) or binding.key.namespace
                found.add((namespace, text(subject.get("name"))))
    return found


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs_of(ROLES):
        if pair.base is None or pair.head is None or pair.change is None:
            continue
        before = permissions(policy_rules(pair.base))
        after = permissions(policy_rules(pair.head))
        lost = sorted(p for p in before if not covered(after, frozenset({p})))
        if not lost:
            continue
        heads = pair.chart.head_objects
        accounts = bound_accounts(heads, pair.head)
        users = [
            o
            for o in heads
            if (pod := ctx.index.pod_spec(o)) is not None
            and (o.key.namespace, _account(pod.spec)) in accounts
        ]
        if not users:
            continue
        listed = ", ".join(permission_text(p) for p in lost[:MAX_LISTED]) + (
            f" and {len(lost) - MAX_LISTED} more" if len(lost) > MAX_LISTED else ""
        )
        names = ", ".join(str(o.key) for o in users[:3])
        yield Concern(
            subject=pair.subject("narrowed-in-use"),
            message=f"{pair.display} no longer grants {listed}, and {names} run"
            f"{'s' if len(users) == 1 else ''} as a service account bound to it: the API calls "
            "that need it are refused from the rollout on",
            delta=Delta.INTRODUCED,
            facts=(Fact("lost", [permission_text(p) for p in lost]), Fact("workloads", names)),
            location=ctx.index.locate_object(pair, ("verbs", "resources"), in_change=True),
            path=pair.impact_path("rules"),
            scope_paths=pair.scope_paths,
        )


def _account(spec: object) -> str:
    spec = as_map(spec)
    for field in SERVICE_ACCOUNT_FIELDS:
        if text(spec.get(field)):
            return text(spec.get(field))
    return "default"


RULE = Rule(
    id="rbac-role-narrowed-in-use",
    title="Role loses permissions a workload's account holds",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="A Role or ClusterRole that grants less at head than at base (compared as permissions), bound "
        "by a RoleBinding or ClusterRoleBinding of the same render to a service account that a workload "
        "of the render runs as. Inferred: whether the workload calls what it lost is not observed.",
        why="Tightening a role is good practice until the workload still needs the permission: its calls "
        "fail with 403 after the rollout, often in a code path (leader election, a watch) that only "
        "breaks later.",
        example="    rules:\n      - apiGroups: [coordination.k8s.io]\n        resources: [leases]\n"
        "        verbs: [get, list]   # update removed: leader election fails",
        fix="Keep what the workload calls (its docs or its audit log say), or drop the calls in the same change.",
    ),
)
