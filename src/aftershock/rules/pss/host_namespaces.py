"""Rule pss-host-namespaces: a pod shares the node's network, PID or IPC namespace (PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import is_true
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pss import PSS_REFERENCE

_WHAT = {
    "hostNetwork": "uses the node's network namespace",
    "hostPID": "shares the node's process namespace",
    "hostIPC": "shares the node's IPC namespace",
}


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for field, what in _WHAT.items():
        if is_true(pod.spec.get(field)):
            path = pod.path(field)
            yield Issue(
                facet=field,
                message=f"{what} ({path}: true)",
                field=path,
                tokens=(field,),
                facts=(Fact("value", True),),
                summary=f"{field}: true",
            )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset(_WHAT)


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-host-namespaces",
    title="Pod shares a host namespace",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what="Pod specs (of Pods and every workload kind) that set `hostNetwork`, `hostPID` or `hostIPC` "
        'to `true`. Pod Security Standards, baseline profile, control "Host Namespaces": allowed values '
        "are undefined or `false`, in every Kubernetes version.",
        why="A pod in the node's PID namespace sees and can signal every process on the node, including "
        "other pods' processes and their environment; in the network namespace it can bind node ports and "
        "sniff or reach node-local services; in the IPC namespace it shares memory segments with the host. "
        "Any of them breaks the isolation between the workload and the node, and namespaces with the baseline "
        "policy enforced reject the pod.",
        example="A values change turns on a process collector and the DaemonSet gains `hostPID: true`:\n\n"
        "    spec:\n      template:\n        spec:\n          hostPID: true",
        fix="Remove the field or set it to `false`. If the workload really needs it (node agents), run it in a "
        "namespace labelled `pod-security.kubernetes.io/enforce: privileged`, keep its container read-only "
        "and without capabilities, and scope it to the nodes that need it.",
    ),
)
