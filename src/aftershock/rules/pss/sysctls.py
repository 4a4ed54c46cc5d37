"""Rule pss-sysctls: a pod sets sysctls outside the safe set (PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import pod_security_context
from aftershock.rules.support.pss import PSS_REFERENCE, allowed_sysctls


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    allowed = allowed_sysctls(ctx.kube_version)
    names = {
        text(as_map(entry).get("name"))
        for entry in as_list(pod_security_context(pod).get("sysctls"))
    }
    forbidden = frozenset(names - allowed)
    if forbidden:
        path = pod.path("securityContext", "sysctls")
        listed = ", ".join(sorted(forbidden))
        yield Issue(
            facet="sysctls",
            message=f"sets unsafe sysctls {listed} ({path})",
            field=path,
            tokens=tuple(sorted(forbidden)),
            items=forbidden,
            facts=(Fact("sysctls", sorted(forbidden)),),
            summary=listed,
        )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"sysctls"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-sysctls",
    title="Unsafe sysctls",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what="`spec.securityContext.sysctls[*].name` outside the safe set of the Pod Security Standards "
        '(baseline, control "Sysctls"), by target version: kernel.shm_rmid_forced, '
        "net.ipv4.ip_local_port_range, net.ipv4.tcp_syncookies, net.ipv4.ping_group_range, "
        "net.ipv4.ip_unprivileged_port_start; from 1.27 also net.ipv4.ip_local_reserved_ports; from 1.29 also "
        "net.ipv4.tcp_keepalive_time, net.ipv4.tcp_fin_timeout, net.ipv4.tcp_keepalive_intvl and "
        "net.ipv4.tcp_keepalive_probes.",
        why="Sysctls outside the namespaced safe set change kernel settings of the whole node, for every pod "
        "on it; the kubelet also rejects them unless it was started with them allowed.",
        example='    securityContext:\n      sysctls:\n        - name: kernel.msgmax\n          value: "65536"',
        fix="Remove the sysctl, or set it on the nodes (node configuration, a tuned DaemonSet run by the "
        "platform team) rather than from the workload.",
    ),
)
