"""Rule pdb-above-hpa-minimum: a PodDisruptionBudget's minAvailable reaches the autoscaler's minimum."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.disruption import covered, min_available_count
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.release import ReleaseObjects, judge_in_release


def issues(obj: RenderedObject, release: ReleaseObjects, ctx: RuleContext) -> Iterator[Issue]:
    min_available = min_available_count(obj)
    if min_available is None:
        return
    for cover in covered(obj, release):
        if cover.min_replicas is not None and min_available >= cover.min_replicas:
            yield Issue(
                facet=f"autoscaler {cover.autoscaler}",
                message=f"needs {min_available} pod(s) available while "
                f"{cover.autoscaler} may scale {cover.workload.key} down to {cover.min_replicas}",
                field="spec.minAvailable",
                tokens=("minAvailable", "minReplicas", "minReplicaCount"),
                facts=(Fact("min_replicas", cover.min_replicas),),
                summary=f"minAvailable {min_available}, minimum {cover.min_replicas}",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_in_release(ctx, issues, ("PodDisruptionBudget",))


RULE = Rule(
    id="pdb-above-hpa-minimum",
    title="PodDisruptionBudget minAvailable reaches the autoscaler's minimum",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="PodDisruptionBudgets whose `minAvailable` number is at or above the `minReplicas` of a "
        "HorizontalPodAutoscaler (default 1), or the `minReplicaCount` of a KEDA ScaledObject (default 0), "
        "scaling a workload of the release the budget selects.",
        why="Whenever the autoscaler sits at its minimum (nights, quiet clusters), the budget allows no eviction "
        "and node drains stall; the render at default values may not show it.",
        example="    kind: HorizontalPodAutoscaler\n    spec: {minReplicas: 2}\n    ---\n    kind: PodDisruptionBudget\n"
        "    spec: {minAvailable: 2}",
        fix="Keep `minAvailable` below the autoscaler's minimum, or use `maxUnavailable: 1`.",
    ),
)
