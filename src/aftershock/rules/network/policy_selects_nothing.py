"""Rule networkpolicy-selects-nothing: a NetworkPolicy (or one of its pod peers) selects no pod of its release."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.release import ReleaseObjects, judge_in_release
from aftershock.rules.support.selectors import label_selector

PEERS = (("ingress", "from"), ("egress", "to"))


def issues(obj: RenderedObject, release: ReleaseObjects, ctx: RuleContext) -> Iterator[Issue]:
    spec = as_map(obj.body.get("spec"))
    namespace = obj.key.namespace
    selector = label_selector(spec.get("podSelector"))
    if (
        selector is not None
        and not selector.empty
        and not release.selected_pods(selector, namespace)
    ):
        yield Issue(
            facet="podSelector",
            message=f"applies to {selector.describe()}, which no pod template of the "
            "release carries",
            field="spec.podSelector",
            tokens=("podSelector",),
            summary="selects no pod",
        )
    for direction, side in PEERS:
        for i, rule in enumerate(as_list(spec.get(direction))):
            for j, peer in enumerate(as_list(as_map(rule).get(side))):
                peer = as_map(peer)
                selector = label_selector(peer.get("podSelector"))
                if selector is None or selector.empty or "namespaceSelector" in peer:
                    continue  # a namespaceSelector reaches pods of other namespaces, which no render shows
                if not release.selected_pods(selector, namespace):
                    path = f"spec.{direction}[{i}].{side}[{j}].podSelector"
                    yield Issue(
                        facet=f"{direction} peer {selector.describe()}",
                        message=f"allows {direction} {side} {selector.describe()}, which no pod template of "
                        "the release carries",
                        field=path,
                        tokens=("podSelector",),
                        facts=(Fact("selector", selector.describe()),),
                        summary="a peer matching no pod",
                    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_in_release(ctx, issues, ("NetworkPolicy",))


RULE = Rule(
    id="networkpolicy-selects-nothing",
    title="NetworkPolicy selects no pod of the release",
    category=Category.RELIABILITY,
    severity=Severity.LOW,
    confidence=Confidence.LOW,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="NetworkPolicies whose non-empty `podSelector`, or an ingress/egress peer's `podSelector` without "
        "a `namespaceSelector`, matches no pod template rendered with them in the same namespace. Inferred with "
        "low confidence: a policy may be meant for pods of another release.",
        why="A policy that selects nothing protects nothing: the pods it was written for stay open (or stay "
        "cut off, for a peer that matches nothing), and the mismatch is invisible in the render.",
        example="    podSelector:\n      matchLabels: {app.kubernetes.io/name: api}\n    # the pods are labelled "
        "app.kubernetes.io/name: backend",
        fix="Render the selector from the same named template as the pod labels.",
    ),
)
