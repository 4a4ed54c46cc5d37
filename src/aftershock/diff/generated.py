"""Objects a kustomize generator renamed: pairing them across refs, and the workloads the rename rolls.

A ConfigMap or Secret made by `configMapGenerator`/`secretGenerator` is named `<name>-<hash>`, where the
hash is kustomize's content hash (its hasher: the first 10 hex digits of a sha256 of the object, with
`0 1 3 a e` written `g h k m t`), and kustomize rewrites every reference to it. A data change therefore
renames the object. `pair_generated` pairs a lone base and a lone head object of the same generator,
kind, namespace and name without that suffix (and the same generating file when several match), so
the diff shows one object renamed with its data diff, not one deleted and one created. A generator
with `options.disableNameSuffixHash` (or `generatorOptions`) keeps its name: key pairing finds it
first. `behavior: merge`/`replace` in an overlay keeps the base generator's name and origin.

`rolled_workloads` names the workloads whose pod template changed from the old name to the new one
in their own diff: the rename restarts their pods, which is observed, not inferred.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

from aftershock.diff.matching import Slot, SlotPair, leaves_of, similarity
from aftershock.model.diff import FieldChangeKind, ObjectChange
from aftershock.model.objects import ObjectKey, RenderedObject

HASH_SUFFIX = re.compile(r"-[2456789bcdfghkmt]{10}\Z")
GENERATED_KINDS = frozenset({("", "ConfigMap"), ("", "Secret")})
_POD_TEMPLATES = ("spec.template.", "spec.jobTemplate.spec.template.")

_Place = tuple[str, str, str, str]  # generator, kind, namespace, name without the hash


def generated_stem(obj: RenderedObject) -> str | None:
    """The name a generator gave `obj` before kustomize appended the content hash; None when `obj`
    is not a generated ConfigMap or Secret with a hash suffix."""
    if obj.generator is None or (obj.key.group, obj.key.kind) not in GENERATED_KINDS:
        return None
    suffix = HASH_SUFFIX.search(obj.key.name)
    return obj.key.name[: suffix.start()] if suffix and suffix.start() > 0 else None


def pair_generated(base: Sequence[Slot], head: Sequence[Slot]) -> list[SlotPair]:
    """One pair per generated object whose hash changed; ambiguous places pair by generating file."""
    olds, news = _by_place(base), _by_place(head)
    pairs = []
    for where in sorted(olds.keys() & news.keys()):
        before, after = olds[where], news[where]
        if len(before) == 1 and len(after) == 1:
            pairs.append(_pair(before[0], after[0]))
            continue
        by_file = _by_file(after)
        for old in before:
            same = by_file.get(old.obj.template, [])
            if len(same) == 1 and sum(o.obj.template == old.obj.template for o in before) == 1:
                pairs.append(_pair(old, same[0]))
    return pairs


def _by_place(slots: Iterable[Slot]) -> dict[_Place, list[Slot]]:
    found: defaultdict[_Place, list[Slot]] = defaultdict(list)
    for slot in slots:
        stem = generated_stem(slot.obj)
        if stem is not None and slot.obj.generator is not None:
            found[(slot.obj.generator, slot.key.kind, slot.key.namespace, stem)].append(slot)
    return found


def _by_file(slots: Iterable[Slot]) -> dict[str, list[Slot]]:
    found: defaultdict[str, list[Slot]] = defaultdict(list)
    for slot in slots:
        found[slot.obj.template].append(slot)
    return found


def _pair(old: Slot, new: Slot) -> SlotPair:
    return SlotPair(old, new, similarity(leaves_of(old.obj.body), leaves_of(new.obj.body)))


def rolled_workloads(
    old: ObjectKey, new: ObjectKey, changes: Iterable[ObjectChange]
) -> tuple[ObjectKey, ...]:
    """The objects whose pod template now names `new` where it named `old` (a generator's rename)."""
    rolled = {
        change.key
        for change in changes
        for field in change.fields
        if field.kind is FieldChangeKind.MODIFIED
        and field.path.startswith(_POD_TEMPLATES)
        and field.before == old.name
        and field.after == new.name
        and change.key.namespace == new.namespace
    }
    return tuple(sorted(rolled))
