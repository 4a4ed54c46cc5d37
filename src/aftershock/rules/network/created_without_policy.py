"""Rule new-workload-without-networkpolicy: the change creates a workload no NetworkPolicy of its release selects."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map
from aftershock.rules.support.created import created_workloads, creation_concern
from aftershock.rules.support.netpol import is_network_policy
from aftershock.rules.support.selectors import label_selector


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair, pod in created_workloads(ctx):
        policies = [o for o in pair.chart.head_objects if is_network_policy(o)]
        if not policies:
            continue  # the release writes no policies: isolation is the cluster's business
        labels = as_map(pod.metadata.get("labels"))
        namespace = pair.key.namespace
        selecting = [
            p
            for p in policies
            if p.key.namespace == namespace
            and (selector := label_selector(as_map(p.body.get("spec")).get("podSelector")))
            is not None
            and selector.matches(labels)
        ]
        if selecting:
            continue
        concern = creation_concern(
            ctx,
            pair,
            "networkpolicy",
            f"is selected by none of the release's {len(policies)} NetworkPolicies, so its pods "
            f"accept traffic from anywhere",
            pod.metadata_path("labels"),
            ("labels",),
        )
        names = sorted(p.key.name for p in policies)
        yield replace(concern, facts=(*concern.facts, Fact("policies", names)))


RULE = Rule(
    id="new-workload-without-networkpolicy",
    title="New workload no NetworkPolicy selects",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="Long-running workloads the change creates whose pod labels no NetworkPolicy of the same "
        "render selects in their namespace, when that render has NetworkPolicies at all (a release that "
        "writes none leaves isolation to the cluster and is not judged). Inferred from the release: a "
        "policy applied from elsewhere is not seen.",
        why="Where a chart isolates its pods with NetworkPolicies, a new workload outside all of them is "
        "open to every pod of the cluster, usually by oversight: its labels differ from the ones the "
        "policies were written for.",
        example="    # networkpolicy.yaml selects app.kubernetes.io/component: api\n"
        "    # the new worker Deployment's pods carry app.kubernetes.io/component: worker",
        fix="Add a NetworkPolicy for the new workload (or widen an existing podSelector to its labels) "
        "allowing only the traffic it needs.",
    ),
)
