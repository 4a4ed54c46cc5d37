"""Rule pss-host-ports: a container binds a port on the node (hostPort, PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of
from aftershock.rules.support.pss import PSS_REFERENCE


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for container in containers_of(pod):
        ports = sorted(
            {
                str(as_map(p).get("hostPort"))
                for p in as_list(container.body.get("ports"))
                if as_map(p).get("hostPort") not in (None, 0, "0")
            }
        )
        if ports:
            path = container.path("ports")
            yield Issue(
                facet=container.label,
                message=f"binds node port {', '.join(ports)} from {container.label} ({path}[*].hostPort)",
                field=path,
                tokens=("hostPort",),
                items=frozenset(ports),
                facts=(Fact("host_ports", ports),),
                summary=f"hostPort {', '.join(ports)}",
            )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"hostPort"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-host-ports",
    title="hostPort exposes a port on the node",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what="`ports[*].hostPort` other than 0 on any container (Pod Security Standards, baseline, control "
        '"Host Ports": allowed values are undefined and 0). A new port is a widening.',
        why="A hostPort opens the port on the node's own addresses, bypassing Services and usually "
        "NetworkPolicies; it exposes the pod to anything that reaches the node and limits scheduling to one "
        "such pod per node.",
        example="    ports:\n      - containerPort: 9100\n        hostPort: 9100",
        fix="Remove `hostPort` and expose the pod through a Service (ClusterIP, or NodePort/LoadBalancer when it "
        "must be reachable from outside).",
    ),
)
