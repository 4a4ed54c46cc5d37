"""Compiled validity predicates for the object schemas of `kubeschema`: `compiled_predicate(schema,
definitions)(value)` is True exactly when `kubeschema`'s walk finds no error in `value`.

The walk builds a path string and a generator per node, which is most of the rule pass's cost on
objects that are valid (nearly all of them). A predicate is compiled once per schema node (cached by
identity for as long as the schema lives: built-in schemas and their definitions are cached by
`kubeschema`) into nested closures that only answer yes or no; the walk then runs only on an
invalid object, to say where and why. Hand-written, as the validator is, for the same keywords and
the same readings (`oneOf` as `anyOf`, a null value outside an enum passes it, an unknown type
accepts anything, a `$ref` that names nothing is skipped).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

Predicate = Callable[[Any], bool]
_REF_MARK = "#/$defs/"
MAX_COMPILED = 200_000  # schema nodes kept compiled; past it the cache starts afresh


def _is_integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, float) and v.is_integer()
    )


_TYPES: dict[str, Predicate] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}

# id(schema node), id(definitions) -> (the node, the definitions, its predicate): the objects are
# kept so that an id is never reused while its entry stands.
_CACHE: dict[tuple[int, int], tuple[object, object, Predicate]] = {}


def compiled_predicate(schema: Mapping[str, Any], definitions: Mapping[str, Any]) -> Predicate:
    """The predicate of `schema` (its `$ref`s looked up in `definitions`)."""
    if len(_CACHE) > MAX_COMPILED:
        _CACHE.clear()
    return _compile(schema, definitions)


def _compile(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Predicate:
    key = (id(schema), id(defs))
    entry = _CACHE.get(key)
    if entry is not None and entry[0] is schema and entry[1] is defs:
        return entry[2]
    # A recursive schema (JSONSchemaProps) reaches itself: the entry stands before its parts compile.
    cell: list[Predicate] = []
    _CACHE[key] = (schema, defs, lambda v: cell[0](v))
    predicate = _all_of(_node_checks(schema, defs))
    cell.append(predicate)
    _CACHE[key] = (schema, defs, predicate)
    return predicate


def _all_of(checks: list[Predicate]) -> Predicate:
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    return lambda v: all(check(v) for check in checks)


def _any_of(options: list[Predicate]) -> Predicate:
    return lambda v: any(option(v) for option in options)


def _node_checks(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> list[Predicate]:
    checks: list[Predicate] = []
    ref = schema.get("$ref")
    if ref is not None:
        target = defs.get(ref.rpartition(_REF_MARK)[2]) if _REF_MARK in ref else None
        if target is not None:
            checks.append(_compile(target, defs))
    kind = schema.get("type")
    if kind is not None:
        kinds = [_TYPES.get(k) for k in ((kind,) if isinstance(kind, str) else kind)]
        if all(k is not None for k in kinds):
            typed = [k for k in kinds if k is not None]
            checks.append(typed[0] if len(typed) == 1 else lambda v: any(k(v) for k in typed))
    if "enum" in schema:
        allowed = schema["enum"]
        checks.append(lambda v: v is None or v in allowed)
    for keyword in ("oneOf", "anyOf"):
        if keyword in schema:
            checks.append(_any_of([_compile(option, defs) for option in schema[keyword]]))
    checks += [_compile(option, defs) for option in schema.get("allOf", ())]
    checks.append(_shape_check(schema, defs))
    return checks


def _shape_check(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Predicate:
    """What the walk checks by the value's own shape: object fields, array items, scalar bounds."""
    fields = _object_check(schema, defs)
    items = _array_check(schema, defs)
    bounds = _bounds_check(schema)

    def check(value: Any) -> bool:
        if isinstance(value, dict):
            return fields(value)
        if isinstance(value, list):
            return items(value)
        return bounds(value)

    return check


def _object_check(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Predicate:
    properties = {k: _compile(v, defs) for k, v in (schema.get("properties") or {}).items()}
    extra_schema = schema.get("additionalProperties")
    extra = _compile(extra_schema, defs) if isinstance(extra_schema, dict) else None
    closed = extra_schema is False
    required = tuple(schema.get("required", ()))

    def check(value: dict[Any, Any]) -> bool:
        for key in required:
            if value.get(key) is None:
                return False
        for key, item in value.items():
            known = properties.get(key)
            if known is not None:
                if not known(item):
                    return False
            elif closed or (extra is not None and not extra(item)):
                return False
        return True

    return check


def _array_check(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Predicate:
    low, high = schema.get("minItems"), schema.get("maxItems")
    items_schema = schema.get("items")
    items = _compile(items_schema, defs) if isinstance(items_schema, dict) else None

    def check(value: list[Any]) -> bool:
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            return False
        return items is None or all(items(item) for item in value)

    return check


def _bounds_check(schema: Mapping[str, Any]) -> Predicate:
    low, high = schema.get("minimum"), schema.get("maximum")
    shortest, longest = schema.get("minLength"), schema.get("maxLength")
    pattern = _pattern(schema["pattern"]) if schema.get("pattern") else None
    if low is None and high is None and shortest is None and longest is None and pattern is None:
        return lambda v: True

    def check(value: Any) -> bool:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return not ((low is not None and value < low) or (high is not None and value > high))
        if isinstance(value, str):
            if (longest is not None and len(value) > longest) or (
                shortest is not None and len(value) < shortest
            ):
                return False
            return pattern is None or bool(pattern.search(value))
        return True

    return check


@lru_cache(maxsize=256)
def _pattern(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None  # an ECMA pattern Python cannot read: not judged, as in the walk
