"""Rule new-workload-without-resources: the change creates a workload whose container requests nothing."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import dig
from aftershock.rules.support.created import created_containers, creation_concern


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair, _, container in created_containers(ctx):
        set_any = any(
            dig(container.body, "resources", kind, name) is not None
            for kind in ("requests", "limits")
            for name in ("cpu", "memory")
        )
        if set_any:
            continue
        yield creation_concern(
            ctx,
            pair,
            container.label,
            f"sets no cpu or memory requests or limits on {container.label}",
            container.path("resources"),
            ("resources", container.name),
        )


RULE = Rule(
    id="new-workload-without-resources",
    title="New workload without resource requests or limits",
    category=Category.RELIABILITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Long-running workloads (Deployment, StatefulSet, DaemonSet, ReplicaSet, Rollout, "
        "DeploymentConfig) the change creates with a container that sets none of `resources.requests` or "
        "`resources.limits` for cpu and memory (`resources: {}`). Reported once, when the workload appears; "
        "`resources-removed` covers entries taken from an existing one.",
        why="A pod without requests is scheduled anywhere, is the first evicted under node pressure and "
        "gives the autoscaler nothing to work with; without a memory limit one leak can take its neighbours "
        "down. A namespace LimitRange may supply defaults, which the render cannot show.",
        example="    containers:\n      - name: api\n        resources: {}",
        fix="Set requests from observed usage and a memory limit (`resources: {requests: {cpu: 100m, "
        "memory: 128Mi}, limits: {memory: 256Mi}}`), as chart defaults users can override.",
    ),
)
