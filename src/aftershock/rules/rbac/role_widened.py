"""Rule rbac-role-widened: a Role or ClusterRole grants, at head, permissions it did not grant at base.

Graded by what the added permissions reach. Permissions another RBAC rule judges on its own
(wildcards, Secrets, pods/exec and its kin, nodes/proxy, bind/escalate/impersonate, pod creation,
admission webhooks) are left to it, so one widening is said once.
"""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.rbac.create_pods import POD_CREATORS
from aftershock.rules.rbac.escalation_verbs import TARGETS
from aftershock.rules.rbac.pod_exec import SUBRESOURCES
from aftershock.rules.rbac.webhook_configuration import RESOURCES as WEBHOOKS
from aftershock.rules.rbac.wildcard import RBAC_REFERENCE
from aftershock.rules.support.rbac import ROLES, Permission, covered, permissions, policy_rules

# (group, resource) -> why an added permission on it is High; verbs "write" = not read-only
HIGH_REACH = {
    ("", "pods/proxy"): "reaches every port of the pods, past Services and NetworkPolicies",
    ("", "services/proxy"): "reaches the Services' backends through the API server",
    ("", "namespaces"): "relabels namespaces, their Pod Security admission labels included",
    ("", "serviceaccounts/token"): "mints tokens for service accounts",
    ("certificates.k8s.io", "certificatesigningrequests/approval"): "approves certificates",
    ("", "persistentvolumes"): "binds any volume's data to a claim of its choosing",
}
READ_ONLY_HIGH = frozenset({("", "pods/proxy"), ("", "services/proxy")})
READ_VERBS = frozenset({"get", "list", "watch"})
JUDGED_ELSEWHERE = (
    frozenset({("", "secrets"), ("", "nodes/proxy")})
    | frozenset(("", r) for r in SUBRESOURCES)
    | frozenset(POD_CREATORS)
    | frozenset(("admissionregistration.k8s.io", r) for r in WEBHOOKS)
)
ELSEWHERE_VERBS = frozenset(TARGETS)
MAX_LISTED = 6


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs_of(ROLES):
        if pair.base is None or pair.head is None:
            continue
        before = permissions(policy_rules(pair.base))
        after = permissions(policy_rules(pair.head))
        added = sorted(p for p in after if not covered(before, frozenset({p})) and _judged(p))
        if not added:
            continue
        reasons = sorted({why for p in added if (why := _high(p))})
        listed = ", ".join(permission_text(p) for p in added[:MAX_LISTED]) + (
            f" and {len(added) - MAX_LISTED} more" if len(added) > MAX_LISTED else ""
        )
        message = f"{pair.display} grants more at head than at base: {listed}"
        if reasons:
            message += f" ({'; '.join(reasons)})"
        yield Concern(
            subject=pair.subject("widened"),
            message=message,
            delta=Delta.INTRODUCED,
            facts=(Fact("field", "rules"), Fact("added", [permission_text(p) for p in added])),
            location=ctx.index.locate_object(pair, ("verbs", "resources"), in_change=True),
            path=pair.impact_path("rules"),
            severity=Severity.HIGH if reasons else Severity.MEDIUM,
            scope_paths=pair.scope_paths,
        )


def _judged(permission: Permission) -> bool:
    """Whether this rule judges the permission (another rule judges the rest)."""
    group, resource, verb, _ = permission
    if "*" in (group, resource, verb) or verb in ELSEWHERE_VERBS:
        return False
    return (group, resource) not in JUDGED_ELSEWHERE


def _high(permission: Permission) -> str | None:
    group, resource, verb, _ = permission
    why = HIGH_REACH.get((group, resource))
    if why is None or (verb in READ_VERBS and (group, resource) not in READ_ONLY_HIGH):
        return None
    return f"{resource}: {why}"


def permission_text(permission: Permission) -> str:
    group, resource, verb, name = permission
    where = f"{group}/{resource}" if group else resource
    return f"{verb} {where}" + (f" ({name})" if name != "*" else "")


RULE = Rule(
    id="rbac-role-widened",
    title="Role grants more than at base",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="A Role or ClusterRole rendered at both refs whose rules grant, at head, a verb on a resource "
        "they did not grant at base, however the rules are written (compared as permissions, so a rule "
        "split in two or reordered grants nothing new). High when an added permission reaches past the "
        "usual boundaries: `pods/proxy` or `services/proxy` (even read), writes to `namespaces` (their "
        "Pod Security labels), `serviceaccounts/token`, certificate approval, PersistentVolumes; "
        "Medium otherwise. Wildcards, Secrets, exec/attach/port-forward, `nodes/proxy`, "
        "bind/escalate/impersonate, pod creation and admission webhooks are judged by their own rules.",
        why="Permissions added to a role are granted to every subject bound to it, in every namespace the "
        "bindings reach, and they are rarely taken back. A reviewer sees a line added to a list; what "
        "the service account can now do is the consequence.",
        example='    rules:\n      - apiGroups: [""]\n        resources: [configmaps]\n'
        "        verbs: [get, list, watch, update, delete]   # update, delete added",
        fix=f"Grant only what the workload calls, and name the objects (`resourceNames`) where it can. "
        f"See {RBAC_REFERENCE}.",
    ),
)
