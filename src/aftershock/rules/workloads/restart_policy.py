"""Rule restart-policy-invalid: a pod template's restartPolicy is one its workload kind rejects."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_pod_objects

POLICIES = ("Always", "OnFailure", "Never")
# kind -> the policies the API server accepts for its pod template (apps and core validation)
ALLOWED = {
    "Deployment": ("Always",),
    "ReplicaSet": ("Always",),
    "StatefulSet": ("Always",),
    "DaemonSet": ("Always",),
    "ReplicationController": ("Always",),
    "DeploymentConfig": ("Always",),
    "Rollout": ("Always",),
    "Job": ("OnFailure", "Never"),
    "CronJob": ("OnFailure", "Never"),
}


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None or "restartPolicy" not in pod.spec:
        return
    value = pod.spec.get("restartPolicy")
    allowed = ALLOWED.get(obj.key.kind, POLICIES)
    if value not in allowed:
        path = pod.path("restartPolicy")
        yield Issue(
            facet="restartPolicy",
            message=f"sets {path}: {value!s}, which a {obj.key.kind} does not accept "
            f"({' or '.join(allowed)})",
            field=path,
            tokens=("restartPolicy",),
            facts=(Fact("value", str(value)),),
            summary=f"restartPolicy {value!s}",
        )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"restartPolicy"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="restart-policy-invalid",
    title="Restart policy the workload kind rejects",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="A pod template's `restartPolicy` that Kubernetes rejects for its kind: anything but `Always` for "
        "Deployments, ReplicaSets, StatefulSets, DaemonSets, ReplicationControllers (and DeploymentConfigs, "
        "Argo Rollouts), `Always` for Jobs and CronJobs, and any value other than Always, OnFailure or Never "
        "(the field is case-sensitive).",
        why="The API server refuses the object, so the release fails at install or upgrade; the render looks fine.",
        example="    kind: Deployment\n    ...\n        restartPolicy: Never",
        fix="Drop the field from long-running workloads (Always is the default) and use OnFailure or Never in "
        "Jobs.",
    ),
)
