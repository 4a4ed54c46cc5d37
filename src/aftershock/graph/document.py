"""The impact graph and its blast radius as plain JSON data (schema: graph/schema_fragment.json)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from aftershock.graph.model import LAYER_ORDER, Edge, ImpactGraph, Node
from aftershock.graph.radius import Radius


def graph_document(graph: ImpactGraph, radius: Radius) -> dict[str, Any]:
    """Layers, nodes (with the path that justifies each reached one), edges, and the radius counts."""
    reached = dict(radius.counts)
    totals = Counter(n.layer for n in graph.nodes)  # one pass, not one per layer
    return {
        "roots": list(graph.roots),
        "layers": [
            {"id": layer.value, "nodes": totals[layer], "reached": reached.get(layer, 0)}
            for layer in LAYER_ORDER
        ],
        "nodes": [node_document(n, radius) for n in graph.nodes],
        "edges": [edge_document(e) for e in graph.edges],
        "radius": {
            "nodes": radius.total,
            "by_layer": {layer.value: reached.get(layer, 0) for layer in LAYER_ORDER},
        },
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
        "path": list(reach.nodes) if reach else [],
        "path_edges": [e.kind.value for e in reach.path] if reach else [],
    }


def edge_document(edge: Edge) -> dict[str, Any]:
    return {
        "source": edge.source,
        "target": edge.target,
        "kind": edge.kind.value,
        "via": edge.via,
        "weak": edge.weak,
    }
