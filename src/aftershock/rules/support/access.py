"""Defensive reads of rendered bodies: a chart can render any shape, and a rule must never crash on it."""

from __future__ import annotations

from collections import abc
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeGuard

from aftershock.diff.paths import IndexSegment, KeySegment, MatchSegment, Segment, format_path

# Types parsed YAML gives that are not mappings: told apart without the ABC check, which is slow.
_NOT_MAPS = frozenset({type(None), str, int, float, bool, list, tuple})


def is_map(value: Any) -> TypeGuard[Mapping[Any, Any]]:
    """A mapping; parsed YAML gives dicts, so they are checked first (the ABC check is slow)."""
    kind = type(value)
    if kind is dict:
        return True
    return kind not in _NOT_MAPS and isinstance(value, abc.Mapping)


def as_map(value: Any) -> Mapping[str, Any]:
    return value if is_map(value) else {}


def as_list(value: Any) -> Sequence[Any]:
    return value if type(value) is list or isinstance(value, tuple) else ()


def dig(value: Any, *keys: str) -> Any:
    """value[k1][k2]...; None as soon as a level is missing or not a mapping."""
    for key in keys:
        if not is_map(value):
            return None
        value = value.get(key)
    return value


def text(value: Any) -> str:
    """A scalar as text ("" for None and for maps/lists), e.g. an image or a name."""
    if value is None or is_map(value) or isinstance(value, (list, tuple)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def is_true(value: Any) -> bool:
    """True only for a YAML boolean true: Kubernetes rejects "true" strings for bool fields."""
    return value is True


def entry_segment(entry: Any, index: int) -> Segment:
    """The path segment of a list entry: `[name=x]` when it has a usable name, else `[i]`."""
    name = as_map(entry).get("name")
    if isinstance(name, str) and name:
        return MatchSegment("name", name)
    return IndexSegment(index)


def named_entries(entries: Any) -> Iterator[tuple[Segment, str, Mapping[str, Any]]]:
    """(segment, display name, entry) for each map entry of a list; non-maps are skipped."""
    for index, entry in enumerate(as_list(entries)):
        if is_map(entry):
            segment = entry_segment(entry, index)
            name = entry.get("name")
            yield segment, name if isinstance(name, str) and name else f"#{index}", entry


def path_text(*parts: str | Segment) -> str:
    """A field path in the diff's syntax from keys and segments."""
    segments = [KeySegment(part) if isinstance(part, str) else part for part in parts]
    return format_path(segments)


def keys_path(prefix: tuple[Segment, ...], *keys: str) -> str:
    return format_path((*prefix, *(KeySegment(key) for key in keys)))


def mapping_keys(value: Any) -> set[str]:
    """The keys of every mapping in `value`, however deep: a loop, not recursion (bodies nest deep);
    every value is stacked and its type checked when popped (half the time of filtering first)."""
    keys: set[str] = set()
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        if kind is dict:
            keys.update(node)
            push(node.values())
        elif kind is list:
            push(node)
    return keys
