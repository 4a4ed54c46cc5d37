"""Rule selector-mismatch: a workload's selector does not match its own pod template's labels."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.selectors import workload_selector

# Job and CronJob generate their selector unless manualSelector is set; Pods have none
SELECTED_KINDS = frozenset(
    {
        "Deployment",
        "ReplicaSet",
        "StatefulSet",
        "DaemonSet",
        "ReplicationController",
        "DeploymentConfig",
        "Rollout",
    }
)


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None or obj.key.kind not in SELECTED_KINDS:
        return
    selector = workload_selector(obj.body)
    if selector is None or selector.empty:
        return
    if not selector.matches(pod.metadata.get("labels")):
        path = pod.metadata_path("labels")
        yield Issue(
            facet="selector",
            message=f"selects {selector.describe()}, which its pod template's labels "
            f"({path}) do not match",
            field="spec.selector",
            tokens=("selector", "matchLabels", "labels"),
            facts=(Fact("selector", selector.describe()),),
            summary="selector not matching the template",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="selector-mismatch",
    title="Selector does not match the pod template",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Deployments, ReplicaSets, StatefulSets, DaemonSets, ReplicationControllers, DeploymentConfigs and "
        "Argo Rollouts whose `spec.selector` (matchLabels and matchExpressions, or a label map) does not match "
        "the labels of their own pod template.",
        why="The API server rejects such a workload (`selector does not match template labels`), so the release "
        "fails to install or upgrade; where it is accepted (DeploymentConfig) the controller never sees its pods "
        "and keeps creating them.",
        example="    selector:\n      matchLabels: {app: web}\n    template:\n      metadata:\n        labels: {app: frontend}",
        fix="Render the selector and the template labels from the same named template (`selectorLabels`); "
        "remember that a Deployment's selector is immutable.",
    ),
)
