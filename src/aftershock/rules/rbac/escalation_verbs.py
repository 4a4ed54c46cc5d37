"""Rule rbac-escalation-verbs: a role grants bind, escalate or impersonate."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.rbac.wildcard import RBAC_REFERENCE
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.rbac import RBAC_GROUP, ROLES, allowed_verbs, policy_rules

# verb -> the (group, resource) pairs it is checked on
TARGETS = {
    "bind": ((RBAC_GROUP, "roles"), (RBAC_GROUP, "clusterroles")),
    "escalate": ((RBAC_GROUP, "roles"), (RBAC_GROUP, "clusterroles")),
    "impersonate": (
        ("", "users"),
        ("", "groups"),
        ("", "serviceaccounts"),
        ("authentication.k8s.io", "uids"),
        ("authentication.k8s.io", "userextras/scopes"),
    ),
}


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    rules = ctx.index.per_object("policy rules", obj, policy_rules)
    if not rules:
        return
    for verb, targets in TARGETS.items():
        on = frozenset(
            resource
            for group, resource in targets
            if allowed_verbs(rules, group, resource, (verb,))
        )
        if on:
            listed = ", ".join(sorted(on))
            yield Issue(
                facet=verb,
                message=f"grants {verb} on {listed}",
                field="rules",
                tokens=(verb, "*"),
                items=on,
                facts=(Fact("verb", verb), Fact("resources", sorted(on))),
                summary=f"{verb} on {listed}",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_objects(ctx, issues, kinds=ROLES)


RULE = Rule(
    id="rbac-escalation-verbs",
    title="RBAC bind, escalate or impersonate",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(RBAC_REFERENCE,),
    doc=RuleDoc(
        what="Roles and ClusterRoles that allow `bind` or `escalate` on roles/clusterroles, or `impersonate` on "
        "users, groups, service accounts, uids or user extras, directly or through `*` verbs, resources or "
        "groups. One finding per verb; more resources is a widening.",
        why="`escalate` lets a subject write roles with permissions it does not hold, `bind` lets it bind any "
        "role (cluster-admin included) to itself, and `impersonate` lets it act as any user or group: each is "
        "a direct path to full control of the cluster.",
        example='    rules:\n      - apiGroups: ["rbac.authorization.k8s.io"]\n        resources: ["clusterroles"]\n        verbs: ["bind", "escalate"]',
        fix="Remove the verb. Operators that must create bindings should be limited with `resourceNames` to the "
        "roles they manage; impersonation belongs to a few audited platform identities.",
    ),
)
