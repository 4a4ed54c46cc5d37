"""Pairing objects of two renders: by key, then group moves, then renames by content similarity.

Duplicate keys (Helm can render two objects with one key) stay distinct: the objects of one side
sharing a key are numbered by (template, document_index, input position), and occurrence n of a
key in base pairs with occurrence n in head.

Similarity of two bodies is the fraction of equal leaves: both bodies are flattened to
{leaf path: value} (a leaf is a scalar, an empty map or an empty list; lists use the same identity
selectors as the field diff), leaving out `metadata.name` and `metadata.namespace`; similarity =
(number of paths present in both with equal values) / (number of distinct paths on either side).
Two empty bodies are 1.0. Renames pair lone objects of the same group+kind at >= 0.8, greedy
best first; group moves pair same kind+namespace+name across API groups whatever the score.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aftershock.diff.fields import identity_field
from aftershock.diff.paths import (
    IndexSegment,
    KeySegment,
    MatchSegment,
    Segment,
    format_path,
    key_text,
)
from aftershock.diff.values import canonical, is_list, is_map
from aftershock.model.objects import ObjectKey, RenderedObject

RENAME_THRESHOLD = 0.8
# Above this many candidate pairs within one group+kind, renames are not looked for there: the
# comparison is quadratic and a render that large is better reported as added+removed than slow.
MAX_RENAME_PAIRS_PER_KIND = 250_000

_IGNORED_FOR_SIMILARITY = frozenset(
    {
        (KeySegment("metadata"), KeySegment("name")),
        (KeySegment("metadata"), KeySegment("namespace")),
    }
)


@dataclass(frozen=True)
class Slot:
    """One object of one side, numbered among that side's objects sharing its key (from 0)."""

    occurrence: int
    obj: RenderedObject

    @property
    def key(self) -> ObjectKey:
        return self.obj.key

    @property
    def sort_key(self) -> tuple[ObjectKey, int]:
        return (self.obj.key, self.occurrence)


@dataclass(frozen=True)
class Leaves:
    """A body flattened for similarity: its (leaf path, canonical value) pairs and its paths."""

    items: frozenset[tuple[str, Hashable]]
    paths: frozenset[str]


@dataclass(frozen=True)
class SlotPair:
    base: Slot
    head: Slot
    similarity: float | None = None


def slots_of(objects: Sequence[RenderedObject]) -> tuple[Slot, ...]:
    """The objects as slots, sorted by key then occurrence."""
    ordered = sorted(enumerate(objects), key=slot_order)
    seen: Counter[ObjectKey] = Counter()
    slots = []
    for _, obj in ordered:
        slots.append(Slot(occurrence=seen[obj.key], obj=obj))
        seen[obj.key] += 1
    return tuple(slots)


def slot_order(item: tuple[int, RenderedObject]) -> tuple[str, str, str, str, str, int, int]:
    """(key, template, document index, position): the key as its fields, which order as the key
    does without a Python comparison per pair of keys."""
    position, obj = item
    key = obj.key
    return (
        key.group,
        key.kind,
        key.namespace,
        key.name,
        obj.template,
        obj.document_index,
        position,
    )


def pair_by_key(
    base: Sequence[Slot], head: Sequence[Slot]
) -> tuple[list[SlotPair], list[Slot], list[Slot]]:
    """(pairs with equal key and occurrence, unmatched base, unmatched head), each in slot order."""
    head_by_id = {slot.sort_key: slot for slot in head}
    pairs, lone_base = [], []
    for slot in base:
        match = head_by_id.pop(slot.sort_key, None)
        if match is None:
            lone_base.append(slot)
        else:
            pairs.append(SlotPair(slot, match))
    return pairs, lone_base, list(head_by_id.values())


