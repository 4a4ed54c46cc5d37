"""Rule service-exposure: a Service is reachable from outside the cluster (NodePort, LoadBalancer, external IPs)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.judge import Issue, judge_objects

_GRADE = {"NodePort": 1, "LoadBalancer": 2}


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    if obj.key.group != "" or obj.key.kind != "Service":
        return
    spec = as_map(obj.body.get("spec"))
    kind = text(spec.get("type"))
    if kind in _GRADE:
        ranges = sorted(text(r) for r in as_list(spec.get("loadBalancerSourceRanges")))
        limited = f", limited to {', '.join(ranges)}" if kind == "LoadBalancer" and ranges else ""
        yield Issue(
            facet="type",
            message=f"is exposed outside the cluster as a {kind} Service (spec.type: {kind}{limited})",
            field="spec.type",
            tokens=(kind, "type"),
            grade=_GRADE[kind],
            items=frozenset({"unrestricted"})
            if kind == "LoadBalancer" and not ranges
            else frozenset(),
            severity=Severity.LOW if kind == "NodePort" else None,
            facts=(Fact("type", kind), Fact("source_ranges", ranges)),
            summary=f"type {kind}{limited}",
        )
    external = frozenset(text(ip) for ip in as_list(spec.get("externalIPs")))
    if external:
        yield Issue(
            facet="externalIPs",
            message=f"is bound to external IPs {', '.join(sorted(external))} (spec.externalIPs)",
            field="spec.externalIPs",
            tokens=("externalIPs",),
            items=external,
            facts=(Fact("external_ips", sorted(external)),),
            summary=f"externalIPs {', '.join(sorted(external))}",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_objects(ctx, issues, kinds=frozenset({("", "Service")}))


RULE = Rule(
    id="service-exposure",
    title="Service exposed outside the cluster",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Services of type `LoadBalancer` (medium) or `NodePort` (low), and Services with `externalIPs`. A "
        "change from ClusterIP to NodePort or LoadBalancer, from NodePort to LoadBalancer, or dropping "
        "`loadBalancerSourceRanges`, is a widening.",
        why="A LoadBalancer usually gets a public address; a NodePort opens the port on every node. Either "
        "makes the workload reachable from outside the cluster, where NetworkPolicies and the ingress "
        "controller's authentication no longer stand in front of it. externalIPs can also capture traffic "
        "for addresses the cluster does not own.",
        example="    kind: Service\n    spec:\n      type: LoadBalancer\n      ports:\n        - port: 443",
        fix="Keep the Service `ClusterIP` and publish it through the ingress controller or gateway; if it must "
        "be a LoadBalancer, make it internal (provider annotation) or set `loadBalancerSourceRanges`.",
    ),
)
