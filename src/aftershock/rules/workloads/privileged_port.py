"""Rule privileged-port: a container declares a port below 1024."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.ports import declared_ports

FIRST_UNPRIVILEGED = 1024


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for container, port in declared_ports(pod):
        if port.number is not None and 0 < port.number < FIRST_UNPRIVILEGED:
            yield Issue(
                facet=f"{container.label} port {port.number}/{port.protocol}",
                message=f"has {container.label} listen on privileged port {port.number} ({port.path})",
                field=port.path,
                tokens=("containerPort", str(port.number)),
                facts=(Fact("port", port.number),),
                summary=f"port {port.number}",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="privileged-port",
    title="Container port below 1024",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Container ports (`containerPort`) between 1 and 1023, in containers and init containers.",
        why="Binding a port below 1024 needs root or `NET_BIND_SERVICE`, so the image runs with more privilege "
        "than a web server needs; a Service can map port 80 to any container port.",
        example="    ports:\n      - containerPort: 80",
        fix="Listen on a port of 1024 or above (8080) and keep `port: 80` on the Service with "
        "`targetPort: 8080`.",
    ),
)
