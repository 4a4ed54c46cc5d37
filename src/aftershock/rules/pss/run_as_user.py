"""Rule pss-run-as-user-root: a pod or container runs with user id 0 (PSS restricted, 1.23+)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of, pod_security_context
from aftershock.rules.support.pss import PSS_REFERENCE


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None or ctx.kube_version < (1, 23):
        return
    sources = [("pod", pod.path("securityContext", "runAsUser"), pod_security_context(pod))]
    sources += [
        (c.label, c.path("securityContext", "runAsUser"), c.security_context)
        for c in containers_of(pod)
    ]
    for label, path, context in sources:
        value = context.get("runAsUser")
        if isinstance(value, int) and not isinstance(value, bool) and value == 0:
            yield Issue(
                facet=label,
                message=f"runs the {label} as root ({path}: 0)",
                field=path,
                tokens=("runAsUser",),
                summary="runAsUser: 0",
            )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"runAsUser"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-run-as-user-root",
    title="Runs as user id 0",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what='Pod Security Standards, restricted, control "Running as Non-root user" (Kubernetes 1.23 and '
        "later): `runAsUser` of the pod and of every container must be undefined or non-zero.",
        why="User id 0 is root; setting it explicitly overrides a non-root user baked into the image.",
        example="    securityContext:\n      runAsUser: 0",
        fix="Use a non-zero user id (and `runAsNonRoot: true`); fix file ownership in the image instead of "
        "running as root.",
    ),
)
