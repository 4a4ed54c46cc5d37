"""Rule hpa-target-missing: a HorizontalPodAutoscaler scales an object its release does not create."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, text
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.release import ReleaseObjects, judge_in_release


def issues(obj: RenderedObject, release: ReleaseObjects, ctx: RuleContext) -> Iterator[Issue]:
    target = as_map(as_map(obj.body.get("spec")).get("scaleTargetRef"))
    kind, name = text(target.get("kind")), text(target.get("name"))
    if not kind or not name:
        return
    if not release.named(kind, obj.key.namespace, name):
        yield Issue(
            facet="scaleTargetRef",
            message=f"scales {kind} {name}, which the release does not create",
            field="spec.scaleTargetRef",
            tokens=("scaleTargetRef", "name"),
            facts=(Fact("target", f"{kind}/{name}"),),
            summary=f"a missing target {kind}/{name}",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_in_release(ctx, issues, ("HorizontalPodAutoscaler",))


RULE = Rule(
    id="hpa-target-missing",
    title="HorizontalPodAutoscaler targets nothing",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="HorizontalPodAutoscalers whose `scaleTargetRef` names a kind and name that no object rendered "
        "with them (in the same namespace) has. Inferred: the target could come from elsewhere.",
        why="An autoscaler without its target does nothing (its status says FailedGetScale), so the workload it "
        "was meant for keeps a fixed replica count under load; a renamed Deployment is the usual cause.",
        example="    scaleTargetRef:\n      apiVersion: apps/v1\n      kind: Deployment\n      name: web   # the "
        "Deployment is called web-frontend",
        fix="Render the target's name from the same helper as the workload's `metadata.name`.",
    ),
)
