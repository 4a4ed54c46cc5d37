"""Rule rbac-cluster-admin-binding: a binding grants the cluster-admin ClusterRole."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.rbac.wildcard import RBAC_REFERENCE
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.rbac import BINDINGS, is_binding, role_ref

ADMIN_ROLES = ("cluster-admin",)


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    if not is_binding(obj):
        return
    kind, name = role_ref(obj)
    if kind != "ClusterRole" or name not in ADMIN_ROLES:
        return
    subjects = frozenset(
        f"{text(as_map(s).get('kind'))} {text(as_map(s).get('namespace')) + '/' if as_map(s).get('namespace') else ''}{text(as_map(s).get('name'))}"
        for s in as_list(obj.body.get("subjects"))
    )
    cluster = obj.key.kind == "ClusterRoleBinding"
    where = "across the cluster" if cluster else f"in namespace {obj.key.namespace}"
    yield Issue(
        facet=name,
        message=f"grants {name} {where} to {', '.join(sorted(subjects)) or 'no subject'}",
        field="roleRef.name",
        tokens=(name,),
        items=subjects,
        severity=None if cluster else Severity.HIGH,
        facts=(Fact("role", name), Fact("subjects", sorted(subjects))),
        summary=f"{name} to {', '.join(sorted(subjects))}",
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_objects(ctx, issues, kinds=BINDINGS)


RULE = Rule(
    id="rbac-cluster-admin-binding",
    title="cluster-admin binding",
    category=Category.SECURITY,
    severity=Severity.CRITICAL,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(RBAC_REFERENCE,),
    doc=RuleDoc(
        what="ClusterRoleBindings (critical) and RoleBindings (high) whose `roleRef` is the ClusterRole "
        "`cluster-admin`. New subjects are a widening.",
        why="cluster-admin can do everything on every resource; bound cluster-wide, its subjects own the "
        "cluster, and a compromised pod using such a service account owns it too.",
        example="    kind: ClusterRoleBinding\n    roleRef:\n      apiGroup: rbac.authorization.k8s.io\n      kind: ClusterRole\n      name: cluster-admin",
        fix="Write a role with the permissions the subject needs and bind that; keep cluster-admin for "
        "break-glass human access.",
    ),
)
