"""The rendered half of the impact graph (pure): changed objects of each chart review, the releases that
install downstream charts, the workloads the objects are or feed, and their namespaces.

A chart review is one render scope: a chart with its defaults (`path`), a chart as a release installs it
(`path@release`), or a values scenario (`...#scenario`), named as the review document names it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aftershock.diff.text_edits import comparable_change
from aftershock.graph.model import (
    Edge,
    EdgeKind,
    Node,
    NodeKind,
    chart_node_id,
    namespace_node_id,
    node_id,
    template_node_id,
)
from aftershock.graph.workloads import fed_workloads, is_workload
from aftershock.model.diff import ObjectChange, ObjectChangeKind
from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import (
    ReleaseSpec,
    cluster_tree,
    release_id,
    release_label,
    split_release_id,
)
from aftershock.model.review import ChartReview
from aftershock.model.units import ValuesKeyChange
from aftershock.releases.chart_sources import DECLARED_SOURCE
from aftershock.releases.parse import release_spec

DEFAULT_SCENARIO = "default"


@dataclass(frozen=True)
class Part:
    nodes: tuple[Node, ...] = ()
    edges: tuple[Edge, ...] = ()


def join(parts: Iterable[Part]) -> Part:
    parts = tuple(parts)
    return Part(tuple(n for p in parts for n in p.nodes), tuple(e for p in parts for e in p.edges))


def review_scope(review: ChartReview) -> str:
    """The id the review document gives a chart review (report.canonical.review_id)."""
    base = install_scope(review)
    return base if review.scenario == DEFAULT_SCENARIO else f"{base}#{review.scenario}"


def install_scope(review: ChartReview) -> str:
    """The chart as installed: `path`, or `path@release`; one workload whichever scenario shows it."""
    return f"{review.chart}@{review.release}" if review.release else review.chart


def object_ref(scope: str, key: ObjectKey) -> str:
    """The id the review document gives an object change (report.object_entries.object_id)."""
    return f"{scope}::{key.id}"


def rendered_part(
    reviews: Sequence[ChartReview], values_changes: Sequence[ValuesKeyChange]
) -> Part:
    """Objects, releases, workloads and namespaces of every chart review."""
    defaults = {
        (r.chart, r.release): [comparable_change(c) for c in r.changes]
        for r in reviews
        if r.scenario == DEFAULT_SCENARIO
    }
    parts = [_release(r, values_changes) for r in reviews if r.release]
    for review in reviews:
        shown = (
            defaults.get((review.chart, review.release), [])
            if review.scenario != DEFAULT_SCENARIO
            else []
        )
        # A scenario's change identical to the default scenario's adds nothing the default does not show.
        parts += [
            _object(review, c)
            for c in review.changes
            if not shown or comparable_change(c) not in shown
        ]
    part = join(parts)
    releases = {n.ref: n.id for n in part.nodes if n.kind is NodeKind.RELEASE}
    defines = tuple(
        Edge(_object_node(r, c), releases[declared], EdgeKind.DEFINES, "the release object")
        for r in reviews
        for c in r.changes
        if (declared := release_id(c.key, _tree(r, c))) in releases
    )
    return Part(
        part.nodes,
        part.edges
        + defines
        + _values_from(reviews, part.nodes, releases)
        + _chart_sources(reviews, releases),
    )


def _tree(review: ChartReview, change: ObjectChange) -> str | None:
    """The cluster tree a rendered object lives in: its render's release's, else its manifest file's
    (as pipeline/following/releases.py names the releases it finds)."""
    if review.release:
        return split_release_id(review.release)[1]
    return cluster_tree(change.templates[0]) if change.templates else None


def _object_node(review: ChartReview, change: ObjectChange) -> str:
    kind = NodeKind.DOWNSTREAM_OBJECT if review.release else NodeKind.OBJECT
    return node_id(kind, object_ref(review_scope(review), change.key))


def _values_from(
    reviews: Sequence[ChartReview], nodes: Sequence[Node], releases: Mapping[str, str]
) -> tuple[Edge, ...]:
    """A changed ConfigMap or Secret a release takes values from (`valuesFrom`) feeds the release."""
    objects: dict[str, list[str]] = {}
    for node in nodes:
        if node.kind in (NodeKind.OBJECT, NodeKind.DOWNSTREAM_OBJECT):
            objects.setdefault(str(node.fact("key")), []).append(node.id)
    edges = []
    for release, release_node in releases.items():
        spec = _release_spec(reviews, split_release_id(release)[0].id)
        if spec is None:
            continue
        for ref in spec.values_from:
            source = ObjectKey("", ref.kind, spec.key.namespace, ref.name).id
            edges += [
                Edge(o, release_node, EdgeKind.FEEDS, f"valuesFrom {ref.kind} {ref.name}")
                for o in objects.get(source, ())
            ]
    return tuple(edges)


def _chart_sources(reviews: Sequence[ChartReview], releases: Mapping[str, str]) -> tuple[Edge, ...]:
    """A changed chart source (an OCIRepository, a HelmRepository, ...) feeds each release whose
    path names it (file -> source object -> release: releases/chart_sources.py), from the object
    of that key the file declares, in whichever render shows it changed."""
    changed: dict[tuple[str, str], list[str]] = {}
    for review in reviews:
        for change in review.changes:
            for template in change.templates:
                changed.setdefault((template, change.key.id), []).append(
                    _object_node(review, change)
                )
    edges = []
    for review in reviews:
        release = releases.get(str(review.release)) if review.release else None
        for first, second in itertools.pairwise(review.affected.path):
            if release is None or (second.kind, second.relation) != ("object", DECLARED_SOURCE):
                continue
            edges += [
                Edge(o, release, EdgeKind.FEEDS, "its chart source")
                for o in changed.get((first.id, second.id), ())
            ]
    return tuple(edges)


def _release_spec(reviews: Sequence[ChartReview], release: str) -> ReleaseSpec | None:
    """The release as its object declares it at head (else at base) in any render of the review."""
    for obj in (o for r in reviews for side in (r.head_objects, r.base_objects) for o in side):
        if obj.key.id == release:
            try:
                return release_spec(obj)
            except AftershockError:
                return None
    return None


def _owner(review: ChartReview) -> str:
    """The node that renders a review's objects: the chart, or the chart as its release installs it."""
    if review.release:
        return node_id(NodeKind.DOWNSTREAM_CHART, f"{review.chart}@{review.release}")
    return chart_node_id(review.chart)


