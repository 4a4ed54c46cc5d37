"""Rule pss-seccomp-restricted: a container runs without a seccomp profile (PSS restricted)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import dig
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of, is_windows_pod, pod_security_context
from aftershock.rules.support.pss import PSS_REFERENCE


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if (
        pod is None
        or ctx.kube_version < (1, 19)
        or (ctx.kube_version >= (1, 25) and is_windows_pod(pod))
    ):
        return
    pod_type = dig(pod_security_context(pod), "seccompProfile", "type")
    for container in containers_of(pod):
        own = dig(container.security_context, "seccompProfile", "type")
        if own is None and pod_type is None:
            path = container.path("securityContext", "seccompProfile", "type")
            yield Issue(
                facet=container.label,
                message=f"runs {container.label} without a seccomp profile (seccompProfile unset at pod and container)",
                field=path,
                tokens=("seccompProfile", "securityContext"),
                summary="no seccomp profile",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="pss-seccomp-restricted",
    title="No seccomp profile",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what='Pod Security Standards, restricted, control "Seccomp" (1.19 and later; Windows pods exempt from '
        "1.25): every container's effective `seccompProfile.type` (its own, else the pod's) must be "
        "`RuntimeDefault` or `Localhost`. This rule reports containers where it is unset; an explicit "
        "`Unconfined` is reported by pss-seccomp-baseline.",
        why="Without a profile, the container runtime's default may be no filtering at all (the kubelet applies "
        "RuntimeDefault only when `seccompDefault` is on), leaving every system call available.",
        example="    securityContext: {}   # no seccompProfile at pod or container level",
        fix="Set `securityContext.seccompProfile.type: RuntimeDefault` at pod level.",
    ),
)
