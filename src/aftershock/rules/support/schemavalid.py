"""Compiled validity predicates for the object schemas of `kubeschema`: `compiled_predicate(schema,
definitions)(value)` is True exactly when `kubeschema`'s walk finds no error in `value`.

The walk builds a path string and a generator per node, which is most of the rule pass's cost on
objects that are valid (nearly all of them). A predicate is compiled once per schema node (cached by
identity for as long as the schema lives: built-in schemas and their definitions are cached by
`kubeschema`) into nested closures that only answer yes or no; the walk then runs only on an
invalid object, to say where and why. Hand-written, as the validator is, for the same keywords and
the same readings (`oneOf` as `anyOf`, a null value outside an enum passes it, an unknown type
accepts anything, a `$ref` that names nothing is skipped).

For speed each node compiles to as few calls as it can: checks that accept anything (a node with
no keyword but a description, an object with no property list) are left out, a node that is only a
`$ref` is its target's predicate, and a node's type and its shape (fields, items, bounds) are one
closure that looks at the value's type once.
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


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def accept_all(v: Any) -> bool:
    """The predicate of a check that accepts anything: left out wherever it would be called."""
    return True


# The scalar types' predicates; "object" and "array" are decided by the shape (see `_typed_shape`).
_SCALAR_TYPES: dict[str, Predicate] = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
_PLAIN_TYPES: dict[str, type] = {"string": str, "boolean": bool, "null": type(None)}
_KNOWN_TYPES = frozenset(_SCALAR_TYPES) | {"object", "array"}

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
    predicate = _all_of([check for check in _node_checks(schema, defs) if check is not accept_all])
    cell.append(predicate)
    _CACHE[key] = (schema, defs, predicate)
    return predicate


def _all_of(checks: list[Predicate]) -> Predicate:
    if not checks:
        return accept_all
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)

    def every(value: Any) -> bool:
        for check in checks:  # noqa: SIM110 - a loop makes no generator per call
            if not check(value):
                return False
        return True

    return every


def _any_of(options: list[Predicate]) -> Predicate:
    if accept_all in options:
        return accept_all

    def some(value: Any) -> bool:
        for option in options:  # noqa: SIM110 - as above
            if option(value):
                return True
        return False

    return some


def _node_checks(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> list[Predicate]:
    checks: list[Predicate] = []
    ref = schema.get("$ref")
    if ref is not None:
        target = defs.get(ref.rpartition(_REF_MARK)[2]) if _REF_MARK in ref else None
        if target is not None:
            checks.append(_compile(target, defs))
    if "enum" in schema:
        allowed = schema["enum"]
        checks.append(lambda v: v is None or v in allowed)
    for keyword in ("oneOf", "anyOf"):
        if keyword in schema:
            checks.append(_any_of([_compile(option, defs) for option in schema[keyword]]))
    checks += [_compile(option, defs) for option in schema.get("allOf", ())]
    checks.append(_typed_shape(schema, defs))
    return checks


def _types(schema: Mapping[str, Any]) -> frozenset[str] | None:
    """The types a node allows, or None when it says none (or names one the walk does not know,
    which accepts anything)."""
    kind = schema.get("type")
    if kind is None:
        return None
    kinds = frozenset((kind,) if isinstance(kind, str) else kind)
    return kinds if kinds <= _KNOWN_TYPES else None


def _typed_shape(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Predicate:
    """The node's type and what the walk checks by the value's own shape (object fields, array
    items, scalar bounds), in one closure."""
    types = _types(schema)
    scalar = _all_of(
        [check for check in (_scalar_type(types), _bounds_check(schema)) if check is not accept_all]
    )
    if types is not None:
        # `scalar` then holds the type check, which refuses maps and lists: the usual node, typed
        # as one kind (and null), is one closure that falls back on it.
        if "object" not in types and "array" not in types:
            return scalar
        if "array" not in types:
            return _object_check(schema, defs, scalar)
        if "object" not in types:
            return _array_check(schema, defs, scalar)
    fields = _object_check(schema, defs, _refuse_all)
    items = _array_check(schema, defs, _refuse_all)
    if fields is accept_all and items is accept_all and scalar is accept_all:
        return accept_all

    def check(value: Any) -> bool:
        if isinstance(value, dict):
            return fields(value)
        if isinstance(value, list):
            return items(value)
        return scalar(value)

    return check


def _refuse_all(v: Any) -> bool:
    return False


def _scalar_type(types: frozenset[str] | None) -> Predicate:
    """Whether a value has one of the scalar ones of `types` (None: any type); maps and lists never
    have one."""
    if types is None:
        return accept_all
    scalars = types - {"object", "array"}
    plain = tuple(_PLAIN_TYPES[t] for t in sorted(scalars) if t in _PLAIN_TYPES)
    numeric = [_SCALAR_TYPES[t] for t in sorted(scalars) if t not in _PLAIN_TYPES]
    if not numeric:
        return lambda v: isinstance(v, plain)
    number = numeric[0] if len(numeric) == 1 or "number" not in scalars else _is_number
    return lambda v: isinstance(v, plain) or number(v)


def _object_check(
    schema: Mapping[str, Any], defs: Mapping[str, Any], otherwise: Predicate
) -> Predicate:
    """A map's fields checked, any other value by `otherwise` (accept_all: on maps only, when the
    fields accept anything)."""
    properties = {k: _compile(v, defs) for k, v in (schema.get("properties") or {}).items()}
    extra_schema = schema.get("additionalProperties")
    extra = _compile(extra_schema, defs) if isinstance(extra_schema, dict) else accept_all
    closed = extra_schema is False
    required = tuple(schema.get("required", ()))
    if (
        not closed
        and not required
        and extra is accept_all
        and all(p is accept_all for p in properties.values())
    ):
        if otherwise is _refuse_all:
            return accept_all  # the caller dispatches maps only here
        return lambda v: isinstance(v, dict) or otherwise(v)

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return otherwise(value)
        for key in required:
            if value.get(key) is None:
                return False
        for key, item in value.items():
            known = properties.get(key)
            if known is None:
                if closed or not extra(item):
                    return False
            elif known is not accept_all and not known(item):
                return False
        return True

    return check


def _array_check(
    schema: Mapping[str, Any], defs: Mapping[str, Any], otherwise: Predicate
) -> Predicate:
    """A list's length and items checked, any other value by `otherwise` (as `_object_check`)."""
    low, high = schema.get("minItems"), schema.get("maxItems")
    items_schema = schema.get("items")
    items = _compile(items_schema, defs) if isinstance(items_schema, dict) else accept_all
    if low is None and high is None and items is accept_all:
        if otherwise is _refuse_all:
            return accept_all
        return lambda v: isinstance(v, list) or otherwise(v)

    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return otherwise(value)
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            return False
        for item in value:  # noqa: SIM110 - a loop makes no generator per call
            if not items(item):
                return False
        return True

    return check


def _bounds_check(schema: Mapping[str, Any]) -> Predicate:
    low, high = schema.get("minimum"), schema.get("maximum")
    shortest, longest = schema.get("minLength"), schema.get("maxLength")
    pattern = _pattern(schema["pattern"]) if schema.get("pattern") else None
    if low is None and high is None and shortest is None and longest is None and pattern is None:
        return accept_all

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
