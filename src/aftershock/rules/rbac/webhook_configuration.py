"""Rule rbac-webhook-configuration: a role can change admission webhooks or policies."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.rbac.wildcard import RBAC_REFERENCE
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.rbac import ROLES, WRITE_VERBS, allowed_verbs, policy_rules

ADMISSION_GROUP = "admissionregistration.k8s.io"
RESOURCES = (
    "mutatingwebhookconfigurations",
    "validatingwebhookconfigurations",
    "validatingadmissionpolicies",
    "validatingadmissionpolicybindings",
    "mutatingadmissionpolicies",
    "mutatingadmissionpolicybindings",
)


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    rules = ctx.index.per_object("policy rules", obj, policy_rules)
    if not rules:
        return
    for resource in RESOURCES:
        granted = allowed_verbs(rules, ADMISSION_GROUP, resource, WRITE_VERBS)
        if granted:
            yield Issue(
                facet=resource,
                message=f"can change {resource} ({', '.join(sorted(granted))})",
                field="rules",
                tokens=(resource, "*"),
                items=granted,
                facts=(Fact("resource", resource), Fact("verbs", sorted(granted))),
                summary=f"{resource} ({', '.join(sorted(granted))})",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_objects(ctx, issues, kinds=ROLES)


RULE = Rule(
    id="rbac-webhook-configuration",
    title="RBAC write access to admission configuration",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(RBAC_REFERENCE,),
    doc=RuleDoc(
        what="Roles and ClusterRoles that allow create, update, patch, delete or deletecollection on "
        "Mutating/ValidatingWebhookConfigurations or (Mutating/Validating)AdmissionPolicies and their "
        "bindings in admissionregistration.k8s.io, directly or through wildcards. One finding per resource.",
        why="A mutating webhook sees and can rewrite every object it registers for, Secrets included; deleting "
        "a validating webhook or policy switches off the cluster's guard rails.",
        example='    rules:\n      - apiGroups: ["admissionregistration.k8s.io"]\n        resources: ["mutatingwebhookconfigurations"]\n        verbs: ["create", "update", "patch"]',
        fix="Let the chart create the webhook configuration at install time instead of granting the workload "
        "write access; if the workload patches its own CA bundle, restrict it with `resourceNames`.",
    ),
)
