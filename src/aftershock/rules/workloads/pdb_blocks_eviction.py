"""Rule pdb-blocks-eviction: a PodDisruptionBudget allows no voluntary eviction of the pods it covers."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.disruption import budget, covered, min_available_count, percent
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.release import ReleaseObjects, judge_in_release


def issues(obj: RenderedObject, release: ReleaseObjects, ctx: RuleContext) -> Iterator[Issue]:
    min_available, max_unavailable = budget(obj)
    if max_unavailable is not None and (max_unavailable == 0 or percent(max_unavailable) == 0):
        yield Issue(
            facet="budget",
            message=f"allows no eviction (spec.maxUnavailable: {max_unavailable})",
            field="spec.maxUnavailable",
            tokens=("maxUnavailable",),
            summary="maxUnavailable 0",
        )
        return
    if percent(min_available) == 100:
        yield Issue(
            facet="budget",
            message="allows no eviction (spec.minAvailable: 100%)",
            field="spec.minAvailable",
            tokens=("minAvailable",),
            summary="minAvailable 100%",
        )
        return
    count = min_available_count(obj)
    if count is None:
        return
    for cover in covered(obj, release):
        if cover.autoscaler is None and count >= cover.replicas:
            yield Issue(
                facet="budget",
                message=f"allows no eviction: spec.minAvailable {count} with "
                f"{cover.replicas} replica(s) of {cover.workload.key}",
                field="spec.minAvailable",
                tokens=("minAvailable", "replicas"),
                facts=(Fact("replicas", cover.replicas),),
                summary=f"minAvailable {count} of {cover.replicas}",
            )
            return


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_in_release(ctx, issues, ("PodDisruptionBudget",))


RULE = Rule(
    id="pdb-blocks-eviction",
    title="PodDisruptionBudget allows no eviction",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="PodDisruptionBudgets with `maxUnavailable: 0` (or 0%), `minAvailable: 100%`, or a `minAvailable` "
        "number at or above the replicas of a workload of the release it selects that no autoscaler scales "
        "(one replica with `minAvailable: 1` is the common case; see `pdb-above-hpa-minimum` for autoscaled "
        "workloads).",
        why="Node drains wait on such a budget forever: cluster upgrades, autoscaler scale-downs and node "
        "repairs stall until someone deletes the pod or the budget by hand.",
        example="    replicas: 1\n    ---\n    kind: PodDisruptionBudget\n    spec:\n      minAvailable: 1",
        fix="Run at least one replica more than `minAvailable`, or use `maxUnavailable: 1`; render the budget "
        "only when replicas > 1.",
    ),
)
