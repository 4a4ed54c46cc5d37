"""The impact graph: typed nodes and edges from a review, its blast radius, and its JSON section
(its Mermaid drawing is `report.comment.mermaid`)."""

from aftershock.graph.build import build_graph
from aftershock.graph.compact import expand_graph, graph_section
from aftershock.graph.document import document_path, graph_document
from aftershock.graph.model import LAYER_ORDER, Edge, EdgeKind, ImpactGraph, Layer, Node, NodeKind
from aftershock.graph.radius import Explanation, Radius, Reach, blast_radius, explain, find_node

__all__ = [
    "LAYER_ORDER",
    "Edge",
    "EdgeKind",
    "Explanation",
    "ImpactGraph",
    "Layer",
    "Node",
    "NodeKind",
    "Radius",
    "Reach",
    "blast_radius",
    "build_graph",
    "document_path",
    "expand_graph",
    "explain",
    "find_node",
    "graph_document",
    "graph_section",
]
