"""Walks the impact graph (pure): the blast radius of the change, and why one node is affected and what
it reaches."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import assert_never

from aftershock.graph.model import LAYER_ORDER, Edge, EdgeKind, ImpactGraph, Layer, Node
from aftershock.model.errors import ConfigError

_RADIUS_HINT = "run `aftershock radius` without --node to list the node ids"


@dataclass(frozen=True)
class Reach:
    """A node reached from a start, at `distance` hops, by the shortest `path` (edges, start first)."""

    node: str
    distance: int
    path: tuple[Edge, ...]

    @property
    def nodes(self) -> tuple[str, ...]:
        """The node ids along the path, start first, this node last."""
        if not self.path:
            return (self.node,)
        return (self.path[0].source,) + tuple(e.target for e in self.path)


@dataclass(frozen=True)
class Radius:
    """Every node reachable from the change roots, in graph order, with the path that justifies it."""

    roots: tuple[str, ...]
    reached: tuple[Reach, ...]
    counts: tuple[
        tuple[Layer, int], ...
    ]  # every layer in order, with how many of its nodes are reached

    def get(self, node_id: str) -> Reach | None:
        return self._by_node.get(node_id)

    @cached_property
    def _by_node(self) -> dict[str, Reach]:
        """Reached nodes by id: the graph document looks up every node (a scan each was quadratic)."""
        return {reach.node: reach for reach in self.reached}

    @property
    def total(self) -> int:
        return len(self.reached)


@dataclass(frozen=True)
class Explanation:
    """Why `node` is affected and what it reaches.

    `causes` holds one path from a change root per incoming edge that is itself reached, shortest first
    (the first is the radius's justification); `upstream` every node it depends on; `effects` every node
    downstream of it with the shortest path from it.
    """

    node: Node
    causes: tuple[tuple[Edge, ...], ...]
    upstream: tuple[str, ...]
    effects: tuple[Reach, ...]


def blast_radius(graph: ImpactGraph) -> Radius:
    """The nodes reachable from the graph's roots (the commits), each with its shortest justifying path."""
    found = _walk(graph.roots, graph.outgoing())
    reached = tuple(found[n.id] for n in graph.nodes if n.id in found)
    layers = {n.id: n.layer for n in graph.nodes}
    by_layer = Counter(layers[r.node] for r in reached)
    counts = tuple((layer, by_layer[layer]) for layer in LAYER_ORDER)
    return Radius(roots=graph.roots, reached=reached, counts=counts)


def explain(graph: ImpactGraph, node_id: str) -> Explanation:
    """The upstream causes of `node_id` (paths from the change) and its downstream effects."""
    node = graph.node(node_id)
    if node is None:
        raise ConfigError(f"no node {node_id!r} in the impact graph", hint=_RADIUS_HINT)
    radius = blast_radius(graph)
    justified = radius.get(node_id)
    causes = [justified.path] if justified is not None and justified.path else []
    for edge in graph.incoming().get(node_id, ()):
        before = radius.get(edge.source)
        if before is not None and before.path + (edge,) not in causes:
            causes.append(before.path + (edge,))
    causes[1:] = sorted(causes[1:], key=len)
    upstream = _walk((node_id,), _reverse(graph.incoming()))
    downstream = _walk((node_id,), graph.outgoing())
    order = {n.id: i for i, n in enumerate(graph.nodes)}
    effects = tuple(
        sorted((r for n, r in downstream.items() if n != node_id), key=lambda r: order[r.node])
    )
    ancestors = tuple(sorted((n for n in upstream if n != node_id), key=order.__getitem__))
    return Explanation(node=node, causes=tuple(causes), upstream=ancestors, effects=effects)


def find_node(graph: ImpactGraph, query: str) -> Node:
    """The node whose id is `query`, else the one node whose id or label holds it (case-insensitive)."""
    exact = graph.node(query)
    if exact is not None:
        return exact
    needle = query.lower()
    matches = [n for n in graph.nodes if needle in n.id.lower() or needle in n.label.lower()]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ConfigError(f"no node of the impact graph matches {query!r}", hint=_RADIUS_HINT)
    shown = ", ".join(n.id for n in matches[:5]) + (", ..." if len(matches) > 5 else "")
    raise ConfigError(f"{len(matches)} nodes match {query!r}: {shown}", hint="pass a full node id")


def _walk(starts: tuple[str, ...], adjacency: Mapping[str, tuple[Edge, ...]]) -> dict[str, Reach]:
    """Every node reachable from the starts, each by its best path: fewest weak links, then fewest hops,
    then fewest indirect links; remaining ties go to the earlier start and the earlier edge."""
    found: dict[str, Reach] = {}
    # (cost, order pushed, the reach it extends, the edge): a Reach is made only for the node's
    # best path, not for each of the edges that offer one (a whole-tree graph has 89,000 edges)
    heap: list[tuple[tuple[int, int, int], int, Reach | str, Edge | None]] = [
        ((0, 0, 0), sequence, start, None) for sequence, start in enumerate(starts)
    ]
    sequence = len(heap)
    while heap:
        cost, _, before, edge = heapq.heappop(heap)
        if isinstance(before, str):
            if before in found:
                continue
            reach = Reach(before, 0, ())
        else:
            assert edge is not None
            if edge.target in found:
                continue
            reach = Reach(edge.target, before.distance + 1, before.path + (edge,))
        found[reach.node] = reach
        for out in adjacency.get(reach.node, ()):
            if out.target not in found:
                step = (cost[0] + out.weak, cost[1] + 1, cost[2] + _indirect(out.kind))
                heapq.heappush(heap, (step, sequence, reach, out))
                sequence += 1
    return found


def _indirect(kind: EdgeKind) -> bool:
    """A link that reaches a node through another object, where a direct one may exist."""
    match kind:
        case EdgeKind.FEEDS:
            return True
        case (
            EdgeKind.TOUCHES
            | EdgeKind.MAPS_TO
            | EdgeKind.IN_CHART
            | EdgeKind.INCLUDES
            | EdgeKind.RENDERS
            | EdgeKind.DEFINES
            | EdgeKind.INSTALLS
            | EdgeKind.INSTALLED_AS
            | EdgeKind.PASSES
            | EdgeKind.IN_NAMESPACE
            | EdgeKind.PRODUCES
            | EdgeKind.TARGETS
            | EdgeKind.IN_CLUSTER
        ):
            return False
        case _:
            assert_never(kind)


def _reverse(incoming: Mapping[str, tuple[Edge, ...]]) -> dict[str, tuple[Edge, ...]]:
    """Incoming edges turned around, so a walk over them goes upstream."""
    return {
        target: tuple(Edge(e.target, e.source, e.kind, e.via, e.weak) for e in edges)
        for target, edges in incoming.items()
    }
