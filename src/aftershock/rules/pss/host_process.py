"""Rule pss-host-process: a Windows HostProcess pod or container (PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import dig, is_true
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of, pod_security_context
from aftershock.rules.support.pss import PSS_REFERENCE


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    if is_true(dig(pod_security_context(pod), "windowsOptions", "hostProcess")):
        path = pod.path("securityContext", "windowsOptions", "hostProcess")
        yield Issue(
            facet="pod",
            message=f"runs as a Windows HostProcess pod ({path}: true)",
            field=path,
            tokens=("hostProcess",),
            summary="HostProcess pod",
        )
    for container in containers_of(pod):
        if is_true(dig(container.security_context, "windowsOptions", "hostProcess")):
            path = container.path("securityContext", "windowsOptions", "hostProcess")
            yield Issue(
                facet=container.label,
                message=f"runs {container.label} as a Windows HostProcess ({path}: true)",
                field=path,
                tokens=("hostProcess",),
                summary=f"{container.label} HostProcess",
            )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"hostProcess"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-host-process",
    title="Windows HostProcess container",
    category=Category.SECURITY,
    severity=Severity.CRITICAL,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what="`windowsOptions.hostProcess: true` in the pod's or any container's securityContext. Pod Security "
        'Standards, baseline, control "HostProcess": allowed values are undefined or `false`.',
        why="A HostProcess container runs directly on the Windows node with the node's privileges, outside any "
        "container isolation: it is the Windows equivalent of a privileged container.",
        example='    securityContext:\n      windowsOptions:\n        hostProcess: true\n        runAsUserName: "NT AUTHORITY\\\\SYSTEM"',
        fix="Remove `hostProcess`; run node-level Windows agents from a privileged namespace dedicated to them.",
    ),
)
