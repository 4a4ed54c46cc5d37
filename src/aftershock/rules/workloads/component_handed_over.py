"""Rule component-handed-over: an operator's custom resource stops managing a component.

A field `spec.….<component>.enabled` of a custom resource (an API group that is not Kubernetes'
own, and not a GitOps release, whose values are another chart's) turns from true to false: the
operator stops deploying that component, and what ran it before must now come from elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc

# Groups whose objects are not an operator's: Kubernetes' own, and releases of other charts.
NOT_OPERATORS = ("k8s.io", "helm.toolkit.fluxcd.io", "argoproj.io", "kustomize.toolkit.fluxcd.io")
CORE_GROUPS = frozenset({"", "apps", "batch", "policy", "autoscaling"})


def _operator_resource(group: str) -> bool:
    return group not in CORE_GROUPS and not group.endswith(NOT_OPERATORS)


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if pair.change is None or pair.head is None or not _operator_resource(pair.key.group):
            continue
        off = [
            f.path.removesuffix(".enabled")
            for f in pair.change.fields
            if f.path.startswith("spec.")
            and f.path.endswith(".enabled")
            and f.before is True
            and f.after is False
        ]
        if not off:
            continue
        components = ", ".join(path.rsplit(".", 1)[-1] for path in off)
        yield Concern(
            subject=pair.subject("handed-over"),
            message=f"{pair.display} stops managing {components} ({', '.join(f'{p}.enabled' for p in off)}: "
            "true → false): the workloads that used them now rely on the host or another release "
            "to provide them, and nothing in the change makes them wait for it; a rollback to one "
            "owner is not verified",
            delta=Delta.INTRODUCED,
            facts=(Fact("components", components), Fact("fields", [f"{p}.enabled" for p in off])),
            location=ctx.index.locate_object(pair, ("enabled",), in_change=True),
            path=pair.impact_path(f"{off[0]}.enabled"),
            scope_paths=pair.scope_paths,
        )


RULE = Rule(
    id="component-handed-over",
    title="Operator stops managing a component",
    category=Category.RELIABILITY,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="A custom resource (an API group that is not Kubernetes' own nor a Flux or Argo CD release) "
        "whose `spec.….<component>.enabled` turns from true to false: the operator reading it stops "
        "deploying that component (a GPU operator's `driver`, `toolkit`). Inferred from the field's name.",
        why="The component does not vanish from the nodes' needs: the workloads now depend on what the "
        "host image or another release provides. Nothing orders the hand-over (no `dependsOn`, health "
        "check or readiness gate), so during the rollout both or neither may run it, and going back to "
        "the operator is a second migration nobody tested.",
        example="    kind: ClusterPolicy\n    spec:\n      driver:\n        enabled: false   # was true",
        fix="Say in the change what provides the component now, and gate on it: a `dependsOn` on the "
        "release that installs it, or a node label the workloads select; keep the way back written down.",
    ),
)
