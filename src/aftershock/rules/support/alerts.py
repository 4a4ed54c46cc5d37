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


# The last key of a switch names no feature: `logRouter.enabled` switches the log router.
_SWITCH_WORDS = frozenset({"enabled", "enable", "create", "deploy", "install", "active"})


def switched_off(scenario: str) -> str | None:
    """The feature a `toggle:<key>=false` scenario switches off, as one lower-case word run
    (`toggle:logRouter.enabled=false` → `logrouter`); None for any other scenario."""
    if not scenario.startswith("toggle:") or not scenario.endswith("=false"):
        return None
    keys = scenario[len("toggle:") : -len("=false")].split(".")
    named = [k for k in keys if k.lower() not in _SWITCH_WORDS]
    feature = "".join(c for c in (named[-1] if named else "") if c.isalnum()).lower()
    return feature if len(feature) >= 4 else None


def about(feature: str, alerts: Iterable[str]) -> bool:
    """Whether every alert names the feature (`OpenstackHermesLogRouterDLQFallback`, `logrouter`)."""
    names = list(alerts)
    return bool(names) and all(feature in "".join(filter(str.isalnum, a)).lower() for a in names)