def _release(review: ChartReview, values_changes: Sequence[ValuesKeyChange]) -> Part:
    release = str(review.release)
    key, tree = split_release_id(release)
    release_node = node_id(NodeKind.RELEASE, release)
    installs = review.affected.path[-1].relation if review.affected.path else "installs"
    downstream = _owner(review)
    nodes = [
        Node(
            release_node,
            NodeKind.RELEASE,
            f"{key.kind} {key.namespace}/{key.name}" + (f" · {tree}" if tree else ""),
            ref=release,
            facts=(("key", release), ("installs", review.chart)),
        ),
        Node(
            downstream,
            NodeKind.DOWNSTREAM_CHART,
            f"{review.name} @ {key.name}",
            ref=review_scope(review),
            chart=review.chart,
            facts=(("path", review.chart), ("release", release), ("outcome", review.outcome.value)),
        ),
    ]
    edges = [
        Edge(release_node, downstream, EdgeKind.INSTALLS, installs),
        Edge(
            chart_node_id(review.chart),
            downstream,
            EdgeKind.INSTALLED_AS,
            f"installed by {key.kind} {key.name}",
        ),
    ]
    if review.cluster:
        cluster = node_id(NodeKind.CLUSTER, review.cluster)
        nodes.append(Node(cluster, NodeKind.CLUSTER, review.cluster, ref=review.cluster))
        edges.append(Edge(release_node, cluster, EdgeKind.TARGETS, "deploys to"))
    for change in values_changes:
        if change.file == release_label(release):
            value_id = node_id(NodeKind.RELEASE_VALUE, f"{release}::{change.path}")
            nodes.append(
                Node(
                    value_id,
                    NodeKind.RELEASE_VALUE,
                    change.path,
                    ref=f"{change.file}::{change.path}",
                    chart=review.chart,
                    facts=(("change", change.kind.value), ("release", release)),
                )
            )
            edges += [
                Edge(release_node, value_id, EdgeKind.PASSES, "values the controller passes"),
                Edge(value_id, downstream, EdgeKind.IN_CHART, "release values"),
            ]
    return Part(tuple(nodes), tuple(edges))


