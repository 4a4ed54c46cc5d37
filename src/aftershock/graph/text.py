"""Plain-text and JSON answers about the impact graph (pure): the blast radius summary, "why is this
affected" and "what does this reach"."""

from __future__ import annotations

from typing import Any

from aftershock.graph.document import edge_document, last_step, node_document
from aftershock.graph.model import LAYER_ORDER, Edge, ImpactGraph, Node
from aftershock.graph.radius import Explanation, Radius

MAX_PER_LAYER = 12


def radius_text(graph: ImpactGraph, radius: Radius, title: str) -> str:
    """How many nodes the change reaches per layer, and which, with their ids for `--node`."""
    lines = [
        f"Blast radius of {title}: {radius.total} node(s) reached from {len(radius.roots)} commit(s)",
        "",
    ]
    width = max(len(layer.value) for layer in LAYER_ORDER)
    lines += [f"  {layer.value:<{width}}  {count}" for layer, count in radius.counts if count]
    by_id = {n.id: n for n in graph.nodes}
    for layer in LAYER_ORDER:
        reached = [r for r in radius.reached if by_id[r.node].layer is layer]
        if not reached:
            continue
        lines += ["", f"{layer.value}:"]
        for reach in reached[:MAX_PER_LAYER]:
            node = by_id[reach.node]
            lines.append(f"  {node.label}  [{node.id}]")
        if len(reached) > MAX_PER_LAYER:
            lines.append(f"  ... {len(reached) - MAX_PER_LAYER} more (see --format json)")
    lines += ["", "Ask why one is affected and what it reaches: aftershock radius --node ID"]
    return "\n".join(lines) + "\n"


def explanation_text(graph: ImpactGraph, explanation: Explanation) -> str:
    """Why the node is affected (each path from the change) and what it reaches downstream."""
    by_id = {n.id: n for n in graph.nodes}
    node = explanation.node
    lines = [f"{node.kind.value} {node.label}", f"  id: {node.id}"]
    lines += [f"  {key}: {value}" for key, value in node.facts]
    lines += ["", "Why it is affected:"]
    if node.id in graph.roots:
        lines.append("  it is part of the change itself")
    elif not explanation.causes:
        lines.append("  nothing in the change reaches it")
    first = explanation.causes[0] if explanation.causes else ()
    for number, path in enumerate(explanation.causes, start=1):
        shared = _shared(first, path) if number > 1 else 0
        if shared:
            lines.append(f"  {number}. as 1. up to {_label(by_id[path[shared - 1].target])}")
        else:
            lines.append(f"  {number}. {_label(by_id[path[0].source])}")
        lines += [
            f"       --{e.kind.value}--> {_label(by_id[e.target])}{_via(e)}" for e in path[shared:]
        ]
    lines += ["", f"What it reaches: {len(explanation.effects)} node(s)"]
    for reach in explanation.effects:
        target = by_id[reach.node]
        last = reach.path[-1]
        source = "" if last.source == node.id else f" from {by_id[last.source].label}"
        lines.append(f"  {_label(target)}  ({last.kind.value}{source})  [{target.id}]")
    return "\n".join(lines) + "\n"


def explanation_document(explanation: Explanation, radius: Radius) -> dict[str, Any]:
    return {
        "node": node_document(explanation.node, radius),
        "causes": [[edge_document(e) for e in path] for path in explanation.causes],
        "upstream": list(explanation.upstream),
        # each with the last step of its shortest path from the node, as the graph's nodes say theirs
        "effects": [
            {"id": r.node, "distance": r.distance, "via": last_step(r)} for r in explanation.effects
        ],
    }


def _shared(first: tuple[Edge, ...], path: tuple[Edge, ...]) -> int:
    """How many leading edges `path` shares with `first`, leaving at least its last one to print."""
    count = 0
    while count < min(len(first), len(path)) - 1 and first[count] == path[count]:
        count += 1
    return count


def _label(node: Node) -> str:
    return f"{node.kind.value} {node.label}"


def _via(edge: Edge) -> str:
    return f"  ({edge.via})" if edge.via else ""
