"""The review document's entries for object changes: identity, key, fields and values (a redacted
value shows only its size), and a kustomize generator's rename with the workloads it rolls."""

from __future__ import annotations

import json
from typing import Any

from aftershock.model.diff import FieldChange, ObjectChange, RedactedValue
from aftershock.model.objects import ObjectKey


def object_id(review: str, change: ObjectChange) -> str:
    return f"{review}::{change.key.id}"


def key_entry(key: ObjectKey) -> dict[str, str]:
    """An object key as the schema's `key`: its parts and its id."""
    return {
        "group": key.group,
        "kind": key.kind,
        "namespace": key.namespace,
        "name": key.name,
        "id": key.id,
    }


def object_entry(review: str, change: ObjectChange) -> dict[str, Any]:
    """One object change of chart review `review`."""
    found = _object_fields(review, change)
    if change.generator:  # only a kustomize generator's rename has them
        found["generator"] = change.generator
        found["rolls"] = [key_entry(k) for k in change.rolls]
    return found


def _object_fields(review: str, change: ObjectChange) -> dict[str, Any]:
    return {
        "id": object_id(review, change),
        "review": review,
        "chart": change.chart,
        "change": change.kind.value,
        "key": key_entry(change.key),
        "display": str(change.key),
        "api_version": change.api_version,
        "previous_key": key_entry(change.previous_key) if change.previous_key else None,
        "previous_api_version": change.previous_api_version,
        "similarity": change.similarity,
        "templates": list(change.templates),
        "fields": [_field(f) for f in change.fields],
    }


# What differs between the entries of one object change rendered in several scenarios.
PER_SCENARIO = (
    "id",
    "review",
    "scenario",
    "same_as_default",
    "scenarios",
    "identity",
    "rendered_in",
)


def change_fingerprint(entry: dict[str, Any]) -> str:
    """The change an object entry describes, whatever scenario rendered it: equal for the same
    change of the same object in two scenarios."""
    same = {k: v for k, v in entry.items() if k not in PER_SCENARIO}
    return json.dumps(same, sort_keys=True, default=str)


def _field(f: FieldChange) -> dict[str, Any]:
    return {
        "path": f.path,
        "change": f.kind.value,
        "before": _value(f.before),
        "after": _value(f.after),
        "ignored": f.ignored,
    }


def _value(value: Any) -> Any:
    """The value as JSON; a redacted one, at any depth (a credential inside a map), as its size."""
    if isinstance(value, RedactedValue):
        return {"redacted": True, "bytes": value.bytes}
    if isinstance(value, dict):
        return {k: _value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_value(v) for v in value]
    return value
