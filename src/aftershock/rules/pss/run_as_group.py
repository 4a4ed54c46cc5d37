"""Rule pss-run-as-group-root: a pod or container sets group id 0 explicitly."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of, pod_security_context

GROUP_FIELDS = ("runAsGroup", "fsGroup")  # fsGroup exists at the pod level only


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    sources = [("pod", pod.path("securityContext"), pod_security_context(pod))]
    sources += [
        (c.label, c.path("securityContext"), c.security_context) for c in containers_of(pod)
    ]
    for label, prefix, context in sources:
        for field in GROUP_FIELDS:
            value = context.get(field)
            if isinstance(value, int) and not isinstance(value, bool) and value == 0:
                path = f"{prefix}.{field}"
                yield Issue(
                    facet=f"{label} {field}",
                    message=f"runs the {label} with group id 0 ({path}: 0)",
                    field=path,
                    tokens=(field,),
                    summary=f"{field}: 0",
                )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset(GROUP_FIELDS)


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-run-as-group-root",
    title="Runs with group id 0",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=("https://kubernetes.io/docs/tasks/configure-pod-container/security-context/",),
    doc=RuleDoc(
        what="`runAsGroup: 0` of the pod or of a container, or the pod's `fsGroup: 0`, set explicitly (an unset "
        "group is the image's). Not a Pod Security Standards control; kube-linter's run-as-non-root flags it.",
        why="Group 0 is root's group: files owned by it (much of a typical image, and volumes with `fsGroup: 0`) "
        "become writable to the process, which undoes a non-root user.",
        example="    securityContext:\n      runAsUser: 1000\n      runAsGroup: 0",
        fix="Use a non-zero group id and give the files the process needs to that group in the image.",
    ),
)
