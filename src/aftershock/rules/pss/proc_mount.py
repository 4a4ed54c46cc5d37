"""Rule pss-proc-mount: a container unmasks /proc (PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import text
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of
from aftershock.rules.support.pss import PSS_REFERENCE


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    # From 1.35 the baseline profile allows any procMount for pods in a user namespace.
    if ctx.kube_version >= (1, 35) and pod.spec.get("hostUsers") is False:
        return
    for container in containers_of(pod):
        value = container.security_context.get("procMount")
        if value is not None and value != "Default":
            path = container.path("securityContext", "procMount")
            yield Issue(
                facet=container.label,
                message=f"mounts /proc as {text(value)!r} in {container.label} ({path})",
                field=path,
                tokens=("procMount",),
                facts=(Fact("proc_mount", text(value)),),
                summary=f"procMount {text(value)}",
            )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"procMount"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-proc-mount",
    title="/proc mounted unmasked",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what="`securityContext.procMount` other than undefined or `Default` on any container (Pod Security "
        'Standards, baseline, control "/proc Mount Type"). From Kubernetes 1.35 the baseline profile allows '
        "any value when the pod runs in a user namespace (`hostUsers: false`).",
        why="The default /proc mount masks paths such as /proc/kcore and /proc/sys that expose or change the "
        "node's kernel; `Unmasked` removes those masks.",
        example="    securityContext:\n      procMount: Unmasked",
        fix="Remove `procMount`, or run the pod with `hostUsers: false` when it needs an unmasked /proc.",
    ),
)
