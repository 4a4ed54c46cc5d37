"""Rule rbac-secrets-access: a role can read or write Secrets."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.rbac.wildcard import RBAC_REFERENCE
from aftershock.rules.support.grants import judge_role_grants
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.rbac import (
    READ_VERBS,
    WRITE_VERBS,
    PolicyRule,
    ReservedRoles,
    allowed_verbs,
    matching_rules,
)


def issues(obj: RenderedObject, rules: tuple[PolicyRule, ...]) -> Iterator[Issue]:
    cluster = obj.key.kind == "ClusterRole"
    for facet, verbs in (("read", READ_VERBS), ("write", WRITE_VERBS)):
        granted = allowed_verbs(rules, "", "secrets", verbs)
        if not granted:
            continue
        named_only = all(
            rule.resource_names for rule in matching_rules(rules, "", "secrets", verbs)
        )
        broad = (
            cluster
            and not named_only
            and bool(granted & {"list", "watch", "create", "update", "patch"})
        )
        scope = (
            "in every namespace it is bound to"
            if not cluster
            else "cluster-wide when bound by a ClusterRoleBinding"
        )
        limited = " (limited to named Secrets)" if named_only else ""
        yield Issue(
            facet=facet,
            message=f"can {facet} Secrets ({', '.join(sorted(granted))}){limited}, {scope}",
            field="rules",
            tokens=("secrets",),
            items=granted,
            grade=0 if named_only else 1,
            severity=Severity.HIGH if broad else (Severity.LOW if named_only else None),
            facts=(Fact("verbs", sorted(granted)), Fact("resource_names_only", named_only)),
            summary=f"{facet} Secrets ({', '.join(sorted(granted))})",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_role_grants(ctx, issues)


RULE = Rule(
    id="rbac-secrets-access",
    title="RBAC access to Secrets",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    options_model=ReservedRoles,
    references=(RBAC_REFERENCE,),
    doc=RuleDoc(
        what="Roles and ClusterRoles that allow reading (get, list, watch) or writing (create, update, patch, "
        "delete, deletecollection) `secrets` in the core group, directly or through wildcards. Medium by "
        "default; high for a ClusterRole that can list, watch or write them without `resourceNames`; low when "
        "every matching rule is limited by `resourceNames`. New verbs are a widening.",
        why="Secrets hold credentials, including service account tokens of more privileged workloads; `list` "
        "and `watch` return every Secret's content, not just names. Reading them is often one step from "
        "the permissions of whoever they belong to.",
        example='    rules:\n      - apiGroups: [""]\n        resources: ["secrets"]\n        verbs: ["get", "list", "watch"]',
        fix="Grant `get` on the named Secrets the workload needs (`resourceNames`), in a Role rather than a "
        "ClusterRole; mount Secrets into pods instead of reading them through the API.",
    ),
)
