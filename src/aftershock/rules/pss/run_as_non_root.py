"""Rule pss-run-as-non-root: containers are not required to run as non-root (PSS restricted)."""

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
    if pod is None:
        return
    pod_value = pod_security_context(pod).get("runAsNonRoot")
    if pod_value is False:
        path = pod.path("securityContext", "runAsNonRoot")
        yield Issue(
            facet="pod",
            message=f"allows root containers ({path}: false)",
            field=path,
            tokens=("runAsNonRoot",),
            grade=2,
            severity=Severity.MEDIUM,
            summary="runAsNonRoot: false",
        )
    for container in containers_of(pod):
        value = container.security_context.get("runAsNonRoot")
        path = container.path("securityContext", "runAsNonRoot")
        if value is False:
            yield Issue(
                facet=container.label,
                message=f"allows {container.label} to run as root ({path}: false)",
                field=path,
                tokens=("runAsNonRoot",),
                grade=2,
                severity=Severity.MEDIUM,
                summary="runAsNonRoot: false",
            )
        elif value is not True and pod_value is not True:
            yield Issue(
                facet=container.label,
                message=f"does not require {container.label} to run as non-root (runAsNonRoot unset at pod and container)",
                field=path,
                tokens=("runAsNonRoot", "securityContext"),
                grade=1,
                summary="runAsNonRoot unset",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="pss-run-as-non-root",
    title="Not required to run as non-root",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what='Pod Security Standards, restricted, control "Running as Non-root": `runAsNonRoot` must be `true` '
        "in the pod's securityContext or in every container's, and no container (nor the pod) may set it to "
        "`false`. Unset is low; an explicit `false` is medium.",
        why="With `runAsNonRoot: true` the kubelet refuses to start a container whose user is root, whatever "
        "the image says. Root in a container is root on the node as soon as any other isolation fails.",
        example="    securityContext:\n      runAsNonRoot: false",
        fix="Set `runAsNonRoot: true` at pod level, and a non-zero `runAsUser` when the image's user is root.",
    ),
)
