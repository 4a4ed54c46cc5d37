"""Rule networkpolicy-widened: the change makes a NetworkPolicy let more traffic through."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.diff.values import deep_equal
from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.netpol import is_network_policy, openings, policy_types


def _widenings(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> Iterator[tuple[str, str, float]]:
    """(facet, description, confidence weight) of each way `after` opens more than `before`."""
    lost = policy_types(before) - policy_types(after)
    for kind in sorted(lost):
        yield kind.lower(), f"no longer restricts {kind.lower()} traffic (policyTypes)", 1.0
    for direction in ("ingress", "egress"):
        if direction.capitalize() not in policy_types(after):
            continue
        for opening in sorted(openings(after, direction) - openings(before, direction)):
            yield direction, f"now allows {opening}", 1.0
    if not deep_equal(before.get("podSelector"), after.get("podSelector")) and as_map(
        after.get("podSelector")
    ):
        yield (
            "podSelector",
            "selects a different set of pods; pods no longer selected lose this isolation",
            0.5,
        )


def _concerns(ctx: RuleContext, pair: ObjectPair) -> Iterator[Concern]:
    assert pair.base is not None and pair.head is not None  # `check` passes changed pairs only
    before, after = as_map(pair.base.body.get("spec")), as_map(pair.head.body.get("spec"))
    grouped: dict[str, list[tuple[str, float]]] = {}
    for facet, text, weight in _widenings(before, after):
        grouped.setdefault(facet, []).append((text, weight))
    for facet, items in sorted(grouped.items()):
        sure = all(weight == 1.0 for _, weight in items)
        yield Concern(
            subject=pair.subject(facet),
            delta=Delta.WIDENED,
            message=f"{pair.display} {'; '.join(text for text, _ in items)}",
            confidence=None if sure else Confidence.LOW,
            location=ctx.index.locate_object(
                pair, (facet, "from", "to", "policyTypes"), in_change=True
            ),
            path=pair.impact_path(
                f"spec.{facet}"
                if facet in ("ingress", "egress", "podSelector")
                else "spec.policyTypes",
                "widens",
            ),
            facts=(Fact("widened", sorted(text for text, _ in items)),),
            scope_paths=pair.scope_paths,
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if (
            pair.base is not None
            and pair.head is not None
            and pair.change is not None
            and is_network_policy(pair.head)
        ):
            yield from _concerns(ctx, pair)


RULE = Rule(
    id="networkpolicy-widened",
    title="NetworkPolicy widened",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="NetworkPolicies changed so that they let more through: a direction dropped from the effective "
        "`policyTypes`; a new ingress/egress rule without peers (every peer), with an ipBlock of 0.0.0.0/0 or "
        "::/0, or with an empty namespaceSelector (every namespace); or a different non-empty podSelector "
        "(low confidence: pods that are no longer selected lose the isolation, which one render cannot list).",
        why="A policy usually narrows who may talk to a workload; a change that reads as tidying can open the "
        "workload to every namespace or to the internet.",
        example="    ingress:\n      - from:\n          - namespaceSelector: {}",
        fix="Name the peers: a namespaceSelector with the namespace's labels, a podSelector for the clients, "
        "and the ports they use.",
    ),
)
