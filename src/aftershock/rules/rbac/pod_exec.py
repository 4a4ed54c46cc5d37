"""Rule rbac-pod-exec: a role can exec into, attach to or port-forward pods."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.rbac.wildcard import RBAC_REFERENCE
from aftershock.rules.support.grants import judge_role_grants
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.rbac import PolicyRule, ReservedRoles, allowed_verbs

# WebSocket clients reach these subresources with GET, so get counts as much as create.
SUBRESOURCES = ("pods/exec", "pods/attach", "pods/portforward")


def issues(obj: RenderedObject, rules: tuple[PolicyRule, ...]) -> Iterator[Issue]:
    for resource in SUBRESOURCES:
        granted = allowed_verbs(rules, "", resource, ("create", "get"))
        if granted:
            yield Issue(
                facet=resource,
                message=f"can use {resource} ({', '.join(sorted(granted))})",
                field="rules",
                tokens=(resource.split("/")[1], "pods/*", "*"),
                items=granted,
                facts=(Fact("resource", resource), Fact("verbs", sorted(granted))),
                summary=resource,
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_role_grants(ctx, issues)


RULE = Rule(
    id="rbac-pod-exec",
    title="RBAC exec, attach or port-forward into pods",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    options_model=ReservedRoles,
    references=(RBAC_REFERENCE,),
    doc=RuleDoc(
        what="Roles and ClusterRoles that allow `create` or `get` on `pods/exec`, `pods/attach` or "
        "`pods/portforward` (WebSocket clients use GET), directly or through wildcards.",
        why="Exec runs arbitrary commands in any pod the subject can name, with that pod's service account, "
        "mounted Secrets and network position; port-forward reaches ports that NetworkPolicies would block.",
        example='    rules:\n      - apiGroups: [""]\n        resources: ["pods/exec"]\n        verbs: ["create"]',
        fix="Keep exec for break-glass human roles; for automation, expose what it needs through an API of the "
        "workload itself.",
    ),
)
