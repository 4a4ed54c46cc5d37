"""Rule pss-capabilities-baseline: a container adds Linux capabilities beyond the baseline set (PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, dig
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of
from aftershock.rules.support.pss import (
    BASELINE_CAPABILITIES,
    NODE_ROOT_CAPABILITIES,
    PSS_REFERENCE,
    capability_name,
)


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for container in containers_of(pod):
        added = {
            capability_name(c)
            for c in as_list(dig(container.security_context, "capabilities", "add"))
        }
        extra = frozenset(added - BASELINE_CAPABILITIES)
        if not extra:
            continue
        names = ", ".join(sorted(extra))
        root_like = bool({c.upper().removeprefix("CAP_") for c in extra} & NODE_ROOT_CAPABILITIES)
        path = container.path("securityContext", "capabilities", "add")
        yield Issue(
            facet=container.label,
            message=f"gives {container.label} the capabilities {names} ({path})",
            field=path,
            tokens=tuple(sorted(extra)),
            items=extra,
            grade=2 if root_like else 1,
            severity=Severity.CRITICAL if root_like else None,
            facts=(Fact("capabilities", sorted(extra)),),
            summary=names,
        )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"add"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-capabilities-baseline",
    title="Capabilities beyond the baseline set",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what="`securityContext.capabilities.add` entries of any container outside the baseline set AUDIT_WRITE, "
        "CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD, NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID, "
        'SYS_CHROOT (Pod Security Standards, baseline, control "Capabilities"). Names are compared exactly, '
        "as the admission controller does. Adding ALL, SYS_ADMIN, SYS_MODULE, SYS_RAWIO, SYS_PTRACE, BPF or "
        "DAC_READ_SEARCH is graded critical. A container gaining a capability is a widening.",
        why="Capabilities split root's powers; the ones outside the baseline set (NET_ADMIN, SYS_ADMIN, "
        "SYS_PTRACE, ...) let a process reconfigure the node's network, mount filesystems, trace other "
        "processes or load kernel modules, which are the usual steps of a container escape.",
        example='    securityContext:\n      capabilities:\n        add: ["NET_ADMIN", "SYS_TIME"]',
        fix="Drop the capability, or replace it with a narrower mechanism (a sidecar with the privilege, an "
        'init container that prepares the node, a CSI driver). Start from `drop: ["ALL"]` and add back only '
        "what the process needs.",
    ),
)
