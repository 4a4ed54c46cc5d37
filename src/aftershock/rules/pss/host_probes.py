"""Rule pss-host-probes: probes or lifecycle handlers aimed at another host (PSS baseline, 1.34+)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import dig, is_map, text
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of
from aftershock.rules.support.pss import PSS_REFERENCE

HANDLERS = (
    ("livenessProbe",),
    ("readinessProbe",),
    ("startupProbe",),
    ("lifecycle", "postStart"),
    ("lifecycle", "preStop"),
)


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None or ctx.kube_version < (1, 34):
        return
    for container in containers_of(pod):
        hosts = set()
        for keys in HANDLERS:
            handler = dig(container.body, *keys)
            if not is_map(handler):
                continue  # most containers lack most handlers
            for action in ("httpGet", "tcpSocket"):
                host = text(dig(handler, action, "host"))
                if host:
                    hosts.add(f"{'.'.join(keys)}.{action}.host={host}")
        if hosts:
            yield Issue(
                facet=container.label,
                message=f"points {container.label}'s probes or hooks at another host ({', '.join(sorted(hosts))})",
                field=container.path(),
                tokens=("host",),
                items=frozenset(hosts),
                facts=(Fact("hosts", sorted(hosts)),),
                summary=", ".join(sorted(hosts)),
            )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"host"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-host-probes",
    title="Probe or lifecycle handler with a host",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what="From Kubernetes 1.34 (the target version decides), Pod Security Standards baseline control "
        '"Probes / Lifecycle Hooks": `host` must be empty in the `httpGet` and `tcpSocket` actions of '
        "liveness, readiness and startup probes and of postStart/preStop handlers, on every container.",
        why="The kubelet runs probes and hooks from the node's network. A `host` makes it connect to any "
        "address the pod's author chooses, which turns the kubelet into a proxy into networks the pod "
        "itself cannot reach.",
        example="    livenessProbe:\n      httpGet:\n        host: 169.254.169.254\n        path: /latest/meta-data/\n        port: 80",
        fix="Remove `host` so the probe targets the pod's own IP; check other services from inside the container.",
    ),
)
