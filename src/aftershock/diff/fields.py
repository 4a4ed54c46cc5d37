"""Field-level diff of two JSON-compatible documents, the way dyff reads Kubernetes YAML.

Maps are walked by key. A list is matched by an identity field when every entry on both sides is
a map carrying that field with a text or integer value, unique within each side; the first such
field of IDENTITY_FIELDS wins. Matched entries are diffed recursively, unmatched ones are ADDED or
REMOVED whole, and a change in the relative order of matched entries is one REORDERED change on
the list (before/after: the identity values in each side's order). A list with no identity is
compared by position, unless it holds the same entries in another order: then it is one REORDERED
change (before/after: the lists).

Values of different JSON kinds always differ (see `values`): `1`, `1.0`, `"1"` and `true` are
four values, as for Go's reflect.DeepEqual. Output order is the order of the walk: at each level
the entries of `before` in its order, then the entries only in `after` in its order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any, TypeGuard

from aftershock.diff.paths import (
    IndexSegment,
    KeySegment,
    MatchSegment,
    Segment,
    format_path,
    key_text,
    segment_texts,
)
from aftershock.diff.values import canonical, deep_equal, is_list, is_map, key_token
from aftershock.model.diff import FieldChange, FieldChangeKind

# Tried in this order. `name` covers containers, env, volumes, ports and most named lists; `key`
# covers configMap/secret items; then the fields Kubernetes itself treats as unique in their lists
# (containerPort, mountPath, devicePath, service `port`, hostAliases `ip`, ingress rule `host`,
# HTTP `path`, condition `type`).
IDENTITY_FIELDS: tuple[str, ...] = (
    "name",
    "key",
    "id",
    "containerPort",
    "mountPath",
    "devicePath",
    "port",
    "ip",
    "host",
    "path",
    "type",
)

Path = tuple[Segment, ...]


def diff_documents(before: Any, after: Any) -> tuple[FieldChange, ...]:
    """Every field change turning `before` into `after`; empty when they are equal."""
    changes: list[FieldChange] = []
    _diff_value((), before, after, changes)
    return tuple(changes)


def field_change(
    path: Path, kind: FieldChangeKind, before: Any = None, after: Any = None
) -> FieldChange:
    return FieldChange(
        path=format_path(path),
        kind=kind,
        before=before,
        after=after,
        path_parts=segment_texts(path),
    )


def identity_field(*lists: Sequence[Any]) -> str | None:
    """The first IDENTITY_FIELDS entry that identifies every entry of every list, if any."""
    if not any(lists):
        return None
    for name in IDENTITY_FIELDS:
        if all(_identifies(name, entries) for entries in lists):
            return name
    return None


def identity_token(value: str | int) -> tuple[bool, str | int]:
    """Keeps the text "80" and the integer 80 apart as identity values."""
    return (isinstance(value, str), value)


def entry_matches(entry: Any, segment: MatchSegment) -> bool:
    """Whether a list entry is the one a `[field=value]` path segment selects."""
    if not is_map(entry):
        return False
    value = entry.get(segment.field)
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        return False
    return identity_token(value) == identity_token(segment.value)


def _identifies(name: str, entries: Sequence[Any]) -> bool:
    seen: set[tuple[bool, str | int]] = set()
    for entry in entries:
        if not is_map(entry):
            return False
        value = entry.get(name)
        if not _is_identity_value(value):
            return False
        token = identity_token(value)
        if token in seen:
            return False
        seen.add(token)
    return True


def _is_identity_value(value: Any) -> TypeGuard[str | int]:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _diff_value(path: Path, before: Any, after: Any, out: list[FieldChange]) -> None:
    if deep_equal(before, after):
        return
    if is_map(before) and is_map(after):
        _diff_maps(path, before, after, out)
    elif is_list(before) and is_list(after):
        _diff_lists(path, before, after, out)
    else:
        out.append(field_change(path, FieldChangeKind.MODIFIED, before, after))


def _diff_maps(
    path: Path, before: Mapping[Any, Any], after: Mapping[Any, Any], out: list[FieldChange]
) -> None:
    after_by_token = {key_token(key): (key, value) for key, value in after.items()}
    seen: set[Any] = set()
    for key, value in before.items():
        token = key_token(key)
        seen.add(token)
        child = (*path, KeySegment(key_text(key)))
        if token in after_by_token:
            _diff_value(child, value, after_by_token[token][1], out)
        else:
            out.append(field_change(child, FieldChangeKind.REMOVED, before=value))
    for token, (key, value) in after_by_token.items():
        if token not in seen:
            out.append(
                field_change((*path, KeySegment(key_text(key))), FieldChangeKind.ADDED, after=value)
            )


def _diff_lists(
    path: Path, before: Sequence[Any], after: Sequence[Any], out: list[FieldChange]
) -> None:
    name = identity_field(before, after)
    if name is not None:
        _diff_by_identity(path, name, before, after, out)
    elif Counter(map(canonical, before)) == Counter(map(canonical, after)):
        out.append(field_change(path, FieldChangeKind.REORDERED, list(before), list(after)))
    else:
        _diff_by_position(path, before, after, out)


def _diff_by_identity(
    path: Path, name: str, before: Sequence[Any], after: Sequence[Any], out: list[FieldChange]
) -> None:
    before_by_id = {identity_token(entry[name]): entry for entry in before}
    after_by_id = {identity_token(entry[name]): entry for entry in after}
    kept_before = [token for token in before_by_id if token in after_by_id]
    kept_after = [token for token in after_by_id if token in before_by_id]
    if kept_before != kept_after:
        order_before = [entry[name] for entry in before]
        order_after = [entry[name] for entry in after]
        out.append(field_change(path, FieldChangeKind.REORDERED, order_before, order_after))
    for token, entry in before_by_id.items():
        child = (*path, MatchSegment(name, entry[name]))
        if token in after_by_id:
            _diff_value(child, entry, after_by_id[token], out)
        else:
            out.append(field_change(child, FieldChangeKind.REMOVED, before=entry))
    for token, entry in after_by_id.items():
        if token not in before_by_id:
            child = (*path, MatchSegment(name, entry[name]))
            out.append(field_change(child, FieldChangeKind.ADDED, after=entry))


def _diff_by_position(
    path: Path, before: Sequence[Any], after: Sequence[Any], out: list[FieldChange]
) -> None:
    """Same-length lists compare position by position. Otherwise align them (longest matching runs,
    as diff does) so an inserted entry is one ADDED change, not a shift of every later position;
    a removed entry keeps its base index, every other change is named by its head index."""
    if len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after)):
            _diff_value((*path, IndexSegment(index)), old, new, out)
        return
    matcher = SequenceMatcher(
        None, [canonical(e) for e in before], [canonical(e) for e in after], autojunk=False
    )
    for tag, b0, b1, a0, a1 in matcher.get_opcodes():
        if tag == "equal":
            continue
        paired = min(b1 - b0, a1 - a0)
        for offset in range(paired):
            _diff_value(
                (*path, IndexSegment(a0 + offset)), before[b0 + offset], after[a0 + offset], out
            )
        for index in range(b0 + paired, b1):
            out.append(
                field_change(
                    (*path, IndexSegment(index)), FieldChangeKind.REMOVED, before=before[index]
                )
            )
        for index in range(a0 + paired, a1):
            out.append(
                field_change(
                    (*path, IndexSegment(index)), FieldChangeKind.ADDED, after=after[index]
                )
            )
