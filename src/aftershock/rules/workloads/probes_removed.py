"""Rule probes-removed: the change removes a liveness, readiness or startup probe."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc

PROBES = ("readinessProbe", "livenessProbe", "startupProbe")


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair, container, kept in ctx.index.kept_containers():
        if container.list_name != "containers":
            continue
        for probe in PROBES:
            if container.body.get(probe) is not None and kept.body.get(probe) is None:
                field = kept.path(probe)
                yield Concern(
                    subject=pair.subject(f"{container.label} {probe}"),
                    message=f"{pair.display}: the change removes the {probe} of {container.label}",
                    delta=Delta.INTRODUCED,
                    severity=Severity.HIGH if probe == "readinessProbe" else None,
                    location=ctx.index.locate_object(pair, (probe,), in_change=True),
                    path=pair.impact_path(field, "removes"),
                    facts=(Fact("field", field),),
                    scope_paths=pair.scope_paths,
                )


RULE = Rule(
    id="probes-removed",
    title="Health probe removed",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Containers (not init containers) that had a readiness, liveness or startup probe at base and have "
        "none at head. Removing a readiness probe is graded high.",
        why="Without a readiness probe, a pod gets traffic as soon as it starts, and a rolling update proceeds "
        "even when the new version cannot serve; without a liveness probe a hung process is never restarted.",
        example="    containers:\n      - name: app\n    -   readinessProbe:\n    -     httpGet: {path: /ready, port: 8080}",
        fix="Keep the probe; if it misbehaved, fix its thresholds (`initialDelaySeconds`, `failureThreshold`) or "
        "add a startupProbe for slow starts.",
    ),
)