def pair_group_moves(base: Sequence[Slot], head: Sequence[Slot]) -> list[SlotPair]:
    """Pairs one lone base and one lone head object with the same kind, namespace and name but
    another API group (e.g. Ingress from extensions to networking.k8s.io), whatever their content."""

    def place(slot: Slot) -> tuple[str, str, str]:
        return (slot.key.kind, slot.key.namespace, slot.key.name)

    base_by_place: defaultdict[tuple[str, str, str], list[Slot]] = defaultdict(list)
    head_by_place: defaultdict[tuple[str, str, str], list[Slot]] = defaultdict(list)
    for slot in base:
        base_by_place[place(slot)].append(slot)
    for slot in head:
        head_by_place[place(slot)].append(slot)
    pairs = []
    for where, olds in base_by_place.items():
        news = head_by_place.get(where, [])
        if len(olds) == 1 and len(news) == 1 and olds[0].key.group != news[0].key.group:
            score = similarity(leaves_of(olds[0].obj.body), leaves_of(news[0].obj.body))
            pairs.append(SlotPair(olds[0], news[0], score))
    return pairs


def pair_renames(base: Sequence[Slot], head: Sequence[Slot]) -> list[SlotPair]:
    """Greedy best-first pairing of lone objects of the same group+kind with similarity >=
    RENAME_THRESHOLD; ties go to the earlier base slot, then the earlier head slot."""
    candidates: list[tuple[float, int, int]] = []
    for olds, news in _by_group_kind(base, head):
        if len(olds) * len(news) > MAX_RENAME_PAIRS_PER_KIND:
            continue
        new_leaves = [(new_index, leaves_of(head[new_index].obj.body)) for new_index in news]
        for old_index in olds:
            old_leaves = leaves_of(base[old_index].obj.body)
            for new_index, leaves in new_leaves:
                if not _may_reach_threshold(old_leaves, leaves):
                    continue
                score = similarity(old_leaves, leaves)
                if score >= RENAME_THRESHOLD:
                    candidates.append((-score, old_index, new_index))
    pairs, used_base, used_head = [], set(), set()
    for negative_score, old_index, new_index in sorted(candidates):
        if old_index not in used_base and new_index not in used_head:
            used_base.add(old_index)
            used_head.add(new_index)
            pairs.append(SlotPair(base[old_index], head[new_index], -negative_score))
    return pairs


def _may_reach_threshold(left: Leaves, right: Leaves) -> bool:
    """similarity <= smaller/larger path count: a cheap bound that skips hopeless pairs."""
    small, large = sorted((len(left.paths), len(right.paths)))
    return large == 0 or small >= RENAME_THRESHOLD * large - 1e-9  # tolerance: 0.8 * 35 > 28.0


def _by_group_kind(
    base: Sequence[Slot], head: Sequence[Slot]
) -> Iterator[tuple[list[int], list[int]]]:
    """Indices of base and head slots, per group+kind present on both sides."""
    olds: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
    news: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
    for index, slot in enumerate(base):
        olds[(slot.key.group, slot.key.kind)].append(index)
    for index, slot in enumerate(head):
        news[(slot.key.group, slot.key.kind)].append(index)
    for group_kind in sorted(olds.keys() & news.keys()):
        yield olds[group_kind], news[group_kind]


def similarity(left: Leaves, right: Leaves) -> float:
    if len(left.paths) + len(right.paths) == 0:
        return 1.0
    equal = len(left.items & right.items)  # a path is once per side, so equal items = equal paths
    return equal / len(left.paths | right.paths)


def leaves_of(body: Mapping[str, Any]) -> Leaves:
    found: dict[str, Hashable] = {}
    _collect_leaves((), body, found)
    return Leaves(items=frozenset(found.items()), paths=frozenset(found))


def _collect_leaves(path: tuple[Segment, ...], value: Any, found: dict[str, Hashable]) -> None:
    if len(path) == 2 and path in _IGNORED_FOR_SIMILARITY:
        return
    if is_map(value) and value:
        for key, item in value.items():
            _collect_leaves((*path, KeySegment(key_text(key))), item, found)
    elif is_list(value) and value:
        name = identity_field(value)
        for index, item in enumerate(value):
            segment = IndexSegment(index) if name is None else MatchSegment(name, item[name])
            _collect_leaves((*path, segment), item, found)
    else:
        found[format_path(path)] = canonical(value)
