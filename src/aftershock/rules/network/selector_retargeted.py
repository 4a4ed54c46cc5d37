"""Rule selector-retargeted: a selector that matched workloads (or Services) at base matches others at head.

A Service, PodDisruptionBudget, NetworkPolicy, PodMonitor or ServiceMonitor is compared with what it
selects in its own render at each ref: the workloads whose pod templates its selector matches (the
Services, for a ServiceMonitor). Only targets present at both refs count: a workload the change
deletes or adds is not a selector that stopped matching.
"""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.network.servicemonitor_selects_nothing import MONITORING_GROUP, namespaces
from aftershock.rules.support.access import as_map, dig, text
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.release import ReleaseObjects, release_objects
from aftershock.rules.support.selectors import object_selector

KINDS = frozenset(
    {"Service", "PodDisruptionBudget", "NetworkPolicy", "PodMonitor", "ServiceMonitor"}
)
MAX_NAMED = 3


def selected(obj: RenderedObject, release: ReleaseObjects) -> frozenset[str] | None:
    """What `obj` selects in its render, by display name; None when it selects by no selector."""
    kind = obj.key.kind
    if kind == "Service" and text(as_map(obj.body.get("spec")).get("type")) == "ExternalName":
        return None
    _, selector = object_selector(kind, obj.body)
    if selector is None or selector.empty:
        return None  # no selector, or one that selects everything: nothing to retarget
    where: frozenset[str] | None = frozenset({obj.key.namespace})
    if kind in ("PodMonitor", "ServiceMonitor"):
        if obj.key.group != MONITORING_GROUP:
            return None
        where = namespaces(obj)
    if kind == "ServiceMonitor":
        return frozenset(
            str(s.key)
            for s in release.of_kind("Service")
            if (where is None or s.key.namespace in where)
            and selector.matches(as_map(s.body.get("metadata")).get("labels"))
        )
    return frozenset(
        str(t.workload.key)
        for t in release.pods
        if (where is None or t.workload.key.namespace in where) and selector.matches(t.labels)
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs_named(KINDS):
        if pair.base is None or pair.head is None or not pair.chart.every_template:
            continue
        base_release = release_objects(ctx, pair.chart, head=False)
        head_release = release_objects(ctx, pair.chart, head=True)
        before = selected(pair.base, base_release)
        after = selected(pair.head, head_release)
        if not before or after is None:
            continue  # selecting nothing at base is service-selects-nothing's
        both = _targets(base_release, pair.head.key.kind) & _targets(
            head_release, pair.head.key.kind
        )
        lost, gained = sorted((before - after) & both), sorted((after - before) & both)
        if not lost and not gained:
            continue
        yield _concern(ctx, pair.head, pair, lost, gained)


def _targets(release: ReleaseObjects, kind: str) -> frozenset[str]:
    if kind == "ServiceMonitor":
        return frozenset(str(s.key) for s in release.of_kind("Service"))
    return frozenset(str(t.workload.key) for t in release.pods)


def _concern(
    ctx: RuleContext, head: RenderedObject, pair: ObjectPair, lost: list[str], gained: list[str]
) -> Concern:
    field = "spec.podSelector" if head.key.kind == "NetworkPolicy" else "spec.selector"
    parts = []
    if lost:
        parts.append(f"no longer selects {_named(lost)} it selected at base")
    if gained:
        parts.append(f"now also selects {_named(gained)}")
    selector = dig(head.body, *field.split("."))
    return Concern(
        subject=pair.subject("selector-targets"),
        message=f"{pair.display} {' and '.join(parts)} ({field}: {_short(selector)})",
        delta=Delta.INTRODUCED,
        facts=(
            Fact("field", field),
            Fact("lost", ", ".join(lost)),
            Fact("gained", ", ".join(gained)),
        ),
        location=ctx.index.locate_object(pair, ("selector", "podSelector"), in_change=True),
        path=pair.impact_path(field),
        scope_paths=pair.scope_paths,
    )


def _named(names: list[str]) -> str:
    shown = ", ".join(names[:MAX_NAMED])
    return shown + (f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else "")


def _short(value: object) -> str:
    return " ".join(str(value).split())[:160]


RULE = Rule(
    id="selector-retargeted",
    title="Selector matches other workloads than at base",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="A Service, PodDisruptionBudget, NetworkPolicy or PodMonitor whose selector matched the pod "
        "templates of some workloads at base and, at head, no longer matches one of them or also matches "
        "another; a ServiceMonitor likewise for Services. Each ref's selector is matched against the "
        "objects of its own render, and only targets rendered at both refs count (a workload the change "
        "adds or deletes is not a retargeted selector). Observed in both renders.",
        why="The object keeps its name, so the diff shows a label edit, but what it governs moves: a Service "
        "sends traffic to other pods (or none), a PodDisruptionBudget stops protecting a workload, a "
        "NetworkPolicy isolates or opens other pods, a monitor stops scraping. Pod labels and selectors "
        "edited in different templates drift apart this way.",
        example="    kind: Service\n    spec:\n      selector: {app.kubernetes.io/name: api}\n"
        "    # the change renames the pods' label to app.kubernetes.io/name: api-server",
        fix="Render selectors and pod labels from the same named template (`selectorLabels`), or change "
        "both in the same commit; if the new target is intended, say so in the change.",
    ),
)
