"""Strict equality of JSON-compatible values, as Go's reflect.DeepEqual sees decoded YAML.

Python says `True == 1 == 1.0`; Kubernetes does not. Here a value's kind (null, bool, int, float,
string, map, list) is part of its identity: `1`, `1.0`, `"1"` and `True` are four different values.
One deliberate difference from Go: NaN equals NaN, so a NaN never shows as a change of itself.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any, TypeGuard

# Types parsed YAML gives that are not mappings: told apart without the ABC check, which is slow.
_NOT_MAPS = frozenset({type(None), str, int, float, bool, list, tuple})


def is_map(value: Any) -> TypeGuard[Mapping[Any, Any]]:
    # Parsed documents hold plain dicts, and what is missing is None: both without the ABC check.
    kind = type(value)
    if kind is dict:
        return True
    return kind not in _NOT_MAPS and isinstance(value, Mapping)


def is_list(value: Any) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    return isinstance(value, (list, tuple))


def kind_of(value: Any) -> str:
    """The JSON kind of a value; bool is checked before int because bool is an int in Python."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if is_map(value):
        return "map"
    if is_list(value):
        return "list"
    return type(value).__name__  # e.g. a date PyYAML decoded; compared by ==


def key_token(key: Any) -> Hashable:
    """A dict key that keeps `1`, `True` and `"1"` apart (text keys, the usual case, stay as is)."""
    if isinstance(key, str):
        return key
    return (kind_of(key), key)


def deep_equal(left: Any, right: Any) -> bool:
    if left is right:  # parsed crds/ files are shared by both refs: nothing to walk
        return True
    kind = type(left)
    if kind is type(right):  # the usual case, without asking each value's kind
        if kind is dict:
            return _dicts_equal(left, right)
        if kind is list:
            return len(left) == len(right) and all(
                a is b or deep_equal(a, b) for a, b in zip(left, right)
            )
        if kind is str or kind is int or kind is bool:
            return bool(left == right)
    return _kinds_equal(left, right)


def _kinds_equal(left: Any, right: Any) -> bool:
    kind = kind_of(left)
    if kind != kind_of(right):
        return False
    if kind == "map":
        return _maps_equal(left, right)
    if kind == "list":
        return len(left) == len(right) and all(deep_equal(a, b) for a, b in zip(left, right))
    if kind == "float" and math.isnan(left) and math.isnan(right):
        return True
    return bool(left == right)


_MISSING = object()


def _dicts_equal(left: dict[Any, Any], right: dict[Any, Any]) -> bool:
    """Two dicts with text keys, looked up as they are (no token each); any other key: `_maps_equal`."""
    if len(left) != len(right):
        return False
    for key, value in left.items():
        if type(key) is not str:
            return _maps_equal(left, right)
        other = right.get(key, _MISSING)
        if other is _MISSING or (value is not other and not deep_equal(value, other)):
            return False
    return True


def _maps_equal(left: Mapping[Any, Any], right: Mapping[Any, Any]) -> bool:
    if len(left) != len(right):
        return False
    right_by_token = {key_token(key): value for key, value in right.items()}
    for key, value in left.items():
        token = key_token(key)
        if token not in right_by_token or not deep_equal(value, right_by_token[token]):
            return False
    return True


def canonical(value: Any) -> Hashable:
    """A hashable form with the same equality as `deep_equal` (maps ignore key order)."""
    kind = kind_of(value)
    if kind == "map":
        return ("map", frozenset((key_token(k), canonical(v)) for k, v in value.items()))
    if kind == "list":
        return ("list", tuple(canonical(item) for item in value))
    if kind == "float" and math.isnan(value):
        return ("float", "nan")
    if kind in ("null", "bool", "int", "float", "str"):
        return (kind, value)
    return (kind, repr(value))


def thaw(value: Any) -> Any:
    """A fresh copy made of dicts and lists, safe to edit without touching the original."""
    if is_map(value):
        return {key: thaw(item) for key, item in value.items()}
    if is_list(value):
        return [thaw(item) for item in value]
    return value
