"""Rule rbac-nodes-proxy: a role can reach the kubelet API through nodes/proxy."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.rbac.wildcard import RBAC_REFERENCE
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.rbac import (
    READ_VERBS,
    ROLES,
    WRITE_VERBS,
    allowed_verbs,
    policy_rules,
)


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    rules = ctx.index.per_object("policy rules", obj, policy_rules)
    granted = (
        allowed_verbs(rules, "", "nodes/proxy", READ_VERBS + WRITE_VERBS) if rules else frozenset()
    )
    if granted:
        yield Issue(
            facet="nodes/proxy",
            message=f"can reach the kubelet API through nodes/proxy ({', '.join(sorted(granted))})",
            field="rules",
            tokens=("nodes/proxy", "proxy", "*"),
            items=granted,
            facts=(Fact("verbs", sorted(granted)),),
            summary="nodes/proxy",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_objects(ctx, issues, kinds=ROLES)


RULE = Rule(
    id="rbac-nodes-proxy",
    title="RBAC nodes/proxy",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(RBAC_REFERENCE,),
    doc=RuleDoc(
        what="Roles and ClusterRoles that allow any verb on `nodes/proxy`, directly or through wildcards.",
        why="nodes/proxy forwards requests to the kubelet API of any node, which can run commands in every "
        "container on it and bypasses the API server's audit of those commands.",
        example='    rules:\n      - apiGroups: [""]\n        resources: ["nodes/proxy"]\n        verbs: ["get"]',
        fix="Monitoring agents should read `nodes/metrics` and `nodes/stats` instead; remove nodes/proxy.",
    ),
)
