"""Rule pss-capabilities-restricted: a container keeps default capabilities (PSS restricted)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, dig
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of, is_windows_pod
from aftershock.rules.support.pss import (
    BASELINE_CAPABILITIES,
    PSS_REFERENCE,
    RESTRICTED_ADD_CAPABILITIES,
    capability_name,
)


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if (
        pod is None
        or ctx.kube_version < (1, 22)
        or (ctx.kube_version >= (1, 25) and is_windows_pod(pod))
    ):
        return
    for container in containers_of(pod):
        capabilities = dig(container.security_context, "capabilities")
        dropped = {capability_name(c) for c in as_list(dig(capabilities, "drop"))}
        added = {capability_name(c) for c in as_list(dig(capabilities, "add"))}
        problems = set()
        if "ALL" not in dropped:
            problems.add("does not drop ALL")
        # additions beyond the baseline set are reported by pss-capabilities-baseline
        problems |= {
            f"adds {c}" for c in (added & BASELINE_CAPABILITIES) - RESTRICTED_ADD_CAPABILITIES
        }
        if problems:
            listed = "; ".join(sorted(problems))
            yield Issue(
                facet=container.label,
                message=f"keeps capabilities in {container.label} ({listed})",
                field=container.path("securityContext", "capabilities"),
                tokens=("capabilities", "drop"),
                items=frozenset(problems),
                facts=(Fact("problems", sorted(problems)),),
                summary=listed,
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="pss-capabilities-restricted",
    title="Capabilities not dropped",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what='Pod Security Standards, restricted, control "Capabilities" (1.22 and later; Windows pods exempt '
        "from 1.25): every container must drop `ALL` and may add back only `NET_BIND_SERVICE`. Additions "
        "outside the baseline set are reported by pss-capabilities-baseline instead.",
        why="Container runtimes grant a default set of about fourteen capabilities (CHOWN, SETUID, NET_RAW, ...) "
        "that most applications never use; NET_RAW alone allows spoofing traffic inside the cluster network.",
        example='    securityContext:\n      capabilities:\n        add: ["CHOWN"]   # and no drop: [ALL]',
        fix='Set `capabilities: {drop: ["ALL"]}` and add back `NET_BIND_SERVICE` only to bind ports below 1024.',
    ),
)
