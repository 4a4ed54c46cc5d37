"""The objects of one render of a chart (a release), for rules that judge an object against the others:
what it selects, names or scales. Built once per render and side, shared by every pair of the render;
only renders of every template of the chart are judged so (a partial one cannot show an absence)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aftershock.model.objects import RenderedObject
from aftershock.model.review import ChartReview
from aftershock.rules.model import Concern, RuleContext
from aftershock.rules.support.access import as_map, dig
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.judge import Issue, judge_pairs_with_others
from aftershock.rules.support.pods import POD_SPEC_KEYS, PodSpec
from aftershock.rules.support.selectors import Selector, workload_selector

WORKLOAD_KINDS = (
    "Deployment",
    "StatefulSet",
    "ReplicaSet",
    "ReplicationController",
    "DaemonSet",
    "DeploymentConfig",
    "Rollout",
    "Job",
    "CronJob",
    "Pod",
)


@dataclass(frozen=True)
class PodTemplate:
    """A workload's pod template: its labels, and its spec when it has one."""

    workload: RenderedObject
    labels: dict[Any, Any]  # as rendered: keys are not checked to be strings
    pod: PodSpec | None


@dataclass(frozen=True)
class ReleaseObjects:
    """Every object one render of one chart produced, with its pod templates."""

    objects: tuple[RenderedObject, ...]
    pods: tuple[PodTemplate, ...]
    # The strings of the values the render was given beyond the chart's defaults (a release's, a
    # scenario's): a name found there was supplied by the user, for an object made elsewhere.
    supplied: frozenset[str] = frozenset()
    _by_name: dict[tuple[str, str, str], list[RenderedObject]] = field(
        default_factory=dict, repr=False
    )

    def named(self, kind: str, namespace: str, name: str) -> list[RenderedObject]:
        """Objects of `kind` called `name` in `namespace` (any API group)."""
        if not self._by_name:
            for obj in self.objects:
                self._by_name.setdefault(
                    (obj.key.kind, obj.key.namespace, obj.key.name), []
                ).append(obj)
        return self._by_name.get((kind, namespace, name), [])

    def of_kind(self, *kinds: str) -> Iterator[RenderedObject]:
        return (obj for obj in self.objects if obj.key.kind in kinds)

    def selected_pods(self, selector: Selector, namespace: str) -> list[PodTemplate]:
        """The pod templates of `namespace` whose labels `selector` matches."""
        return [
            t
            for t in self.pods
            if t.workload.key.namespace == namespace and selector.matches(t.labels)
        ]


def name_words(name: str) -> frozenset[str]:
    """The words of an object's name, and each run of them: a release name with dashes is a run of
    words ("my-app" in "my-app-reader"), so whether a name holds a release's name is `in`."""
    parts = re.split(r"[-.:]", name)
    return frozenset(
        "-".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)
    )


def string_leaves(value: Any) -> Iterator[str]:
    """Every string scalar of a values tree."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from string_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from string_leaves(item)


def pod_template(obj: RenderedObject, pod: PodSpec | None) -> PodTemplate | None:
    """The pod template of a workload, with or without a spec. Without template labels, a workload's
    own selector stands for them (the API server requires the two to match)."""
    if pod is not None:
        labels = as_map(pod.metadata.get("labels"))
    elif obj.key.kind in WORKLOAD_KINDS:
        keys = POD_SPEC_KEYS.get((obj.key.group, obj.key.kind), ("spec", "template", "spec"))
        labels = as_map(dig(obj.body, *keys[:-1], "metadata", "labels"))
    else:
        return None
    if not labels:
        selector = workload_selector(obj.body)
        labels = dict(selector.labels) if selector is not None and not selector.expressions else {}
    return PodTemplate(obj, dict(labels), pod)


def release_objects(ctx: RuleContext, chart: ChartReview, *, head: bool) -> ReleaseObjects:
    """The objects of `chart`'s render at one side, built once per evaluation for every rule:
    keyed by the chart review (its identity checked) and the side, whose values it holds too."""
    key = ("release objects", id(chart), head)
    entry = ctx.index.derived.get(key)
    if entry is None or entry[0] is not chart:
        objects = chart.head_objects if head else chart.base_objects
        templates = (pod_template(o, ctx.index.pod_spec(o)) for o in objects)
        pods = tuple(t for t in templates if t is not None)
        inputs = chart.head_inputs if head else chart.base_inputs
        release = ReleaseObjects(tuple(objects), pods, frozenset(string_leaves(inputs.values)))
        entry = ctx.index.derived[key] = (chart, release)
    return entry[1]


ReleaseIssueFinder = Callable[[RenderedObject, ReleaseObjects, RuleContext], Iterable[Issue]]


def judge_in_release(
    ctx: RuleContext, find: ReleaseIssueFinder, kinds: Iterable[str]
) -> Iterator[Concern]:
    """Concerns of a rule over the pairs of `kinds`, each side judged with the objects of its own render."""

    def with_release(pair: ObjectPair, obj: RenderedObject, c: RuleContext) -> Iterable[Issue]:
        return find(obj, release_objects(c, pair.chart, head=obj is pair.head), c)

    # A render of some templates only cannot say what the release does not create.
    pairs = (p for p in ctx.index.pairs_named(frozenset(kinds)) if p.chart.every_template)
    yield from judge_pairs_with_others(ctx, pairs, with_release)


PodReleaseIssueFinder = Callable[[RenderedObject, PodSpec, ReleaseObjects], Iterable[Issue]]


def judge_pods_in_release(ctx: RuleContext, find: PodReleaseIssueFinder) -> Iterator[Concern]:
    """`judge_in_release` over the objects with a pod spec (and every workload kind), each judged by
    its pod spec; sides without one have no issues."""
    kinds = {pair.key.kind for pair in ctx.index.pod_pairs} | set(WORKLOAD_KINDS)

    def with_pod(obj: RenderedObject, release: ReleaseObjects, ctx: RuleContext) -> Iterable[Issue]:
        pod = ctx.index.pod_spec(obj)
        return () if pod is None else find(obj, pod, release)

    return judge_in_release(ctx, with_pod, kinds)
