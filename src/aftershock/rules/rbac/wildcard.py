"""Rule rbac-wildcard: a role grants `*` verbs, resources or API groups."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.rbac import ROLES, permissions, policy_rules

RBAC_REFERENCE = "https://kubernetes.io/docs/concepts/security/rbac-good-practices/"


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    wild = [
        rule
        for rule in ctx.index.per_object("policy rules", obj, policy_rules)
        if "*" in rule.verbs or "*" in rule.resources or "*" in rule.api_groups
    ]
    if not wild:
        return
    described = frozenset(rule.describe for rule in wild)
    # every verb on every resource of every group, not limited to named objects: all cluster-admin holds
    # over the API (in a Role, over its namespace only)
    everything = any(
        "*" in r.verbs and "*" in r.resources and "*" in r.api_groups and not r.resource_names
        for r in wild
    )
    admin = everything and obj.key.kind == "ClusterRole"
    severity = Severity.CRITICAL if admin else None
    equivalent = " (every verb on every resource: equivalent to cluster-admin)" if admin else ""
    yield Issue(
        facet="wildcard",
        message=f"grants wildcards: {'; '.join(sorted(described))}{equivalent}",
        field="rules",
        tokens=("'*'", '"*"', "*"),
        items=described,
        grade=2 if everything else 1,
        severity=severity,
        facts=(Fact("rules", sorted(described)),),
        summary="; ".join(sorted(described)),
        grants=permissions(wild),
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_objects(ctx, issues, kinds=ROLES)


RULE = Rule(
    id="rbac-wildcard",
    title="RBAC wildcard",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(RBAC_REFERENCE,),
    doc=RuleDoc(
        what="Role and ClusterRole rules with `*` in `verbs`, `resources` or `apiGroups`. A ClusterRole with "
        "`*` in all three and no `resourceNames` is graded critical and called equivalent to cluster-admin; "
        "any other wildcard is not (a Role's is limited to its namespace, `resourceNames` to named objects). "
        "Base and head are compared as permission sets (verbs × resources × API groups, `*` covering any "
        "value): a wildcard rule granting more is a widening, one granting less (`*` replaced by a list) a narrowing.",
        why="A wildcard grants every verb or resource that exists now and every one added later, including "
        "custom resources and subresources such as pods/exec, secrets and escalate/bind; it defeats review of "
        "what the role can do.",
        example='    rules:\n      - apiGroups: ["apps"]\n        resources: ["*"]\n        verbs: ["*"]',
        fix="List the resources and verbs the workload uses (`kubectl auth can-i --list` for its service "
        "account, or the audit log, shows what it calls).",
    ),
)
