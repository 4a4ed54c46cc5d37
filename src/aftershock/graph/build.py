"""Builds the impact graph of a review (pure): commits -> files -> units -> charts, then the rendered half
(graph/rendered.py): objects, releases, downstream charts, workloads, namespaces. Every edge is typed and
carries its evidence.

Node facts hold kinds, counts and names only, never values: a reader looks values up, already redacted,
in the review document through the node's `ref`.
"""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Iterable, Sequence

from aftershock.graph.model import (
    LAYER_ORDER,
    Edge,
    EdgeKind,
    ImpactGraph,
    Node,
    NodeKind,
    chart_node_id,
    file_facts,
    node_id,
    template_node_id,
    values_key_edges,
)
from aftershock.graph.rendered import Part, rendered_part
from aftershock.model.provenance import ProvenanceEdge
from aftershock.model.releases import Evidence
from aftershock.model.review import Review
from aftershock.model.units import Unit, UnitKind, ValuesKeyChange

_TEMPLATE_UNITS = (UnitKind.TEMPLATE, UnitKind.TEMPLATE_HELPERS, UnitKind.NOTES)
# Files a chart holds that Helm does not render from (unless a template reads them, which is rare).
_WEAK_UNITS = (
    UnitKind.DOCS,
    UnitKind.TEST_SUITE,
    UnitKind.TEST_SNAPSHOT,
    UnitKind.CI,
    UnitKind.SCRIPT,
    UnitKind.OTHER,
)


def build_graph(review: Review, provenance: Sequence[ProvenanceEdge] = ()) -> ImpactGraph:
    """The impact graph of `review`; its roots are the commits of base..head. `provenance` (from
    aftershock.provenance.provenance_edges) adds `produces` edges from values keys to objects."""
    changed = {f.path for f in review.files}
    file_keys = tuple(
        v for v in review.values_changes if v.file in changed
    )  # the others are a release's values
    parts = (
        _commits(review),
        _files(review),
        _values_keys(file_keys),
        _units(review),
        _charts(review, file_keys),
        rendered_part(review.chart_reviews, review.values_changes),
        _lookups(review),
    )
    nodes: dict[str, Node] = {}
    for node in (n for p in parts for n in p.nodes):
        nodes.setdefault(node.id, node)
    produces = _produces(nodes.values(), provenance)
    edges: dict[tuple[str, str, EdgeKind], Edge] = {}
    for edge in (e for p in parts for e in p.edges + produces):
        if edge.source in nodes and edge.target in nodes:
            edges.setdefault((edge.source, edge.target, edge.kind), edge)
    ordered = sorted(
        nodes.values(), key=lambda n: LAYER_ORDER.index(n.layer)
    )  # stable: keeps build order
    roots = tuple(n.id for n in ordered if n.kind is NodeKind.COMMIT)
    return ImpactGraph(nodes=tuple(ordered), edges=tuple(edges.values()), roots=roots)


def _commits(review: Review) -> Part:
    nodes = tuple(
        Node(
            node_id(NodeKind.COMMIT, c.sha),
            NodeKind.COMMIT,
            f"{c.short_sha} {c.title}",
            ref=c.sha,
            facts=(("author", c.author.name), ("date", c.authored_at)),
        )
        for c in review.commits
    )
    return Part(nodes)


def _files(review: Review) -> Part:
    nodes, edges = [], []
    all_commits = tuple(c.sha for c in review.commits)
    for f in review.files:
        facts = file_facts(f.status.value, f.additions, f.deletions, f.old_path)
        file_id = node_id(NodeKind.FILE, f.path)
        nodes.append(Node(file_id, NodeKind.FILE, f.path, ref=f.path, facts=facts))
        # A net change always has a commit that made it; fall back to the whole range if git named none.
        for sha in f.commits or all_commits:
            edges.append(
                Edge(node_id(NodeKind.COMMIT, sha), file_id, EdgeKind.TOUCHES, via=f.status.value)
            )
    return Part(tuple(nodes), tuple(edges))


def _units(review: Review) -> Part:
    nodes, edges = [], []
    for path, units in review.units:
        for unit in units:
            node = _unit_node(unit)
            nodes.append(node)
            edges.append(
                Edge(node_id(NodeKind.FILE, path), node.id, EdgeKind.MAPS_TO, via=unit.kind.value)
            )
            if unit.chart is not None:
                weak = unit.kind in _WEAK_UNITS
                edges.append(
                    Edge(
                        node.id,
                        chart_node_id(unit.chart),
                        EdgeKind.IN_CHART,
                        _chart_relative(unit),
                        weak,
                    )
                )
    return Part(tuple(nodes), tuple(edges))


def _unit_node(unit: Unit) -> Node:
    if unit.kind in _TEMPLATE_UNITS:
        facts = [("unit", unit.kind.value)]
        if unit.defines:
            facts.append(("defines", ", ".join(unit.defines)))
        return Node(
            template_node_id(unit.path),
            NodeKind.TEMPLATE,
            unit.path,
            ref=unit.id,
            chart=unit.chart,
            facts=tuple(facts),
        )
    return Node(
        node_id(NodeKind.UNIT, unit.id),
        NodeKind.UNIT,
        f"{unit.kind.value} {unit.path}",
        ref=unit.id,
        chart=unit.chart,
        facts=(("unit", unit.kind.value),),
    )


def _chart_relative(unit: Unit) -> str:
    return posixpath.relpath(unit.path, unit.chart) if unit.chart else unit.path


