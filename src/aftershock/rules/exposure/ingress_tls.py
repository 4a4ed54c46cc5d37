"""Rule ingress-without-tls: an Ingress serves hosts without TLS."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.judge import Issue, judge_objects

INGRESS_GROUPS = ("networking.k8s.io", "extensions")
INGRESSES = frozenset((group, "Ingress") for group in INGRESS_GROUPS)


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    if obj.key.kind != "Ingress" or obj.key.group not in INGRESS_GROUPS:
        return
    spec = as_map(obj.body.get("spec"))
    covered = {
        text(host)
        for entry in as_list(spec.get("tls"))
        for host in as_list(as_map(entry).get("hosts"))
    }
    hosts = {text(as_map(rule).get("host")) or "*" for rule in as_list(spec.get("rules"))}
    if not hosts and spec.get("defaultBackend") is not None:
        hosts = {"*"}
    plain = frozenset(
        host for host in hosts if host not in covered and not (host == "*" and spec.get("tls"))
    )
    if plain:
        listed = ", ".join(sorted(plain))
        yield Issue(
            facet="tls",
            message=f"serves {listed} without TLS (no spec.tls entry covers it)",
            field="spec.tls",
            tokens=("tls", "host", *sorted(plain)),
            items=plain,
            facts=(Fact("hosts", sorted(plain)),),
            summary=f"no TLS for {listed}",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_objects(ctx, issues, kinds=INGRESSES)


RULE = Rule(
    id="ingress-without-tls",
    title="Ingress without TLS",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Ingress hosts (networking.k8s.io and extensions) that no `spec.tls[*].hosts` entry covers; a rule "
        "without a host, or a default backend, counts as `*`. Medium confidence: a load balancer in front of "
        "the ingress controller may terminate TLS. A newly uncovered host is a widening.",
        why="Without TLS at the ingress, credentials, session cookies and payloads travel in clear text between "
        "the client and the cluster edge, and can be read or altered on the way.",
        example="    spec:\n      rules:\n        - host: orders.example.com\n          http: {...}\n      # no tls:",
        fix="Add a `tls` entry with the host and a certificate Secret (cert-manager can issue it), or document "
        "where TLS terminates and disable the rule for that path.",
    ),
)
