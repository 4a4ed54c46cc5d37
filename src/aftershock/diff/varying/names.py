"""Object names that change from one render to the next (`-cfg-{{ randAlphaNum 8 }}` in a Job's name).

Such an object paired with nothing across refs: the review showed it removed and added, and each run
gave its findings other subjects, so their fingerprints and lifecycle changed with no change at all.
A chart whose templates call a random function renders twice per side (pipeline/rendering/chart_jobs.py); here
an object of the first render and one of the second that no key pairs, from the same template and
document and of the same group, kind and namespace, are one object under a random name. Each part of
the name (split at `-`, `.` and `_`) that differs between the two is replaced by RANDOM_PART in both,
in the key and in `metadata.name`: base and head then pair the object, its diff is of its content, and
the review names it the same every run; two objects of one render masked alike are numbered (`-2`).
Names whose parts do not line up are left as they are. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from aftershock.diff.matching import pair_by_key, slots_of
from aftershock.model.objects import RenderedObject

RANDOM_PART = "<random>"
_SEPARATORS = re.compile(r"([-._])")

_Place = tuple[str, int, str, str, str]  # template, document, group, kind, namespace


def mask_random_names(
    first: Sequence[RenderedObject], second: Sequence[RenderedObject]
) -> tuple[tuple[RenderedObject, ...], tuple[RenderedObject, ...]]:
    """Both renders of one input, with the names that differ between them masked alike."""
    _, lone_first, lone_second = pair_by_key(slots_of(first), slots_of(second))
    others = {_place(slot.obj): slot.obj for slot in lone_second}
    masked: dict[_Place, str] = {}
    taken = {(o.key.group, o.key.kind, o.key.namespace, o.key.name) for o in first}
    for slot in sorted(lone_first, key=lambda s: _place(s.obj)):
        other = others.get(_place(slot.obj))
        name = _masked(slot.obj.key.name, other.key.name) if other is not None else None
        if name is not None:
            masked[_place(slot.obj)] = name = _unique(name, slot.obj, taken)
            taken.add((slot.obj.key.group, slot.obj.key.kind, slot.obj.key.namespace, name))
    if not masked:
        return tuple(first), tuple(second)
    return _renamed(first, masked), _renamed(second, masked)


def _unique(name: str, obj: RenderedObject, taken: set[tuple[str, str, str, str]]) -> str:
    """`name`, numbered when another object of its kind and namespace already has it (a range of
    Jobs named only by a random part): masking must not make two objects one."""
    key, number, unique = obj.key, 1, name
    while (key.group, key.kind, key.namespace, unique) in taken:
        number += 1
        unique = f"{name}-{number}"
    return unique


def _place(obj: RenderedObject) -> _Place:
    key = obj.key
    return (obj.template, obj.document_index, key.group, key.kind, key.namespace)


def _masked(name: str, other: str) -> str | None:
    """`name` with each part that differs from `other`'s masked; None when they do not line up."""
    parts, others = _SEPARATORS.split(name), _SEPARATORS.split(other)
    if len(parts) != len(others) or parts[1::2] != others[1::2]:
        return None
    return "".join(a if a == b else RANDOM_PART for a, b in zip(parts, others, strict=True))


def _renamed(
    objects: Sequence[RenderedObject], masked: dict[_Place, str]
) -> tuple[RenderedObject, ...]:
    out = []
    for obj in objects:
        name = masked.get(_place(obj))
        if name is None:
            out.append(obj)
            continue
        body = dict(obj.body)
        metadata = body.get("metadata")
        if isinstance(metadata, dict):
            body["metadata"] = {**metadata, "name": name}
        out.append(replace(obj, key=replace(obj.key, name=name), body=body))
    return tuple(out)
