"""Rule service-account-missing: a pod runs as a service account its release does not create."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import text
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.pods import PodSpec
from aftershock.rules.support.release import ReleaseObjects, judge_pods_in_release

FIELDS = (
    "serviceAccountName",
    "serviceAccount",
)  # serviceAccount: the deprecated alias, used when the name is unset


def issues(obj: RenderedObject, pod: PodSpec, release: ReleaseObjects) -> Iterator[Issue]:
    field = next((f for f in FIELDS if text(pod.spec.get(f))), None)
    if field is None:
        return
    name = text(pod.spec.get(field))
    if name != "default" and not release.named("ServiceAccount", obj.key.namespace, name):
        path = pod.path(field)
        yield Issue(
            facet="serviceAccount",
            message=f"runs as service account {name}, which the release does not create ({path})",
            field=path,
            tokens=(field,),
            facts=(Fact("service_account", name),),
            summary=f"a missing service account {name}",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pods_in_release(ctx, issues)


RULE = Rule(
    id="service-account-missing",
    title="Service account the release does not create",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.LOW,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="Pod templates whose `serviceAccountName` (or the deprecated `serviceAccount`) names a service "
        "account other than `default` that no ServiceAccount rendered with them (in the same namespace) is. "
        "Inferred with low confidence: platform teams often create service accounts apart from the chart.",
        why="The controller cannot create the pods (`serviceaccount not found`), so the rollout stalls; a chart "
        "whose `serviceAccount.create` toggle is off and whose name is left to the default hits it.",
        example="    serviceAccount:\n      create: false\n    # the template still sets serviceAccountName: "
        "release-app",
        fix="Create the service account in the chart, or make the name a required value when `create` is off.",
    ),
)
