"""Rule service-account-deprecated-field: a pod template names its service account with the deprecated field."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import text
from aftershock.rules.support.judge import Issue, judge_pod_objects


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    name = text(pod.spec.get("serviceAccount"))
    if name:
        path = pod.path("serviceAccount")
        yield Issue(
            facet="serviceAccount",
            message=f"names its service account with the deprecated {path} ({name})",
            field=path,
            tokens=("serviceAccount",),
            facts=(Fact("service_account", name),),
            summary="serviceAccount set",
        )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"serviceAccount"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="service-account-deprecated-field",
    title="Deprecated serviceAccount field",
    category=Category.HYGIENE,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Pod templates that set `serviceAccount`, the alias of `serviceAccountName` deprecated since "
        "Kubernetes 1.8.",
        why="When both are set and differ, `serviceAccountName` wins, so a values change to the deprecated "
        "field can silently have no effect; tools that read only `serviceAccountName` miss the account.",
        example="    spec:\n      serviceAccount: web",
        fix="Set `serviceAccountName` instead.",
    ),
)
