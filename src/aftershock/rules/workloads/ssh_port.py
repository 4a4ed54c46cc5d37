"""Rule ssh-port: a container exposes the SSH port (22/TCP)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.ports import declared_ports

SSH_PORT = 22


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for container, port in declared_ports(pod):
        if port.number == SSH_PORT and port.protocol == "TCP":
            yield Issue(
                facet=container.label,
                message=f"exposes SSH (port 22) from {container.label} ({port.path})",
                field=port.path,
                tokens=("containerPort", "22"),
                summary="port 22",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="ssh-port",
    title="SSH port exposed",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Containers that declare port 22 over TCP (the protocol defaults to TCP).",
        why="An SSH server in a container is a second way in that bypasses the API server's authentication, "
        "audit log and RBAC, and usually comes with long-lived keys.",
        example="    ports:\n      - containerPort: 22",
        fix="Remove the SSH server; use `kubectl exec` or an ephemeral debug container, which RBAC controls.",
    ),
)
