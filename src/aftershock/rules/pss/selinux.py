"""Rule pss-selinux: custom SELinux options (PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, text
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of, pod_security_context
from aftershock.rules.support.pss import PSS_REFERENCE, allowed_selinux_types


def _problems(options: Mapping[str, Any], allowed: frozenset[str]) -> list[str]:
    problems = []
    kind = text(options.get("type"))
    if kind not in allowed:
        problems.append(f"type {kind}")
    for field in ("user", "role"):
        if text(options.get(field)):
            problems.append(f"{field} {text(options.get(field))}")
    return problems


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    allowed = allowed_selinux_types(ctx.kube_version)
    sources = [("pod", pod.path("securityContext", "seLinuxOptions"), pod_security_context(pod))]
    sources += [
        (c.label, c.path("securityContext", "seLinuxOptions"), c.security_context)
        for c in containers_of(pod)
    ]
    for label, path, context in sources:
        if "seLinuxOptions" not in context:
            continue
        problems = _problems(as_map(context.get("seLinuxOptions")), allowed)
        if problems:
            yield Issue(
                facet=label,
                message=f"sets SELinux {', '.join(problems)} for the {label} ({path})",
                field=path,
                tokens=("seLinuxOptions",),
                items=frozenset(problems),
                facts=(Fact("options", problems),),
                summary=", ".join(problems),
            )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"seLinuxOptions"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-selinux",
    title="Custom SELinux options",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what="`seLinuxOptions` of the pod and of each container (Pod Security Standards, baseline, control "
        '"SELinux"): `type` must be empty, `container_t`, `container_init_t` or `container_kvm_t`, plus '
        "`container_engine_t` from Kubernetes 1.31; `user` and `role` must be empty.",
        why="SELinux labels decide what a container process may touch on the node. A custom type such as "
        "`spc_t` (super-privileged container) or a custom user/role lifts that confinement.",
        example="    securityContext:\n      seLinuxOptions:\n        type: spc_t",
        fix="Remove the options, or keep only `level` (MCS categories) and an allowed `type`.",
    ),
)
