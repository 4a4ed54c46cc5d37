"""Rule pss-privilege-escalation: a container may gain privileges (PSS restricted)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of, is_windows_pod
from aftershock.rules.support.pss import PSS_REFERENCE


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None or (ctx.kube_version >= (1, 25) and is_windows_pod(pod)):
        return
    for container in containers_of(pod):
        value = container.security_context.get("allowPrivilegeEscalation")
        if value is False:
            continue
        path = container.path("securityContext", "allowPrivilegeEscalation")
        if value is True:
            yield Issue(
                facet=container.label,
                message=f"lets {container.label} escalate privileges ({path}: true)",
                field=path,
                tokens=("allowPrivilegeEscalation",),
                grade=2,
                severity=Severity.MEDIUM,
                summary="allowPrivilegeEscalation: true",
            )
        else:
            yield Issue(
                facet=container.label,
                message=f"does not forbid privilege escalation in {container.label} ({path} not false)",
                field=path,
                tokens=("allowPrivilegeEscalation", "securityContext"),
                grade=1,
                summary="allowPrivilegeEscalation unset",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="pss-privilege-escalation",
    title="Privilege escalation allowed",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what='Pod Security Standards, restricted, control "Privilege Escalation": every container must set '
        "`securityContext.allowPrivilegeEscalation: false` (Windows pods are exempt from 1.25). Unset is low; "
        "an explicit `true` is medium, and going from unset to `true` is a widening.",
        why="Without it, a set-user-ID binary or file capabilities inside the image can raise the process above "
        "the privileges the container started with (the `no_new_privs` flag is not set).",
        example="    securityContext:\n      allowPrivilegeEscalation: true",
        fix="Set `allowPrivilegeEscalation: false` on every container (a library chart's security-context "
        "helper is the natural place).",
    ),
)
