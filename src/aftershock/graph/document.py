"""The impact graph and its blast radius as plain JSON data, every field written out: what
`aftershock radius --format json` prints and what the review document's graph section
(graph/compact.py, schema: graph/schema_fragment.json) expands to.

A reached node says the last step of the path that justifies it (`via`: the node before it and the
kind of the edge between); the whole path is that node's path and this step, so `document_path`
rebuilds it by following `via` back to a root. Each node carrying its whole path made the graph of a
review reaching a whole tree a third heavier.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from aftershock.graph.model import LAYER_ORDER, Edge, ImpactGraph, Node, NodeKind, layer_of
from aftershock.graph.radius import Radius, Reach


def graph_document(graph: ImpactGraph, radius: Radius) -> dict[str, Any]:
    """Layers, nodes (with the last step of the path that justifies each reached one), edges, and
    the radius counts, every field written out: what `aftershock radius --format json` prints, and
    what the review document's graph section expands to (graph/compact.py)."""
    return {
        "roots": list(graph.roots),
        "layers": layers_document(graph, radius),
        "nodes": [node_document(n, radius) for n in graph.nodes],
        "edges": [edge_document(e) for e in graph.edges],
        "radius": radius_document(radius),
    }


def layers_document(graph: ImpactGraph, radius: Radius) -> list[dict[str, Any]]:
    """Every layer in order, with the node kinds it holds and how many of its nodes are reached."""
    reached = dict(radius.counts)
    totals = Counter(n.layer for n in graph.nodes)  # one pass, not one per layer
    return [
        {
            "id": layer.value,
            "kinds": [kind.value for kind in NodeKind if layer_of(kind) is layer],
            "nodes": totals[layer],
            "reached": reached.get(layer, 0),
        }
        for layer in LAYER_ORDER
    ]


def radius_document(radius: Radius) -> dict[str, Any]:
    reached = dict(radius.counts)
    return {
        "nodes": radius.total,
        "by_layer": {layer.value: reached.get(layer, 0) for layer in LAYER_ORDER},
    }


def node_document(node: Node, radius: Radius) -> dict[str, Any]:
    reach = radius.get(node.id)
    return {
        "id": node.id,
        "kind": node.kind.value,
        "layer": node.layer.value,
        "label": node.label,
        "ref": node.ref,
        "chart": node.chart,
        "facts": dict(node.facts),
        "reached": reach is not None,
        "distance": reach.distance if reach else None,
        "via": last_step(reach),
    }


def last_step(reach: Reach | None) -> dict[str, str] | None:
    """The last step of a reached node's path: the node before it and the kind of the edge from
    there; None for a start of the walk (a root) and a node not reached."""
    if reach is None or not reach.path:
        return None
    edge = reach.path[-1]
    return {"node": edge.source, "edge": edge.kind.value}


def document_path(
    nodes: Mapping[str, Mapping[str, Any]], node_id: str
) -> tuple[list[str], list[str]]:
    """(node ids from a root to `node_id`, the kinds of the edges between) of a graph document's
    node, rebuilt from the nodes' `via` (`nodes`: the document's nodes by id); ([], []) when it is
    not reached."""
    node = nodes[node_id]
    if not node["reached"]:
        return [], []
    path, kinds = [node_id], []
    while (via := node.get("via")) and len(path) <= len(nodes):
        path.append(via["node"])
        kinds.append(via["edge"])
        node = nodes[via["node"]]
    return path[::-1], kinds[::-1]


def edge_document(edge: Edge) -> dict[str, Any]:
    """The edge; `weak` only on a weak one (a few hundred of a tree's ninety thousand edges)."""
    return {
        "source": edge.source,
        "target": edge.target,
        "kind": edge.kind.value,
        "via": edge.via,
        **({"weak": True} if edge.weak else {}),
    }
