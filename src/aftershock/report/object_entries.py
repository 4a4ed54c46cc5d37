"""The review document's entries for object changes: identity, key, fields and values (a redacted
value shows only its size), a kustomize generator's rename with the workloads it rolls; every
object change of a review, each with its identity across scenarios and the scenarios that
rendered it, and its plain diff where it says something the default scenario's does not
(report/object_diffs.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from aftershock.model.diff import FieldChange, ObjectChange, RedactedValue
from aftershock.model.objects import ObjectKey
from aftershock.model.review import ChartReview, Review
from aftershock.report.object_diffs import object_diff
from aftershock.report.text import comparable_field


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
    "same_in",
    "scenarios",
    "identity",
    "rendered_in",
)


def change_fingerprint(entry: dict[str, Any]) -> str:
    """The change an object entry describes, whatever scenario rendered it: equal for the same
    change of the same object in two scenarios (a text's by its edit, `comparable_field`)."""
    same = {k: v for k, v in entry.items() if k not in PER_SCENARIO}
    same["fields"] = [comparable_field(f) for f in same.get("fields", ())]
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


def review_id(r: ChartReview) -> str:
    """`path`, `path@release` for a chart a release installs, and `#scenario` for a non-default scenario."""
    base = f"{r.chart}@{r.release}" if r.release else r.chart
    return base if r.scenario == "default" else f"{base}#{r.scenario}"


MAX_REVIEW_DIFF_CHARS = 2_000_000  # of plain diffs in one document; the objects after go without


@dataclass(frozen=True)
class ObjectEntries:
    """The document's `objects`, and for each chart review (in the review's order) the indexes in
    them of the entries that hold its object changes.

    A non-default scenario's change identical to its install's default scenario's change of the same
    object is said once: by the default scenario's entry, whose `same_in` names that scenario, and
    whose index the scenario's chart review lists. A review of a whole tree renders most objects alike in
    every scenario: one entry each would be two thirds of the document's objects."""

    entries: list[dict[str, Any]]
    review_indexes: list[list[int]]


def review_objects(review: Review) -> ObjectEntries:
    """Every object change, one entry per change a scenario does not share with its default."""
    defaults = _default_changes(review)
    rendered_in = _rendered_in(review)
    entries: list[dict[str, Any]] = []
    review_ids: list[list[str]] = []
    stand_ins: dict[tuple[str, str], dict[str, Any]] = {}  # (install, fingerprint) -> default entry
    same: dict[tuple[str, str], list[str]] = {}  # (install, fingerprint) -> the scenarios alike
    room = (
        MAX_REVIEW_DIFF_CHARS  # a review reaching a whole fleet must not write every object's YAML
    )
    for r in review.chart_reviews:
        install = review_id(r).split("#", 1)[0]
        ids = []
        for change in r.changes:
            entry = object_entry(review_id(r), change)
            entry["scenario"] = r.scenario
            entry["identity"] = f"{install}::{change.key.id}"
            entry["rendered_in"] = rendered_in.get((r.chart, r.release, change.key.id), [])
            fingerprint = change_fingerprint(entry)
            if r.scenario != "default" and fingerprint in defaults.get(install, {}):
                ids.append(defaults[install][fingerprint])
                same.setdefault((install, fingerprint), []).append(r.scenario)
                continue
            entry["same_in"] = []
            if r.scenario == "default":
                stand_ins.setdefault((install, fingerprint), entry)
            # one diff per object and install: the default scenario's, or a scenario's own change
            diff = None if room <= 0 else object_diff(review, r, change)
            room -= len(diff or "")
            entry["diff"] = diff
            entries.append(entry)
            ids.append(entry["id"])
        review_ids.append(ids)
    for alike, scenarios in same.items():
        stand_ins[alike]["same_in"] = scenarios
    at: dict[str, int] = {}  # an id -> the index of the first entry of that id
    for index, entry in enumerate(entries):
        at.setdefault(entry["id"], index)
    return ObjectEntries(entries, [[at[i] for i in ids] for ids in review_ids])


def _default_changes(review: Review) -> dict[str, dict[str, str]]:
    """Install (`path[@release]`) -> the fingerprint of each change of its default scenario -> the
    id of its entry (the first, should the scenario change two objects alike)."""
    found: dict[str, dict[str, str]] = {}
    for r in review.chart_reviews:
        if r.scenario == "default":
            own = found.setdefault(review_id(r), {})
            for change in r.changes:
                fingerprint = change_fingerprint(object_entry("", change))
                own.setdefault(fingerprint, object_id(review_id(r), change))
    return found


def _rendered_in(review: Review) -> dict[tuple[str, str | None, str], list[str]]:
    """(chart, release, object key id) -> the scenarios of that install that rendered the object at
    either ref, for each object that changed in one of them."""
    changed = {(r.chart, r.release, c.key.id) for r in review.chart_reviews for c in r.changes}
    found: dict[tuple[str, str | None, str], list[str]] = {}
    for r in review.chart_reviews:
        keys = {o.key.id for o in (*r.base_objects, *r.head_objects)}
        keys.update(c.key.id for c in r.changes)
        for key in keys:
            if (r.chart, r.release, key) in changed:
                found.setdefault((r.chart, r.release, key), []).append(r.scenario)
    return found
