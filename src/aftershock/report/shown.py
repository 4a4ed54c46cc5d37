"""The object changes a report lists: those fields `review.ignore_fields` marks (a chart's version
labels, checksum annotations) left out, and an object that changed in nothing else left out too
(counted, and kept in the JSON)."""

from __future__ import annotations

from typing import Any


def visible(obj: dict[str, Any]) -> dict[str, Any] | None:
    """`obj` without its ignored fields; None when it changed only in them."""
    fields = [f for f in obj["fields"] if not f.get("ignored")]
    if obj["change"] == "changed" and obj["fields"] and not fields:
        return None
    return obj if len(fields) == len(obj["fields"]) else {**obj, "fields": fields}


def listed_objects(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The objects a report lists, each as `visible` shows it."""
    return [shown for obj in objects if (shown := visible(obj)) is not None]


def ignored_only(doc: dict[str, Any]) -> int:
    """How many changed objects (other than the default scenario's repeats) changed only in
    ignored fields."""
    return sum(visible(o) is None for o in doc["objects"] if not o["same_as_default"])


def ignored_line(doc: dict[str, Any]) -> str | None:
    count = ignored_only(doc)
    if not count:
        return None
    return (
        f"{count} object(s) changed only in ignored fields (review.ignore_fields: version labels, "
        "checksum annotations by default): listed in the JSON"
    )
