"""The impact graph as the review document writes it (`graph_section`; schema:
graph/schema_fragment.json), and back to every field (`expand_graph`: what `graph_document` gives).

A whole tree's graph is tens of thousands of nodes and edges, so the section leaves out what follows
from what it keeps (docs/reviewing.md, "Reading the graph"):
- a node is named by its index in `nodes`: an edge is `[source, target, kind, via]` (a fifth item,
  true, on a weak link) and a node's last step `via` is `[node, edge kind]`;
- a node's layer is the layer whose `kinds` hold its kind; it is reached when it is a root or has
  a `via`, at as many hops as its `via`s back to a root;
- a `label` or `ref` left out is the id after `<kind>:`, a `chart` left out is null, `facts` {};
- a file node's facts are its `files` entry's (graph.model.file_facts);
- a values-key node is its `values_changes` entry (`values_key:<file>::<path>`): it keeps its id and
  kind; its label is the path, its chart and its facts (`change`, `file`) the entry's; it is reached
  through its file (`maps_to`), and its two edges (graph.model.values_key_edges) are not listed: in
  the whole list they stand, in node order, at `values_key_edges_at`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from aftershock.graph.document import (
    edge_document,
    last_step,
    layers_document,
    radius_document,
)
from aftershock.graph.model import (
    Edge,
    EdgeKind,
    ImpactGraph,
    Node,
    NodeKind,
    file_facts,
    node_id,
    values_key_edges,
)
from aftershock.graph.radius import Radius

_VALUES_KEY = NodeKind.VALUES_KEY.value
_FILE = NodeKind.FILE.value


def graph_section(graph: ImpactGraph, radius: Radius) -> dict[str, Any]:
    """The graph section of the review document."""
    index = {node.id: i for i, node in enumerate(graph.nodes)}
    implied = [e for n in graph.nodes if n.kind is NodeKind.VALUES_KEY for e in _implied(n)]
    at = _block(graph.edges, implied)
    listed = graph.edges[:at] + graph.edges[at + len(implied) :]
    return {
        "roots": list(graph.roots),
        "layers": layers_document(graph, radius),
        "nodes": [_node(n, radius, index) for n in graph.nodes],
        "edges": [_edge(e, index) for e in listed],
        "values_key_edges_at": at,
        "radius": radius_document(radius),
    }


def _implied(node: Node) -> tuple[Edge, ...]:
    return values_key_edges(node.id, str(node.fact("file")), node.chart)


def _block(edges: Sequence[Edge], implied: Sequence[Edge]) -> int:
    """Where the values keys' edges stand in the graph's edges: the graph builds them together."""
    if not implied:
        return 0
    at = edges.index(implied[0])
    if tuple(edges[at : at + len(implied)]) != tuple(implied):
        raise ValueError("the values keys' edges are not one block of the graph's edges")
    return at


def _node(node: Node, radius: Radius, index: Mapping[str, int]) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": node.id, "kind": node.kind.value}
    if node.kind is NodeKind.VALUES_KEY:
        return entry  # its values_changes entry says the rest
    natural = node.id.split(":", 1)[1]
    if node.label != natural:
        entry["label"] = node.label
    if node.ref != natural:
        entry["ref"] = node.ref
    if node.chart is not None:
        entry["chart"] = node.chart
    if node.facts and node.kind is not NodeKind.FILE:  # a file's are its files entry's
        entry["facts"] = dict(node.facts)
    step = last_step(radius.get(node.id))
    if step is not None:
        entry["via"] = [index[step["node"]], step["edge"]]
    return entry


def _edge(edge: Edge, index: Mapping[str, int]) -> list[Any]:
    row: list[Any] = [index[edge.source], index[edge.target], edge.kind.value, edge.via]
    return row + [True] if edge.weak else row


def expand_graph(
    section: Mapping[str, Any],
    values_changes: Iterable[Mapping[str, Any]],
    files: Iterable[Mapping[str, Any]],
) -> dict[str, Any]:
    """The graph section of a review document with every field written out, as `graph_document`
    writes it (`values_changes` and `files`: the document's)."""
    nodes: list[Mapping[str, Any]] = section["nodes"]
    ids = [n["id"] for n in nodes]
    index = {node: i for i, node in enumerate(ids)}
    changes = {f"{_VALUES_KEY}:{v['file']}::{v['path']}": v for v in values_changes}
    by_path = {f["path"]: f for f in files}
    roots = set(section["roots"])
    steps = _steps(nodes, index, changes, roots)
    distances = _distances(ids, steps, roots)
    layer_of = {kind: layer["id"] for layer in section["layers"] for kind in layer["kinds"]}
    edges = [_edge_document(row, ids) for row in section["edges"]]
    at = section["values_key_edges_at"]
    edges[at:at] = [
        edge_document(edge)
        for n in nodes
        if n["kind"] == _VALUES_KEY
        for edge in values_key_edges(n["id"], changes[n["id"]]["file"], changes[n["id"]]["chart"])
    ]
    return {
        "roots": list(section["roots"]),
        "layers": list(section["layers"]),
        "nodes": [
            {
                **_written(n, changes, by_path),
                "layer": layer_of[n["kind"]],
                **_reach(steps[i], distances[i], ids),
            }
            for i, n in enumerate(nodes)
        ],
        "edges": edges,
        "radius": section["radius"],
    }


def _steps(
    nodes: Sequence[Mapping[str, Any]],
    index: Mapping[str, int],
    changes: Mapping[str, Mapping[str, Any]],
    roots: set[str],
) -> list[tuple[int, str] | None]:
    """Each node's last step (the index of the node before it, the edge kind), None for a root and
    a node not reached; a values key's is from its file, when the file is reached."""
    steps: list[tuple[int, str] | None] = [
        (n["via"][0], n["via"][1]) if "via" in n else None for n in nodes
    ]
    for i, n in enumerate(nodes):
        if n["kind"] == _VALUES_KEY:
            file = index[node_id(NodeKind.FILE, changes[n["id"]]["file"])]
            reached = steps[file] is not None or nodes[file]["id"] in roots
            steps[i] = (file, EdgeKind.MAPS_TO.value) if reached else None
    return steps


def _reach(
    step: tuple[int, str] | None, distance: int | None, ids: Sequence[str]
) -> dict[str, Any]:
    via = None if step is None else {"node": ids[step[0]], "edge": step[1]}
    return {"reached": distance is not None, "distance": distance, "via": via}


def _distances(
    ids: Sequence[str], steps: Sequence[tuple[int, str] | None], roots: set[str]
) -> list[int | None]:
    """Hops from a root along the last steps; None for a node not reached."""
    found: list[int | None] = [0 if node in roots else None for node in ids]
    for start in range(len(ids)):
        chain: list[int] = []
        at = start
        while found[at] is None and (step := steps[at]) is not None and len(chain) <= len(ids):
            chain.append(at)
            at = step[0]
        known = found[at]
        for hops, node in enumerate(reversed(chain), start=1):
            found[node] = None if known is None else known + hops
    return found


def _written(
    node: Mapping[str, Any],
    changes: Mapping[str, Mapping[str, Any]],
    files: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """id, kind, label, ref, chart and facts, those left out restored."""
    natural = node["id"].split(":", 1)[1]
    if node["kind"] == _VALUES_KEY:
        change = changes[node["id"]]
        label, chart = change["path"], change["chart"]
        facts: Mapping[str, Any] = {"change": change["change"], "file": change["file"]}
    else:
        label, chart = node.get("label", natural), node.get("chart")
        facts = node.get("facts", {})
        if node["kind"] == _FILE:
            f = files[natural]
            facts = dict(file_facts(f["status"], f["additions"], f["deletions"], f["old_path"]))
    return {
        "id": node["id"],
        "kind": node["kind"],
        "label": label,
        "ref": node.get("ref", natural),
        "chart": chart,
        "facts": dict(facts),
    }


def _edge_document(row: Sequence[Any], ids: Sequence[str]) -> dict[str, Any]:
    source, target, kind, via = row[:4]
    weak = {"weak": True} if len(row) > 4 and row[4] else {}
    return {"source": ids[source], "target": ids[target], "kind": kind, "via": via, **weak}
