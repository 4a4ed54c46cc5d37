"""The render context of each affected chart in the canonical document, and its one-line text form."""

from __future__ import annotations

from typing import Any

from aftershock.model.contexts import PLACEHOLDER, ChartContext, HeadNeed, InferredValue


def context_document(context: ChartContext) -> dict[str, Any]:
    return {
        "chart": context.chart,
        "kind": context.kind.value if context.kind else None,
        "name": context.name,
        "reason": context.reason,
        "side_tried": context.side_tried,
        "release_name": context.release_name,
        "namespace": context.namespace,
        "lookups": list(context.lookups),
        "inferred": list(context.inferred),
        "inferred_values": [_value(v) for v in context.inferred_values],
        "head_need": _head_need(context.head_need) if context.head_need else None,
        "attempts": [{"name": a.name, "error": a.error} for a in context.attempts],
    }


def _value(value: InferredValue) -> dict[str, Any]:
    return {
        "key": value.key,
        "file": value.file,
        "value": None if value.file else PLACEHOLDER,
        "evidence": "inferred",
    }


def _head_need(need: HeadNeed) -> dict[str, Any]:
    return {
        "values": [_value(v) for v in need.values],
        "error": need.error,
        "template": need.template,
    }


def context_shown(entry: dict[str, Any]) -> bool:
    """Whether a context says more than "the chart's own defaults": chosen over others, or guessed."""
    return bool(
        entry["kind"] != "defaults"
        or entry["attempts"]
        or entry.get("inferred")
        or entry.get("inferred_values")
        or entry.get("head_need")
    )


def context_line(entry: dict[str, Any]) -> str:
    """`chart: rendered in <context> (<why>)`, or that no context rendered it, for Markdown and terminal."""
    if entry["kind"] is None:
        line = f"{entry['chart']}: no context renders it at {entry['side_tried']} ({len(entry['attempts'])} tried)"
        return line + "".join(
            f"; rendered with inferred {_inferred(v)}" for v in entry.get("inferred_values", ())
        )
    identity = ""
    if (entry["release_name"] or entry["namespace"]) and entry[
        "kind"
    ] != "tests":  # the tests' reason says it
        identity = (
            f"; release {entry['release_name'] or 'release'} in {entry['namespace'] or 'default'}"
        )
    tried = f"; {len(entry['attempts'])} context(s) before it failed" if entry["attempts"] else ""
    found = f"; lookup found {', '.join(entry['lookups'])}" if entry["lookups"] else ""
    inferred = entry.get("inferred") or ()
    guessed = f"; inferred: {'; '.join(inferred)}" if inferred else ""
    guessed += "".join(f"; inferred {_inferred(v)}" for v in entry.get("inferred_values", ()))
    need = entry.get("head_need")
    if need:
        guessed += "; at head, which fails without them (the base renders without), inferred "
        guessed += ", ".join(_inferred(v) for v in need["values"])
    return (
        f"{entry['chart']}: rendered in {entry['name']} "
        f"({entry['reason']}{identity}{tried}{found}{guessed})"
    )


def _inferred(value: dict[str, Any]) -> str:
    if value["file"] is None:
        return f"{value['key']} as the placeholder {value['value']!r} (no values file sets it)"
    return f"{value['key']} from {value['file']}"
