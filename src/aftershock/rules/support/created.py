"""Workloads the change creates: long-running pod owners present at head only, for the creation-time rules
(what a new workload lacks is reported once, when it appears, never as a standing concern)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Delta, Fact
from aftershock.rules.model import Concern, RuleContext
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.pods import Container, PodSpec, containers_of

# Owners of pods meant to keep running; Jobs, CronJobs and bare Pods end or are not rolled.
LONG_RUNNING = frozenset(
    {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Rollout", "DeploymentConfig"}
)


def created_workloads(ctx: RuleContext) -> Iterator[tuple[ObjectPair, PodSpec]]:
    """(pair, pod spec at head) of each long-running workload absent at base."""
    for pair in ctx.index.pod_pairs:
        if pair.base is not None or pair.head is None or pair.key.kind not in LONG_RUNNING:
            continue
        pod = ctx.index.pod_spec(pair.head)
        if pod is not None:
            yield pair, pod


def created_containers(ctx: RuleContext) -> Iterator[tuple[ObjectPair, PodSpec, Container]]:
    """The main containers (not init or ephemeral ones) of the created workloads."""
    for pair, pod in created_workloads(ctx):
        for container in containers_of(pod):
            if container.list_name == "containers":
                yield pair, pod, container


def creation_concern(
    ctx: RuleContext,
    pair: ObjectPair,
    facet: str,
    message: str,
    field: str,
    tokens: tuple[str, ...],
) -> Concern:
    """A concern about a workload the change creates: introduced, pointing at its template in the change."""
    return Concern(
        subject=pair.subject(facet),
        message=f"{pair.display} (new object) {message}",
        delta=Delta.INTRODUCED,
        location=ctx.index.locate_object(pair, tokens, in_change=True),
        path=pair.impact_path(field, "creates"),
        facts=(Fact("field", field),),
        scope_paths=pair.scope_paths,
    )
