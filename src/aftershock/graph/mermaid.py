"""A bounded Mermaid flowchart of the blast radius, for the Markdown output (pure).

When the radius is larger than the bound, the deepest nodes (workloads, namespaces, objects) are kept
first, each with the path that justifies it, so the summary still reads from the change to its reach.
"""

from __future__ import annotations

from typing import Any

from aftershock.graph.document import graph_document
from aftershock.graph.model import LAYER_ORDER, ImpactGraph, Layer
from aftershock.graph.radius import Radius
from aftershock.report.escape import visible_name

_LAYER_TITLES = {
    Layer.COMMIT: "Commits", Layer.FILE: "Files", Layer.UNIT: "Units", Layer.CHART: "Charts",
    Layer.OBJECT: "Rendered objects", Layer.RELEASE: "Releases", Layer.DOWNSTREAM_CHART: "Downstream charts",
    Layer.DOWNSTREAM_OBJECT: "Downstream objects", Layer.WORKLOAD: "Workloads", Layer.NAMESPACE: "Namespaces",
    Layer.CLUSTER: "Clusters",
}
_MAX_LABEL = 48


def mermaid(graph: ImpactGraph, radius: Radius, max_nodes: int = 40) -> str:
    """`flowchart LR` with one subgraph per layer and at most `max_nodes` nodes of the radius."""
    return mermaid_from_document(graph_document(graph, radius), max_nodes)


def mermaid_from_document(doc: dict[str, Any], max_nodes: int = 40) -> str:
    """The same flowchart from the `graph` section of a review document (what Markdown is made from)."""
    nodes = doc["nodes"]
    kept = _pick(nodes, max(1, max_nodes))
    names = {node_id: f"n{i}" for i, node_id in enumerate(kept)}
    by_id = {n["id"]: n for n in nodes}
    lines = ["flowchart LR"]
    for layer in LAYER_ORDER:
        members = [by_id[i] for i in kept if by_id[i]["layer"] == layer.value]
        if not members:
            continue
        lines.append(f'  subgraph {layer.value}["{_LAYER_TITLES[layer]}"]')
        lines += [f'    {names[n["id"]]}["{_escape(_short(visible_name(n["label"])))}"]' for n in members]
        lines.append("  end")
    for edge in doc["edges"]:
        if edge["source"] in names and edge["target"] in names:
            lines.append(f"  {names[edge['source']]} -->|{edge['kind']}| {names[edge['target']]}")
    left = doc["radius"]["nodes"] - len(kept)
    if left > 0:
        lines.append(f"  %% {left} more node(s) of the blast radius are in the JSON output")
    return "\n".join(lines) + "\n"


def _pick(nodes: list[dict[str, Any]], budget: int) -> list[str]:
    """Node ids to show in graph order: whole justifying paths, deepest layers first, within budget."""
    rank = {layer.value: i for i, layer in enumerate(LAYER_ORDER)}
    reached = sorted((n for n in nodes if n["reached"]), key=lambda n: (-rank[n["layer"]], n["distance"]))
    kept: set[str] = set()
    for node in reached:
        needed = [n for n in node["path"] if n not in kept]
        if len(kept) + len(needed) <= budget:
            kept.update(needed)
    return [n["id"] for n in nodes if n["id"] in kept]


def _short(label: str) -> str:
    if len(label) <= _MAX_LABEL:
        return label
    return "…" + label[-(_MAX_LABEL - 1):]


def _escape(text: str) -> str:
    """Mermaid labels in double quotes take numeric entity codes for characters that would end them."""
    for char in "#&\"<>|`":  # "#" first: the codes themselves start with it
        text = text.replace(char, f"#{ord(char)};")
    return " ".join(text.split())