def _object(review: ChartReview, change: ObjectChange) -> Part:
    """One changed object, the workloads it is or feeds, and where those run."""
    scope = review_scope(review)
    ref = object_ref(scope, change.key)
    kind = NodeKind.DOWNSTREAM_OBJECT if review.release else NodeKind.OBJECT
    obj_id = _object_node(review, change)
    where = _fleet_cluster(review, change)
    facts = [
        ("change", change.kind.value),
        ("fields", str(len(change.fields))),
        ("key", change.key.id),
    ]
    if change.previous_key is not None:
        facts.append(("renamed from", str(change.previous_key)))
    if review.scenario != DEFAULT_SCENARIO:
        facts.append(("scenario", review.scenario))
    label = (
        str(change.key)
        if review.scenario == DEFAULT_SCENARIO
        else f"{change.key} · {review.scenario}"
    )
    nodes = [Node(obj_id, kind, label, ref=ref, chart=review.chart, facts=tuple(facts))]
    edges = [Edge(_owner(review), obj_id, EdgeKind.RENDERS, ", ".join(change.templates))]
    edges += [
        Edge(template_node_id(t), obj_id, EdgeKind.RENDERS, via)
        for t, via in _template_relations(review, change)
    ]
    feeds = _feeds(change, review)
    for key, via in feeds:
        workload = _workload_node(install_scope(review), review, key)
        nodes += [workload, _namespace_node(key.namespace, where)]
        edges.append(
            Edge(
                obj_id, workload.id, EdgeKind.DEFINES if key == change.key else EdgeKind.FEEDS, via
            )
        )
        edges.append(
            Edge(
                workload.id,
                _namespace_id(key.namespace, where),
                EdgeKind.IN_NAMESPACE,
                key.namespace,
            )
        )
    if (change.key.group, change.key.kind) == ("", "Namespace"):
        nodes.append(_namespace_node(change.key.name, where))
        edges.append(
            Edge(
                obj_id,
                _namespace_id(change.key.name, where),
                EdgeKind.DEFINES,
                "the Namespace object",
            )
        )
    elif not feeds and change.key.namespace:
        nodes.append(_namespace_node(change.key.namespace, where))
        edges.append(
            Edge(
                obj_id,
                _namespace_id(change.key.namespace, where),
                EdgeKind.IN_NAMESPACE,
                "feeds no workload",
            )
        )
    if review.cluster:
        namespaces = {k.namespace for k, _ in feeds} | (
            {change.key.namespace} if not feeds else set()
        )
        edges += [
            Edge(
                _namespace_id(ns, where),
                node_id(NodeKind.CLUSTER, review.cluster),
                EdgeKind.IN_CLUSTER,
                review.cluster,
            )
            for ns in sorted(namespaces)
            if ns
        ]
    return Part(tuple(nodes), tuple(edges))


def _template_relations(review: ChartReview, change: ObjectChange) -> list[tuple[str, str]]:
    """Each file the object came from, with how: rendered (a template, a declaring file), generated by
    a kustomize generator, or patched or fed (a kustomize patch, a generator's file)."""
    keys = {change.key, change.previous_key or change.key}
    objects = [o for o in (*review.base_objects, *review.head_objects) if o.key in keys]
    generated = {o.template for o in objects if o.generator}
    shaped = {p for o in objects for p in o.shaped_by}
    relations = []
    for template in change.templates:
        if template in generated:
            relations.append((template, "its generator makes it"))
        elif template in shaped:
            relations.append((template, "patches or feeds it"))
        else:
            relations.append((template, "rendered from this template"))
    return relations


def _feeds(change: ObjectChange, review: ChartReview) -> tuple[tuple[ObjectKey, str], ...]:
    """The workload the object is, else those it feeds at head, or at base under its base key."""
    if is_workload(change.key):
        return ((change.key, "is this workload"),)
    sides: list[tuple[ObjectKey, Mapping[str, Any], tuple[RenderedObject, ...]]] = []
    head = _body(review.head_objects, change.key)
    if change.kind is not ObjectChangeKind.REMOVED and head is not None:
        sides.append((change.key, head, review.head_objects))
    base_key = change.previous_key or change.key
    base = _body(review.base_objects, base_key)
    if change.kind is not ObjectChangeKind.ADDED and base is not None:
        sides.append((base_key, base, review.base_objects))
    found: dict[ObjectKey, str] = {}
    for key, body, objects in sides:
        for workload, via in fed_workloads(key, body, objects):
            found.setdefault(workload, via)
    return tuple(found.items())


def _body(objects: Iterable[RenderedObject], key: ObjectKey) -> Mapping[str, Any] | None:
    return next((o.body for o in objects if o.key == key), None)


def _workload_node(scope: str, review: ChartReview, key: ObjectKey) -> Node:
    ref = object_ref(scope, key)
    facts = [("kind", key.kind), ("namespace", key.namespace), ("render", scope)]
    changed = any(c.key == key for c in review.changes)
    facts.append(("object changed", "yes" if changed else "no"))
    return Node(
        node_id(NodeKind.WORKLOAD, ref),
        NodeKind.WORKLOAD,
        f"{key.kind} {key.name}",
        ref=ref,
        chart=review.chart,
        facts=tuple(facts),
    )


def _fleet_cluster(review: ChartReview, change: ObjectChange) -> str | None:
    """The cluster an object of a fleet's cluster tree lives in (a fleet's clusters share no namespace)."""
    tree = _tree(review, change)
    if tree is None:
        return None
    return review.cluster if review.cluster not in (None, "in-cluster") else tree


def _namespace_id(name: str, cluster: str | None) -> str:
    return namespace_node_id(f"{name}@{cluster}" if cluster else name)


def _namespace_node(name: str, cluster: str | None) -> Node:
    facts = (("cluster", cluster),) if cluster else ()
    return Node(_namespace_id(name, cluster), NodeKind.NAMESPACE, name, ref=name, facts=facts)
