"""Bounded Mermaid flowcharts of the blast radius, for the Markdown output (pure).

`mermaid`: left to right; when the radius is larger than the bound, the deepest nodes (workloads,
namespaces, objects) are kept first, each with the path that justifies it.
`layered_mermaid`: for a comment's width, top to bottom, one box per layer titled with its count,
holding its nodes nearest the change and one "+N more" node, at most about `max_nodes` in all.
"""

from __future__ import annotations

import itertools
from typing import Any

from aftershock.graph.document import document_path, graph_document
from aftershock.graph.model import LAYER_ORDER, ImpactGraph, Layer
from aftershock.graph.radius import Radius
from aftershock.report.escape import visible_name

_LAYER_TITLES = {
    Layer.COMMIT: "Commits",
    Layer.FILE: "Files",
    Layer.UNIT: "Units",
    Layer.CHART: "Charts",
    Layer.OBJECT: "Rendered objects",
    Layer.RELEASE: "Releases",
    Layer.DOWNSTREAM_CHART: "Downstream charts",
    Layer.DOWNSTREAM_OBJECT: "Downstream objects",
    Layer.WORKLOAD: "Workloads",
    Layer.NAMESPACE: "Namespaces",
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
        lines += [
            f'    {names[n["id"]]}["{_escape(_short(visible_name(n["label"])))}"]' for n in members
        ]
        lines.append("  end")
    for edge in doc["edges"]:
        if edge["source"] in names and edge["target"] in names:
            lines.append(f"  {names[edge['source']]} -->|{edge['kind']}| {names[edge['target']]}")
    left = doc["radius"]["nodes"] - len(kept)
    if left > 0:
        lines.append(f"  %% {left} more node(s) of the blast radius are in the JSON output")
    return "\n".join(lines) + "\n"


_COMMENT_LABEL = 32


def layered_mermaid(doc: dict[str, Any], max_nodes: int = 30) -> str:
    """`flowchart TB`, one subgraph per reached layer ("Files (12)"), nodes nearest the change first."""
    reached = [n for n in doc["nodes"] if n["reached"]]
    layers = [(layer, [n for n in reached if n["layer"] == layer.value]) for layer in LAYER_ORDER]
    layers = [
        (layer, sorted(members, key=lambda n: n["distance"]))
        for layer, members in layers
        if members
    ]
    shown = _layer_shares(layers, max_nodes)
    names: dict[str, str] = {}
    lines = ["flowchart TB"]
    for (layer, members), count in zip(layers, shown):
        lines.append(f'  subgraph {layer.value}["{_LAYER_TITLES[layer]} ({len(members)})"]')
        lines.append("    direction LR")
        for node in members[:count]:
            names[node["id"]] = f"n{len(names)}"
            lines.append(
                f'    {names[node["id"]]}["{_escape(_short(visible_name(node["label"]), _COMMENT_LABEL, layer))}"]'
            )
        if len(members) > count:
            lines.append(f'    {layer.value}_more["+{len(members) - count} more"]')
        lines.append("  end")
    edges = dict.fromkeys(
        (names[e["source"]], names[e["target"]])
        for e in doc["edges"]
        if e["source"] in names and e["target"] in names and e["source"] != e["target"]
    )
    lines += [f"  {a} --> {b}" for a, b in edges]
    linked = {(_layer_of(doc, a), _layer_of(doc, b)) for a, b in _edge_ids(doc, names)}
    for (upper, _), (lower, _) in itertools.pairwise(layers):
        if (upper.value, lower.value) not in linked:
            lines.append(f"  {upper.value} --> {lower.value}")
    return "\n".join(lines) + "\n"


def _layer_shares(layers: list[tuple[Layer, list[dict[str, Any]]]], max_nodes: int) -> list[int]:
    """Nodes shown per layer: one each, then the rest of the budget to the layers holding most, one at a time.
    A layer with hidden nodes spends one slot on its "+N more" node."""
    shown = [1] * len(layers)
    budget = max_nodes - sum(min(1, len(m) - 1) + 1 for _, m in layers)
    while budget > 0:
        open_layers = [i for i, (_, m) in enumerate(layers) if shown[i] < len(m)]
        if not open_layers:
            break
        widest = min(open_layers, key=lambda i: (shown[i], -len(layers[i][1])))
        boxes = (
            shown[widest] + 1 + (shown[widest] + 1 < len(layers[widest][1]))
        )  # its "+N more" box included
        if boxes > 4:  # more than four side by side no longer fits a comment's width
            break
        shown[widest] += 1
        budget -= 1
    return shown


def _edge_ids(doc: dict[str, Any], names: dict[str, str]) -> list[tuple[str, str]]:
    return [
        (e["source"], e["target"])
        for e in doc["edges"]
        if e["source"] in names and e["target"] in names
    ]


def _layer_of(doc: dict[str, Any], node_id: str) -> str:
    return str(next(n["layer"] for n in doc["nodes"] if n["id"] == node_id))


def _pick(nodes: list[dict[str, Any]], budget: int) -> list[str]:
    """Node ids to show in graph order: whole justifying paths, deepest layers first, within budget."""
    rank = {layer.value: i for i, layer in enumerate(LAYER_ORDER)}
    reached = sorted(
        (n for n in nodes if n["reached"]), key=lambda n: (-rank[n["layer"]], n["distance"])
    )
    by_id = {n["id"]: n for n in nodes}
    kept: set[str] = set()
    for node in reached:
        needed = [n for n in document_path(by_id, node["id"])[0] if n not in kept]
        if len(kept) + len(needed) <= budget:
            kept.update(needed)
    return [n["id"] for n in nodes if n["id"] in kept]


_OBJECT_LAYERS = (Layer.OBJECT, Layer.DOWNSTREAM_OBJECT, Layer.WORKLOAD)  # "Kind.group ns/name"


def _short(label: str, limit: int = _MAX_LABEL, layer: Layer | None = None) -> str:
    """The label within `limit` characters: a commit subject or a test name keeps its start, an
    object its kind and name, a unit its path, a path its last whole segments."""
    if len(label) <= limit:
        return label
    kind, space, name = label.partition(" ")
    if layer is Layer.COMMIT or (layer is Layer.UNIT and " " in name):
        return label[: limit - 1].rstrip() + "…"
    if space and layer in _OBJECT_LAYERS:
        return _object_label(kind, name, limit)
    if space and layer is Layer.UNIT:
        return _tail(name, limit)  # "values_file <path>": the path says more than the kind
    return _tail(label, limit)


def _object_label(kind: str, name: str, limit: int) -> str:
    """`Kind name` (its API group dropped first), then `Kind name …<end of its scenario>`."""
    if len(kind) + 1 + len(name) > limit:
        kind = kind.split(".", 1)[0]
    room = limit - len(kind) - 1
    if len(name) <= room:
        return f"{kind} {name}"
    head, space, scenario = name.partition(" ")
    if space and len(head) + 4 <= room:
        return f"{kind} {head} …{scenario[-(room - len(head) - 2) :]}"
    return f"{kind} {_tail(name, room)}"


def _tail(text: str, limit: int) -> str:
    """`text`, or `…/` and its last whole path segments that fit in `limit`, or `…` and its end."""
    if len(text) <= limit:
        return text
    kept = ""
    for segment in reversed(text.split("/")):
        longer = f"{segment}/{kept}" if kept else segment
        if len(longer) > limit - 2:  # room for "…/"
            break
        kept = longer
    return f"…/{kept}" if kept and "/" in text else "…" + text[-(limit - 1) :]


def _escape(text: str) -> str:
    """Mermaid labels in double quotes take numeric entity codes for characters that would end them."""
    for char in '#&"<>|`':  # "#" first: the codes themselves start with it
        text = text.replace(char, f"#{ord(char)};")
    return " ".join(text.split())
