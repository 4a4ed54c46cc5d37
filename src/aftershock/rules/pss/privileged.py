"""Rule pss-privileged: a container runs privileged (PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import is_true
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of
from aftershock.rules.support.pss import PSS_REFERENCE


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for container in containers_of(pod):
        if is_true(container.security_context.get("privileged")):
            path = container.path("securityContext", "privileged")
            yield Issue(
                facet=container.label,
                message=f"runs {container.label} privileged ({path}: true)",
                field=path,
                tokens=("privileged",),
                summary=f"{container.label} privileged",
            )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"privileged"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-privileged",
    title="Privileged container",
    category=Category.SECURITY,
    severity=Severity.CRITICAL,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what="`securityContext.privileged: true` on any container, init container or ephemeral container. "
        'Pod Security Standards, baseline, control "Privileged Containers": allowed values are undefined '
        "or `false`.",
        why="A privileged container has every capability, sees every host device and runs without the "
        "seccomp, AppArmor and SELinux confinement: it is root on the node, and anything that compromises it "
        "owns the node and every pod on it.",
        example="    containers:\n      - name: agent\n        securityContext:\n          privileged: true",
        fix="Remove `privileged: true`; add only the capabilities the process needs (`capabilities.add`), mount "
        "only the device or path it needs, and keep `allowPrivilegeEscalation: false`.",
    ),
)
