"""Prometheus alerting rules in rendered PrometheusRule objects: which alerts an object declares."""

from __future__ import annotations

from collections.abc import Iterable

from aftershock.model.objects import RenderedObject
from aftershock.rules.support.access import as_list, as_map, text

PROMETHEUS_RULE = ("monitoring.coreos.com", "PrometheusRule")


def alerts_of(obj: RenderedObject) -> frozenset[str]:
    """`group/alert` of every alerting rule of a PrometheusRule (empty for any other object)."""
    if (obj.key.group, obj.key.kind) != PROMETHEUS_RULE:
        return frozenset()
    return frozenset(
        f"{text(group.get('name'))}/{text(rule.get('alert'))}"
        for group in map(as_map, as_list(as_map(obj.body.get("spec")).get("groups")))
        for rule in map(as_map, as_list(group.get("rules")))
        if text(rule.get("alert"))
    )


def alert_names(objects: Iterable[RenderedObject]) -> frozenset[str]:
    """The alert names (group left out: an alert moved to another group or object still fires)."""
    return frozenset(a.split("/", 1)[1] for o in objects for a in alerts_of(o))
