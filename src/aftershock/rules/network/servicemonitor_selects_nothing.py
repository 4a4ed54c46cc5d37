"""Rule servicemonitor-selects-nothing: a Prometheus operator ServiceMonitor selects no Service of its release."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, dig, text
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.release import ReleaseObjects, judge_in_release
from aftershock.rules.support.selectors import Selector, label_selector

MONITORING_GROUP = "monitoring.coreos.com"


def namespaces(obj: RenderedObject) -> frozenset[str] | None:
    """The namespaces the monitor looks in (the operator's rules): its own unless namespaceSelector names
    some; None for `any: true`."""
    selector = as_map(dig(obj.body, "spec", "namespaceSelector"))
    if selector.get("any") is True:
        return None
    names = frozenset(text(name) for name in as_list(selector.get("matchNames")) if text(name))
    return names or frozenset({obj.key.namespace})


def issues(obj: RenderedObject, release: ReleaseObjects, ctx: RuleContext) -> Iterator[Issue]:
    if obj.key.group != MONITORING_GROUP:
        return
    selector = label_selector(dig(obj.body, "spec", "selector")) or Selector((), ())
    where = namespaces(obj)
    found = [
        s
        for s in release.of_kind("Service")
        if (where is None or s.key.namespace in where)
        and selector.matches(as_map(s.body.get("metadata")).get("labels"))
    ]
    if not found:
        scope = "any namespace" if where is None else ", ".join(sorted(where))
        yield Issue(
            facet="selector",
            message=f"selects Services {selector.describe()} in {scope}, and the release "
            "renders none",
            field="spec.selector",
            tokens=("selector", "matchLabels", "matchNames"),
            facts=(Fact("selector", selector.describe()), Fact("namespaces", scope)),
            summary="a selector matching no Service",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_in_release(ctx, issues, ("ServiceMonitor",))


RULE = Rule(
    id="servicemonitor-selects-nothing",
    title="ServiceMonitor selects no Service of the release",
    category=Category.RELIABILITY,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="Prometheus operator ServiceMonitors (monitoring.coreos.com) whose `selector`, in the namespaces "
        "`namespaceSelector` names (its own namespace by default; `any: true` for all), matches the labels of "
        "no Service rendered with it. Inferred: the Service could belong to another release.",
        why="Prometheus silently scrapes nothing: dashboards go flat and alerts on the service's metrics never "
        "fire, which is noticed only during an incident.",
        example="    kind: ServiceMonitor\n    spec:\n      selector:\n        matchLabels: {app.kubernetes.io/name: "
        "web}   # the Service is labelled app.kubernetes.io/name: frontend",
        fix="Render the monitor's selector from the Service's labels helper, and the namespace from the "
        "release's.",
    ),
)
