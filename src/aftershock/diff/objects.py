"""The public entry point of the diff: rendered objects of base and head -> object changes.

`diff_objects` normalises every object (see `normalize`), then pairs them:
1. by key (and occurrence, for duplicate keys; see `matching`): CHANGED when the normalised
   bodies or the apiVersions differ, nothing when they are equal;
2. lone objects with the same kind, namespace and name in another API group (e.g. an Ingress
   moving from extensions to networking.k8s.io): RENAMED, whatever their similarity;
3. lone ConfigMaps and Secrets of one kustomize generator whose content hash suffix changed:
   RENAMED with `generator` set and `rolls` naming the workloads whose pod template followed the new
   name (see `generated`);
4. lone objects of the same group+kind with content similarity >= 0.8: RENAMED (greedy,
   best first; see `matching` for the measure);
5. the rest: REMOVED (base) and ADDED (head), without field changes.
CHANGED and RENAMED carry the field changes of the normalised bodies, `metadata.name` and
`apiVersion` included when they differ, so a rename shows its old and new name as a change.
`previous_api_version` is set only when the apiVersion changed. Secret values are redacted
here (see `redact`), so no caller can get them. Result order: ObjectChangeKind declaration order
(added, removed, changed, renamed), then key, then previous key, then templates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from aftershock.diff.fields import diff_documents
from aftershock.diff.generated import pair_generated, rolled_workloads
from aftershock.diff.matching import (
    Slot,
    SlotPair,
    pair_by_key,
    pair_group_moves,
    pair_renames,
    slot_order,
    slots_of,
)
from aftershock.diff.normalize import UnstablePaths, normalize
from aftershock.diff.redact import redact_secret_changes
from aftershock.diff.values import deep_equal
from aftershock.model.diff import FieldChange, ObjectChange, ObjectChangeKind
from aftershock.model.objects import ObjectKey, RenderedObject

_KIND_ORDER = {kind: index for index, kind in enumerate(ObjectChangeKind)}


def diff_objects(
    base: Sequence[RenderedObject],
    head: Sequence[RenderedObject],
    *,
    unstable: UnstablePaths = frozenset(),
) -> tuple[ObjectChange, ...]:
    """Every object added, removed, renamed or changed from `base` to `head`, in a stable order."""
    if not base or not head:  # a chart added or removed: nothing to pair, so nothing to normalize
        kind, lone = (ObjectChangeKind.ADDED, head) if head else (ObjectChangeKind.REMOVED, base)
        ordered = (obj for _, obj in sorted(enumerate(lone), key=slot_order))
        return tuple(sorted((_lone(kind, obj) for obj in ordered), key=_order))
    base_slots = slots_of([normalize(obj, unstable) for obj in base])
    head_slots = slots_of([normalize(obj, unstable) for obj in head])
    kept, lone_base, lone_head = pair_by_key(base_slots, head_slots)
    moved = _lone_pairs(pair_group_moves, lone_base, lone_head)
    lone_base, lone_head = _without(moved, lone_base, lone_head)
    generated = _lone_pairs(pair_generated, lone_base, lone_head)
    lone_base, lone_head = _without(generated, lone_base, lone_head)
    renamed = _lone_pairs(pair_renames, lone_base, lone_head)
    lone_base, lone_head = _without(renamed, lone_base, lone_head)

    changes = [change for pair in kept if (change := _changed(pair)) is not None]
    kept_changes = tuple(changes)
    changes += [_renamed(pair) for pair in moved + renamed]
    changes += [_generated(pair, kept_changes) for pair in generated]
    changes += [_lone(ObjectChangeKind.REMOVED, slot.obj) for slot in lone_base]
    changes += [_lone(ObjectChangeKind.ADDED, slot.obj) for slot in lone_head]
    return tuple(sorted(changes, key=_order))


def _lone_pairs(
    pairer: Callable[[list[Slot], list[Slot]], list[SlotPair]], base: list[Slot], head: list[Slot]
) -> list[SlotPair]:
    """The pairs `pairer` finds among lone objects; none when a side has none (a new or a deleted
    chart, or every object kept its key), without looking at the other side's objects."""
    return pairer(base, head) if base and head else []


def _without(
    pairs: list[SlotPair], base: list[Slot], head: list[Slot]
) -> tuple[list[Slot], list[Slot]]:
    if not pairs:
        return base, head
    taken_base = {pair.base.sort_key for pair in pairs}
    taken_head = {pair.head.sort_key for pair in pairs}
    return (
        [slot for slot in base if slot.sort_key not in taken_base],
        [slot for slot in head if slot.sort_key not in taken_head],
    )


def _changed(pair: SlotPair) -> ObjectChange | None:
    old, new = pair.base.obj, pair.head.obj
    if old.api_version == new.api_version and deep_equal(old.body, new.body):
        return None
    return ObjectChange(
        kind=ObjectChangeKind.CHANGED,
        key=new.key,
        api_version=new.api_version,
        chart=new.chart,
        templates=_templates(old, new),
        fields=_field_changes(old, new),
        previous_api_version=old.api_version if old.api_version != new.api_version else None,
    )


def _renamed(pair: SlotPair) -> ObjectChange:
    old, new = pair.base.obj, pair.head.obj
    return ObjectChange(
        kind=ObjectChangeKind.RENAMED,
        key=new.key,
        api_version=new.api_version,
        chart=new.chart,
        templates=_templates(old, new),
        fields=_field_changes(old, new),
        previous_key=old.key,
        similarity=pair.similarity,
        previous_api_version=old.api_version if old.api_version != new.api_version else None,
    )


def _generated(pair: SlotPair, kept: Sequence[ObjectChange]) -> ObjectChange:
    """A generator's rename: the object renamed, and the workloads whose pods the new name rolls."""
    old, new = pair.base.obj, pair.head.obj
    return replace(
        _renamed(pair),
        generator=new.generator,
        rolls=rolled_workloads(old.key, new.key, kept),
    )


def _lone(kind: ObjectChangeKind, obj: RenderedObject) -> ObjectChange:
    return ObjectChange(
        kind=kind,
        key=obj.key,
        api_version=obj.api_version,
        chart=obj.chart,
        templates=tuple(sorted({obj.template, *obj.shaped_by})),
    )


def _field_changes(old: RenderedObject, new: RenderedObject) -> tuple[FieldChange, ...]:
    """The diff of the bodies, Secret values redacted: the only way field changes are made here.

    A Secret that also changed kind or group is no longer a Secret on one side; both keys are
    checked so that neither side's values can show.
    """
    changes = diff_documents(old.body, new.body)
    for key in (old.key, new.key):
        changes = redact_secret_changes(key, old.body, new.body, changes)
    return changes


def _templates(old: RenderedObject, new: RenderedObject) -> tuple[str, ...]:
    """The files either side came from: templates, and for a kustomize build its patches and inputs."""
    return tuple(sorted({old.template, new.template, *old.shaped_by, *new.shaped_by}))


def _order(
    change: ObjectChange,
) -> tuple[int, tuple[str, ...], bool, tuple[str, ...], tuple[str, ...]]:
    """Kind, key, renamed or not, previous key, templates; keys as their fields, which order as the
    keys do without a Python comparison per pair of keys."""
    previous = change.previous_key or change.key
    return (
        _KIND_ORDER[change.kind],
        _fields(change.key),
        change.previous_key is not None,
        _fields(previous),
        change.templates,
    )


def _fields(key: ObjectKey) -> tuple[str, str, str, str]:
    return (key.group, key.kind, key.namespace, key.name)
