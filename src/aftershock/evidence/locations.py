"""Concrete locations inside a rendered body, for diff paths and for helm-unittest paths alike.

A location is a tuple of map keys (their text) and list positions, e.g.
`("spec", "template", "spec", "containers", 0, "image")`. Both kinds of path resolve to it:
- a diff field path (`containers[name=app]`, `[0]`, `["a/b"]`) by walking it on the body;
- a helm-unittest path (`containers[0]`, `labels["x"]`, `containers[?(@.name == "app")]`,
  wildcards, recursive descent) by evaluating it with the runner's own yaml-jsonpath on a view
  of the body whose every node is a distinct object, then looking each selected node up.

The view keeps helm-unittest's semantics: it is the body after yaml.v3's round trip (as the runner
evaluates paths), strings and numbers are wrapped in subclasses of their type (filters and
comparisons see the same values). Booleans and nulls cannot be subclassed: when a path selects one,
the path is evaluated once more with those leaves made opaque, and the position is taken from that
run when it selects as many nodes (else the node stays unresolved).
"""

from __future__ import annotations

from typing import Any

from aftershock.diff.fields import entry_matches
from aftershock.diff.paths import (
    IndexSegment,
    KeySegment,
    MatchSegment,
    Segment,
    format_path,
    key_text,
    parse_path,
)
from aftershock.diff.values import is_list, is_map, thaw
from aftershock.gocompat.gofmt import after_yaml_roundtrip
from aftershock.gocompat.jsonpath import KeyNode, PathError, find
from aftershock.model.errors import ConfigError
from aftershock.model.tests import Coverage

Location = tuple[str | int, ...]


def location_text(location: Location) -> str:
    """The diff path syntax of a location, positions as `[i]`; "" for the whole document."""
    return format_path([IndexSegment(p) if isinstance(p, int) else KeySegment(p) for p in location])


def coverage(assertion: Location, field: Location) -> Coverage | None:
    """How an assertion location covers a field location: exact, enclosing (a prefix), partial, or not."""
    if assertion == field:
        return Coverage.EXACT
    if field[: len(assertion)] == assertion:
        return Coverage.ENCLOSING
    if assertion[: len(field)] == field:
        return Coverage.PARTIAL
    return None


def value_at(body: Any, location: Location) -> tuple[bool, Any]:
    """(found, value) at a location of a body."""
    node = body
    for part in location:
        if isinstance(part, int):
            if not is_list(node) or part >= len(node):
                return False, None
            node = node[part]
        else:
            if not is_map(node):
                return False, None
            matches = [value for key, value in node.items() if key_text(key) == part]
            if not matches:
                return False, None
            node = matches[0]
    return True, node


def comparable(body: Any) -> Any:
    """The body as helm-unittest compares it: plain dicts and lists, after yaml.v3's round trip."""
    return after_yaml_roundtrip(thaw(body))


# --- diff field paths ---------------------------------------------------------------------------


def field_location(body: Any, path: str) -> Location | None:
    """Walk a diff field path on a body; None when a step is missing (or the path is not one)."""
    try:
        segments = parse_path(path) if path else ()
    except ConfigError:
        return None
    node, location = body, []
    for segment in segments:
        step = _step(node, segment)
        if step is None:
            return None
        part, node = step
        location.append(part)
    return tuple(location)


def _step(node: Any, segment: Segment) -> tuple[str | int, Any] | None:
    if isinstance(segment, KeySegment) and is_map(node):
        for key, value in node.items():
            if key_text(key) == segment.key:
                return segment.key, value
    elif isinstance(segment, IndexSegment) and is_list(node) and segment.index < len(node):
        return segment.index, node[segment.index]
    elif isinstance(segment, MatchSegment) and is_list(node):
        for index, entry in enumerate(node):
            if entry_matches(entry, segment):
                return index, entry
    return None


# --- helm-unittest paths ------------------------------------------------------------------------


class _Str(str):
    __slots__ = ()


class _Int(int):
    __slots__ = ()


class _Float(float):
    __slots__ = ()


class _Opaque:
    """A boolean or null leaf made distinct (second evaluation only)."""

    __slots__ = ()


_WRAPPERS: dict[type, type] = {str: _Str, int: _Int, float: _Float}


def _view(
    value: Any, location: Location, where: dict[int, Location], opaque: bool, keep: list[Any]
) -> Any:
    """A copy of `value` whose nodes are distinct objects, each recorded in `where` by id.

    `keep` holds every created node so no id is reused while the view is in use.
    """
    if isinstance(value, dict):
        node: Any = {
            key: _view(item, (*location, key_text(key)), where, opaque, keep)
            for key, item in value.items()
        }
    elif isinstance(value, list):
        node = [
            _view(item, (*location, index), where, opaque, keep) for index, item in enumerate(value)
        ]
    elif type(value) in _WRAPPERS:
        node = _WRAPPERS[type(value)](value)
    elif opaque and (value is None or isinstance(value, bool)):
        node = _Opaque()
    else:
        return value  # bool/None on the first evaluation: located by the second one
    where[id(node)] = location
    keep.append(node)
    return node


def assertion_locations(body: Any, path: str | None) -> tuple[Location, ...] | None:
    """The concrete locations a helm-unittest path selects in a body, in selection order.

    "" or None is the whole document. None when the path does not parse. A selected mapping key
    (`~`) or a node that cannot be told apart is left out.
    """
    if not path:
        return ((),)
    roundtripped = comparable(body)
    where: dict[int, Location] = {}
    keep: list[Any] = []
    try:
        nodes = find(path, _view(roundtripped, (), where, False, keep))
    except PathError:
        return None
    found: list[Location | None] = [
        None if isinstance(n, KeyNode) else where.get(id(n)) for n in nodes
    ]
    if any(loc is None and not isinstance(n, KeyNode) for loc, n in zip(found, nodes)):
        found = _second_pass(roundtripped, path, found)
    return tuple(dict.fromkeys(loc for loc in found if loc is not None))


def _second_pass(
    roundtripped: Any, path: str, found: list[Location | None]
) -> list[Location | None]:
    where: dict[int, Location] = {}
    keep: list[Any] = []
    nodes = find(path, _view(roundtripped, (), where, True, keep))
    if len(nodes) != len(found):
        return found
    return [loc if loc is not None else where.get(id(node)) for loc, node in zip(found, nodes)]
