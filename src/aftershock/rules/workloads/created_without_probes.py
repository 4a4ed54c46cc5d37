"""Rule new-workload-without-probes: the change creates a workload whose container has no health probe."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.created import created_containers, creation_concern
from aftershock.rules.workloads.probes_removed import PROBES


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair, _, container in created_containers(ctx):
        if any(container.body.get(probe) is not None for probe in PROBES):
            continue
        yield creation_concern(
            ctx,
            pair,
            container.label,
            f"has no readiness, liveness or startup probe on {container.label}",
            container.path("readinessProbe"),
            ("containers", container.name),
        )


RULE = Rule(
    id="new-workload-without-probes",
    title="New workload without health probes",
    category=Category.RELIABILITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Deployments, StatefulSets, DaemonSets, ReplicaSets, Rollouts and DeploymentConfigs that the "
        "change creates, with a container (not an init container) that has no readinessProbe, "
        "livenessProbe or startupProbe. Reported once, when the workload appears; `probes-removed` covers "
        "probes taken from an existing one.",
        why="Without a readiness probe the pod gets traffic as soon as it starts and a rolling update "
        "proceeds even when the new version cannot serve; without a liveness probe a hung process is never "
        "restarted. The creating change is the cheap moment to add them.",
        example="    containers:\n      - name: api\n        image: registry.example.com/api:1.0.0\n"
        "        # no readinessProbe / livenessProbe",
        fix="Add a readinessProbe on the serving port (`httpGet` on a health path, or `tcpSocket`), a "
        "livenessProbe with a generous `failureThreshold`, and a startupProbe for slow starts.",
    ),
)
