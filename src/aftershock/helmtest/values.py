"""The values a helm-unittest test renders with: `set` paths, merge order and subchart scoping.

helm-unittest does not parse `set` with Helm's strvals: a key is a path (`a.b`, `a[0].b`,
`a.[key.with.dots]`) and the value is the YAML value as written, so `set: {replicas: 2}` is the
int 2 and lists or maps can be set whole. Values are merged as helm-unittest's getUserValues does,
each later source winning: suite values files, test values files, suite `set`, test `set`
(chart defaults are applied by Helm underneath all of them). For a suite in a subchart the values
are nested under the subchart's name, with `global` copied to the top.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any


class SetPathError(ValueError):
    """A `set` key helm-unittest cannot parse; the message is helm-unittest's."""


_STOP = frozenset(".[],{}=")
_ILLEGAL = frozenset(",{}=")


def _read_until_stop(path: str, position: int) -> tuple[str, str, int]:
    """runesUntil: the text up to the next stop character, that character ("" at the end)."""
    end = position
    while end < len(path) and path[end] not in _STOP:
        end += 1
    stop = path[end] if end < len(path) else ""
    return path[position:end], stop, end + 1


def parse_set_path(path: str) -> list[str | int]:
    """The keys and list indexes of a `set` path, as helm-unittest's traverseSetPath reads it."""
    if path == "":
        raise SetPathError("set path is empty")
    cursors: list[str | int] = []
    state, position, escaped_key = "key", 0, ""
    while True:
        text, stop, position = _read_until_stop(path, position)
        if stop in _ILLEGAL:
            raise SetPathError(f"invalid token found {stop}")
        if stop == "":  # end of the path
            if text and state == "key":
                cursors.append(text)
                return cursors
            if not text and state == "denotation":
                return cursors
            raise SetPathError("unexpected end of")
        state, escaped_key = _step(state, text, stop, cursors, escaped_key)


def _step(
    state: str, text: str, stop: str, cursors: list[str | int], escaped_key: str
) -> tuple[str, str]:
    if state == "index":
        if stop != "]":
            raise SetPathError("missing index value")
        try:
            cursors.append(_go_atoi(text))
        except ValueError:
            raise SetPathError(f'strconv.Atoi: parsing "{text}": invalid syntax') from None
        return "denotation", escaped_key
    if state == "denotation":
        if stop == ".":
            return "key", escaped_key
        if stop == "[":
            return "index", escaped_key
        raise SetPathError(f"invalid denotation token {stop}")
    if state == "escaping":
        if stop == ".":
            return "escaping", escaped_key + text + "."
        if stop == "]":
            cursors.append(escaped_key + text)
            return "denotation", ""
        raise SetPathError(f"invalid escaping token {stop}")
    if stop == ".":
        cursors.append(text)
        return "key", escaped_key
    if stop == "[":
        if not text:
            return "escaping", ""
        cursors.append(text)
        return "index", escaped_key
    raise SetPathError(f"invalid key {stop}")


def _go_atoi(text: str) -> int:
    stripped = text[1:] if text[:1] in "+-" else text
    if not stripped.isdigit() or not stripped.isascii():
        raise ValueError(text)
    return int(text)


def value_of_set_path(path: str, value: Any) -> dict[str, Any]:
    """BuildValueOfSetPath: the nested map that sets `value` at `path`.

    An index makes a list long enough for it, with nulls before: `a[1]: x` is `{a: [null, x]}`.
    """
    cursors = parse_set_path(path)
    built: dict[str, Any] = {}
    current: Any = built
    for depth, cursor in enumerate(cursors):
        if depth == len(cursors) - 1:
            following: Any = copy.deepcopy(value)
        elif isinstance(cursors[depth + 1], int):
            following = [None] * (int(cursors[depth + 1]) + 1)
        else:
            following = {}
        if isinstance(cursor, str):
            current[cursor] = following
        else:
            current[cursor] = following
        current = following
    return built


def merge_tables(winner: dict[str, Any], loser: dict[str, Any]) -> dict[str, Any]:
    """Helm's chartutil.MergeTables(winner, loser): winner's values kept, tables merged deeply."""
    merged = dict(winner)
    for key, value in loser.items():
        if key not in merged:
            merged[key] = value
        elif isinstance(value, dict) and isinstance(merged[key], dict):
            merged[key] = merge_tables(merged[key], value)
    return merged


def scope_to_route(route: list[str], values: dict[str, Any]) -> dict[str, Any]:
    """scopeValuesWithRoutes: nest values under each subchart name, `global` copied upward."""
    while len(route) > 1:
        scoped: dict[str, Any] = {}
        if "global" in values:
            scoped["global"] = values["global"]
        scoped[route[-1]] = values
        values, route = scoped, route[:-1]
    return values


def chart_route_parts(chart_route: str) -> list[str]:
    """spliteChartRoutes: `parent/charts/child` -> [parent, child]."""
    parts = chart_route.split("/")
    return [parts[index * 2] for index in range(len(parts) // 2 + 1)]


def user_values(
    values_files: Iterable[dict[str, Any]],
    suite_set: dict[str, Any],
    test_set: dict[str, Any],
    chart_route: str,
) -> dict[str, Any]:
    """getUserValues: every source merged, later ones winning, each scoped to the chart route.

    Raises SetPathError for a `set` key that cannot be parsed.
    """
    route = chart_route_parts(chart_route)
    merged: dict[str, Any] = {}
    for document in values_files:
        merged = merge_tables(scope_to_route(route, document), merged)
    for settings in (suite_set, test_set):
        for path, value in settings.items():
            merged = merge_tables(scope_to_route(route, value_of_set_path(path, value)), merged)
    return merged
