"""Perturbation logic (pure): which keys to render alone, what a render shows, and how it settles links.

A perturbation renders a chart review's chart at base with one changed values key at its head value.
A field is produced by that key when the diff from the review's base render to the perturbed render
holds exactly the field change the review found (same path, kind, before and after); a whole object is
produced when it is added or removed there too. Only default-scenario reviews are perturbed.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from aftershock.diff.objects import diff_objects
from aftershock.model.diff import ObjectChange
from aftershock.model.objects import RenderedObject
from aftershock.model.provenance import Check, FieldProvenance, Perturbation, ValuesLink
from aftershock.model.releases import Evidence

DEFAULT_SCENARIO = "default"
Produced = frozenset[tuple[str, str]]  # (object id, field path; "" for a whole object)


def plan_perturbations(
    fields: Sequence[FieldProvenance], max_renders: int
) -> tuple[tuple[Perturbation, ...], tuple[Perturbation, ...]]:
    """Every (default-scenario review, candidate key) once, the keys that tell several candidates of a
    field apart first, then those confirming a lone candidate; over `max_renders`, the rest is cut."""
    ambiguous: dict[Perturbation, int] = {}
    total: dict[Perturbation, int] = {}
    for item in fields:
        if item.scenario != DEFAULT_SCENARIO:
            continue
        for link in item.values:
            key = Perturbation(item.review, link.file, link.key)
            total[key] = total.get(key, 0) + 1
            ambiguous[key] = ambiguous.get(key, 0) + (len(item.values) > 1)
    ordered = sorted(total, key=lambda p: (-ambiguous[p], -total[p], p.review, p.file, p.key))
    limit = max(0, max_renders)
    return tuple(ordered[:limit]), tuple(ordered[limit:])


def produced_fields(
    changes: Iterable[ObjectChange],
    object_prefix: str,
    base: Sequence[RenderedObject],
    perturbed: Sequence[RenderedObject],
) -> Produced:
    """The review's field changes (and whole-object changes) that the perturbed render reproduces."""
    found = {(c.key, c.kind): c for c in diff_objects(base, perturbed)}
    produced = set()
    for change in changes:
        match = found.get((change.key, change.kind))
        if match is None:
            continue
        object_id = f"{object_prefix}::{change.key.id}"
        if not change.fields:
            produced.add((object_id, ""))
        produced.update((object_id, f.path) for f in change.fields if f in match.fields)
    return frozenset(produced)


def settle(
    fields: Sequence[FieldProvenance],
    results: Mapping[Perturbation, Produced | None],
    cut: Iterable[Perturbation],
    unavailable: Iterable[str],
) -> tuple[FieldProvenance, ...]:
    """Mark each link by its perturbation: `results` maps a render to what it produced (None: failed);
    `unavailable` names reviews whose base render could not be rebuilt."""
    cut_set, blocked = set(cut), set(unavailable)
    at_default = {
        (item.object_id, item.field) for item in fields if item.scenario == DEFAULT_SCENARIO
    }
    settled = []
    for item in fields:
        links = []
        for link in item.values:
            key = Perturbation(item.review, link.file, link.key)
            check = _check(
                key, (item.object_id, item.field), results, cut_set, item.review in blocked
            )
            evidence = Evidence.OBSERVED if check is Check.PRODUCED else Evidence.INFERRED
            if check is Check.NOT_RUN and item.scenario != DEFAULT_SCENARIO:
                check = _carried(item, link, results, at_default)
            links.append(replace(link, check=check, evidence=evidence))
        settled.append(replace(item, values=tuple(links)))
    return tuple(settled)


def _carried(
    item: FieldProvenance,
    link: ValuesLink,
    results: Mapping[Perturbation, Produced | None],
    at_default: set[tuple[str, str]],
) -> Check:
    """A scenario's link judged by the default scenario's render of the same key, where the same
    field of the same object changed there too: a key that alone did not produce the field in the
    default scenario is not its source in the others either (evidence stays inferred)."""
    review = item.review.split("#", 1)[0]
    target = (f"{review}::{item.key.id}", item.field)
    produced = results.get(Perturbation(review, link.file, link.key))
    if produced is None or target not in at_default:
        return Check.NOT_RUN
    return Check.PRODUCED if target in produced else Check.NOT_PRODUCED


def _check(
    key: Perturbation,
    target: tuple[str, str],
    results: Mapping[Perturbation, Produced | None],
    cut: set[Perturbation],
    blocked: bool,
) -> Check:
    if key in results:
        produced = results[key]
        if produced is None:
            return Check.FAILED
        return Check.PRODUCED if target in produced else Check.NOT_PRODUCED
    if key in cut:
        return Check.CUT
    return Check.UNAVAILABLE if blocked else Check.NOT_RUN


def with_key(
    values: Mapping[str, Any], path: Sequence[str], value: Any, *, remove: bool
) -> dict[str, Any]:
    """A copy of `values` with the key at `path` set to `value`, or deleted when `remove`."""
    result = copy.deepcopy(dict(values))
    node = result
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            if remove:
                return result
            child = node[part] = {}
        node = child
    if remove:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = copy.deepcopy(value)
    return result