def _values_keys(changes: tuple[ValuesKeyChange, ...]) -> Part:
    nodes: list[Node] = []
    edges: list[Edge] = []
    for change in changes:
        key_id = node_id(NodeKind.VALUES_KEY, f"{change.file}::{change.path}")
        nodes.append(
            Node(
                key_id,
                NodeKind.VALUES_KEY,
                change.path,
                ref=f"{change.file}::{change.path}",
                chart=change.chart,
                facts=(("change", change.kind.value), ("file", change.file)),
            )
        )
        edges += values_key_edges(key_id, change.file, change.chart)
    return Part(tuple(nodes), tuple(edges))


def _charts(review: Review, file_keys: tuple[ValuesKeyChange, ...]) -> Part:
    """The charts the change holds or reaches by inclusion, and those rendered on their own."""
    wanted = {a.chart for a in review.affected} | {
        r.chart for r in review.chart_reviews if not r.release
    }
    wanted |= {u.chart for _, units in review.units for u in units if u.chart is not None}
    wanted |= {v.chart for v in file_keys if v.chart is not None}
    known = {c.path: c for c in review.charts}
    outcomes: dict[str, str] = {}
    for r in review.chart_reviews:
        if not r.release:
            outcomes[r.chart] = (
                "changed"
                if "changed" in (outcomes.get(r.chart), r.outcome.value)
                else r.outcome.value
            )
    nodes = []
    for path in sorted(wanted):
        chart = known.get(path)
        facts = [("path", path or ".")]
        if chart is not None:
            facts += [("type", chart.type.value), ("version", chart.version)]
        facts.append(("outcome", outcomes.get(path, "not rendered on its own")))
        name = chart.name if chart is not None else posixpath.basename(path) or "."
        nodes.append(
            Node(
                chart_node_id(path), NodeKind.CHART, name, ref=path, chart=path, facts=tuple(facts)
            )
        )
    return Part(tuple(nodes), _includes(review, wanted))


def _lookups(review: Review) -> Part:
    """A changed object that another chart's `lookup` reads feeds that chart (pipeline/context/cluster.py: the
    chart's path ends object, rendered by a chart, then the chart that looks it up)."""
    edges = []
    for r in review.chart_reviews:
        steps = r.affected.path
        for first, second in itertools.pairwise(steps):
            if (
                first.kind == "object"
                and second.kind == "chart"
                and second.relation.startswith("looks it up")
            ):
                source = first.relation.removeprefix("rendered by ")
                object_node = node_id(
                    NodeKind.OBJECT, f"{source}::{first.id}"
                )  # rendered.object_ref
                edges.append(
                    Edge(object_node, chart_node_id(second.id), EdgeKind.FEEDS, via=second.relation)
                )
    return Part((), tuple(edges))


def _includes(review: Review, wanted: set[str]) -> tuple[Edge, ...]:
    edges = []
    for chart in review.charts:
        if chart.path not in wanted:
            continue
        for dep in chart.dependencies:
            if dep.resolved_path in wanted and dep.resolved_path != chart.path:
                via = f"{dep.source.value} dependency {dep.alias or dep.name}"
                edges.append(
                    Edge(
                        chart_node_id(dep.resolved_path),
                        chart_node_id(chart.path),
                        EdgeKind.INCLUDES,
                        via,
                    )
                )
        if chart.embedded_in in wanted:
            edges.append(
                Edge(
                    chart_node_id(chart.path),
                    chart_node_id(chart.embedded_in),
                    EdgeKind.INCLUDES,
                    "under charts/",
                )
            )
    return tuple(edges)


_VALUES_KINDS = (NodeKind.VALUES_KEY, NodeKind.RELEASE_VALUE)
_OBJECT_KINDS = (NodeKind.OBJECT, NodeKind.DOWNSTREAM_OBJECT)
_SHOWN_FIELDS = 3


def _produces(nodes: Iterable[Node], provenance: Sequence[ProvenanceEdge]) -> tuple[Edge, ...]:
    """One `produces` edge per values key and object, naming the fields and whether a render observed it."""
    values: dict[str, str] = {}  # a values key's ref -> its node's id
    objects: dict[str, str] = {}  # an object's ref -> its node's id
    for node in nodes:
        if node.kind in _VALUES_KINDS:
            values.setdefault(node.ref, node.id)
        elif node.kind in _OBJECT_KINDS:
            objects.setdefault(node.ref, node.id)
    grouped: dict[tuple[str, str], list[ProvenanceEdge]] = {}
    for link in provenance:
        source, target = values.get(link.values_ref), objects.get(link.object_id)
        if source is not None and target is not None:
            grouped.setdefault((source, target), []).append(link)
    return tuple(
        Edge(source, target, EdgeKind.PRODUCES, _produces_via(links))
        for (source, target), links in grouped.items()
    )


def _produces_via(links: Sequence[ProvenanceEdge]) -> str:
    """`observed: spec.replicas; inferred: metadata.labels.app +2 more`."""
    parts = []
    for evidence in (Evidence.OBSERVED, Evidence.INFERRED):
        fields = list(
            dict.fromkeys(
                link.field or "the whole object" for link in links if link.evidence is evidence
            )
        )
        if fields:
            more = f" +{len(fields) - _SHOWN_FIELDS} more" if len(fields) > _SHOWN_FIELDS else ""
            parts.append(f"{evidence.value}: {', '.join(fields[:_SHOWN_FIELDS])}{more}")
    return "; ".join(parts)
