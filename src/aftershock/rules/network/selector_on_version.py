"""Rule selector-on-version-label: a selector on a label that changes with every release."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.release import WORKLOAD_KINDS
from aftershock.rules.support.selectors import Selector, object_selector, workload_selector

# Labels whose value is the chart's or the app's version: they change with every chart bump.
VERSION_LABELS = frozenset(
    {"helm.sh/chart", "chart", "app.kubernetes.io/version", "version", "chart-version"}
)
# Workload selectors are immutable: a version in one fails the next upgrade that changes it.
IMMUTABLE_SELECTORS = frozenset(WORKLOAD_KINDS) - {"Pod", "Job", "CronJob"}


def _selector(obj: RenderedObject) -> tuple[str, Selector | None]:
    """The field and the selector of the object, when its kind selects pods by one."""
    if obj.key.kind in IMMUTABLE_SELECTORS:
        return "spec.selector", workload_selector(obj.body)
    return object_selector(obj.key.kind, obj.body)


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    field, selector = _selector(obj)
    if selector is None:
        return
    named = {k for k, _ in selector.labels} | {k for k, _, _ in selector.expressions}
    keys = sorted(named & VERSION_LABELS)
    if not keys:
        return
    immutable = obj.key.kind in IMMUTABLE_SELECTORS
    consequence = (
        "the selector is immutable, so the next upgrade that changes it fails"
        if immutable
        else "each upgrade leaves the old pods unselected while they still run"
    )
    yield Issue(
        facet="version-selector",
        message=f"selects on {', '.join(keys)}, a label that changes with every release: "
        f"{consequence} ({field})",
        field=field,
        tokens=tuple(keys),
        severity=Severity.HIGH if immutable else Severity.MEDIUM,
        facts=(Fact("labels", ", ".join(keys)),),
        summary=f"a selector on {', '.join(keys)}",
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_objects(ctx, issues)


RULE = Rule(
    id="selector-on-version-label",
    title="Selector on a label that changes with every release",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Selectors (a workload's `spec.selector`, a Service's, a PodDisruptionBudget's, a NetworkPolicy's "
        "`podSelector`, a PodMonitor's or ServiceMonitor's) that name a version label: `helm.sh/chart`, "
        "`chart`, `app.kubernetes.io/version`, `version`. High on a Deployment, StatefulSet, DaemonSet or "
        "ReplicaSet, whose selector is immutable; Medium elsewhere.",
        why="The label's value is the chart's or the application's version, so every bump changes it. A "
        "workload's selector cannot change: the upgrade that bumps the chart fails with `field is "
        "immutable`. A Service or budget selecting on it drops the old pods during each rollout: traffic "
        "and protection go to the new pods only, before they are ready.",
        example="    selector:\n      matchLabels:\n        app.kubernetes.io/name: web\n"
        "        helm.sh/chart: web-1.4.2",
        fix="Select on stable labels only (`app.kubernetes.io/name`, `app.kubernetes.io/instance`): put "
        "version labels in the pod template's labels, not in the selector (`selectorLabels` apart from "
        "`labels` in `_helpers.tpl`).",
    ),
)
