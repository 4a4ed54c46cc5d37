"""Rule rbac-create-pods: a role grants create on pods, or on workloads that create pods."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.rbac.wildcard import RBAC_REFERENCE
from aftershock.rules.support.grants import judge_role_grants
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.rbac import PolicyRule, ReservedRoles, allowed_verbs

# (group, resource) pairs whose creation runs a pod of the creator's choosing
POD_CREATORS = (
    ("", "pods"),
    ("", "replicationcontrollers"),
    ("", "podtemplates"),
    ("apps", "deployments"),
    ("apps", "replicasets"),
    ("apps", "statefulsets"),
    ("apps", "daemonsets"),
    ("batch", "jobs"),
    ("batch", "cronjobs"),
    ("argoproj.io", "rollouts"),
)
# writes that change the pod template of an existing workload run a new pod just as well
TEMPLATE_WRITES = ("update", "patch")


def issues(obj: RenderedObject, rules: tuple[PolicyRule, ...]) -> Iterator[Issue]:
    created = frozenset(
        resource
        for group, resource in POD_CREATORS
        if allowed_verbs(rules, group, resource, ("create",))
    )
    if created:
        listed = ", ".join(sorted(created))
        direct = "pods" in created
        yield Issue(
            facet="create",
            message=f"grants create on {listed}",
            field="rules",
            tokens=("create", "*"),
            items=created,
            grade=1 if direct else 0,
            facts=(Fact("resources", sorted(created)),),
            summary=f"create on {listed}",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_role_grants(ctx, issues)


RULE = Rule(
    id="rbac-create-pods",
    title="RBAC create on pods or pod-creating workloads",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    options_model=ReservedRoles,
    references=(RBAC_REFERENCE,),
    doc=RuleDoc(
        what="Roles and ClusterRoles that allow `create` on pods or on a resource that creates pods "
        "(replication controllers, pod templates, deployments, replica sets, stateful sets, daemon sets, jobs, "
        "cron jobs, Argo rollouts), directly or through `*` verbs, resources or groups. More resources is a "
        "widening.",
        why="A subject that can create a pod can run it with any service account of the namespace, mount any "
        "Secret of the namespace and, where Pod Security admission allows it, the node's filesystem: it holds "
        "every permission of the namespace's service accounts, an escalation as direct as `bind`.",
        example='    rules:\n      - apiGroups: ["apps"]\n        resources: ["deployments"]\n        verbs: ["create"]',
        fix="Grant it only to the controllers and deployers that need it, in the namespaces they manage; give "
        "people `get`/`list` and let a GitOps controller create workloads.",
    ),
)
