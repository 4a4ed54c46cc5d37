"""Rule networkpolicy-removed: the change deletes a NetworkPolicy."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, dig
from aftershock.rules.support.netpol import is_network_policy, policy_types


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if pair.base is None or pair.head is not None or not is_network_policy(pair.base):
            continue
        spec = as_map(pair.base.body.get("spec"))
        selector = dig(spec, "podSelector", "matchLabels") or (
            "every pod" if not as_map(spec.get("podSelector")) else "its selector"
        )
        types = ", ".join(sorted(policy_types(spec)))
        yield Concern(
            subject=pair.subject("policy"),
            delta=Delta.INTRODUCED,
            message=f"{pair.display} is deleted: the pods it selected ({selector}) lose its {types} isolation",
            location=ctx.index.locate_object(pair, ("NetworkPolicy",), in_change=True),
            path=pair.impact_path(),
            facts=(Fact("policy_types", sorted(policy_types(spec))), Fact("selector", selector)),
            scope_paths=pair.scope_paths,
        )


RULE = Rule(
    id="networkpolicy-removed",
    title="NetworkPolicy removed",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="NetworkPolicies rendered at base and absent at head (a rename to a similar policy is not a "
        "removal: it shows as a change and is judged by networkpolicy-widened).",
        why="Pods selected only by that policy go back to accepting (or sending) traffic from anywhere in the "
        "cluster; other policies may still select them, which a render of one chart cannot see.",
        example="    # base renders\n    kind: NetworkPolicy\n    metadata: {name: orders-ingress}\n    # head renders nothing",
        fix="Keep the policy, or replace it in the same change with one that selects the same pods.",
    ),
)
