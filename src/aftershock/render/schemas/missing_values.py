"""The values keys a failed render says are missing, read from Helm's and Go template's error text.

Shapes read: a `required`/`fail` message naming `.Values.a.b` or a dotted `global.a`; Go template's
`at <.Values.a.b>: nil pointer evaluating interface {}.b` and `map has no entry for key`; `at <index
.Values.a "b">: error calling index`; a template that renders invalid YAML (an empty value the
platform injects leaves `name: a:b:`), whose every `.Values` read is a candidate. A key read in a
subchart's template (`chart/charts/sub/...`) is under the subchart's name in the chart's values
(`sub.a.b`), except `global.`; a message's own text may already name the parent's key, so both are
tried. Given the failing template's text, the keys its `required` calls read (`required "m" .Values.a`
or `.Values.a | required "m"`; the one at the error's `line:column` first) stand for the message's,
which may misspell them; a function given nothing where it wants a text (`.Values.a | b64enc`, Go
naming only `b64enc`) reads the key piped into it there. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Key = tuple[str, ...]

MAX_NEEDS = 8  # keys taken from one error

_LOCATION = re.compile(r"(?:error at \(|template: |executing \")([\w.-]+(?:/charts/[\w.-]+)*)/")
_EXPRESSION = re.compile(r"at <([^<>]*)>:\s")  # Helm 4 breaks its lines there
_VALUES_PATH = re.compile(r"\$?\.Values((?:\.[A-Za-z_][\w-]*)+)")
_INDEX = re.compile(r"index \$?\.Values((?:\.[A-Za-z_][\w-]*)*)((?: \"[^\"]+\")+)")
_QUOTED = re.compile(r"\"([^\"]+)\"")
_DOTTED = re.compile(r"(?<![\w./:-])([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+)(?![\w/:-]|\.\w)")
_POSITION = re.compile(
    r"error at \(([\w.-]+(?:/charts/[^/\s:()]+)*/templates/[^\s:()]+):(\d+):(\d+)\)"
)
# Go template's own error: `template: c/templates/x.yaml:22:65: executing "…"` (Helm 4: `c/…:22:65\n  executing`)
_EXECUTING = re.compile(
    r"([\w.-]+(?:/charts/[^/\s:()]+)*/templates/[^\s:()]+):(\d+):(\d+):?\s+executing "
)
# a function given nothing where it wants a text: `.Values.a | b64enc` with `a` unset
_NOTHING_PIPED = re.compile(r"at <([A-Za-z_]\w*)>:\s+invalid value; expected string")
# `.Values.a |`: a value piped into what follows
_VALUES_PIPE = r"\$?\.Values((?:\.[A-Za-z_][\w-]*)+)\s*\|\s*"
_PIPED_VALUE = re.compile(_VALUES_PIPE + "$")
# `required "message" <the value it requires>`: the argument after the message (a "..." or `...` text)
_REQUIRED_ARGUMENT = re.compile(
    r"required\s+(?:\"(?:[^\"\\]|\\.)*\"|`[^`]*`)\s+\(?\s*\$?[\w]*\.Values((?:\.[A-Za-z_][\w-]*)+)"
)
# `<the value> | required "message"`: the value piped into it
_REQUIRED_PIPED = re.compile(_VALUES_PIPE + r"(required)\b")
# The parse error of a rendered template: `rendered template is not valid YAML: ... (c/templates/x.yaml:9)`
_INVALID_YAML = re.compile(
    r"rendered template is not valid YAML: .*?"
    r"\(([\w.-]+(?:/charts/[^/\s:()]+)*/templates/[^\s:()]+):\d+\)",
    re.S,
)
_LOCATIONS = re.compile(r"\([^()\s]+:\d+:\d+\)|[^\s:]+\.(?:yaml|yml|tpl|txt|json):\d+(?::\d+)?")


@dataclass(frozen=True)
class Need:
    """One missing value: the keys it may be under in the chart's values, most likely first.

    `nil_parent` says the error is about the map above the last key (the template read a key of a map
    that is missing), so the map itself is what to look for when the key is set nowhere. `stated`
    says a message (`required`, `fail`) names it: a text the template wants, not a map it walks."""

    keys: tuple[Key, ...]
    nil_parent: bool = False
    stated: bool = False


def missing_values(error: str) -> list[Need]:
    """The values keys `error` says a template needed and did not get, in the order it names them."""
    scope = _scope(error)
    needs: list[Need] = []
    expression = _EXPRESSION.search(error)
    message = error
    if expression:
        # Go template's own error: the expression is the template's, so in the template's scope.
        key = _expression_key(expression.group(1))
        if key:
            nil = "nil pointer evaluating" in error or "index of untyped nil" in error
            needs.append(Need((_scoped(key, scope),), nil))
        message = error[: expression.start()] + error[expression.end() :]
    message = _LOCATIONS.sub(" ", message)
    for match in _VALUES_PATH.finditer(message):
        needs.append(_message_need(_split(match.group(1)), scope))
    rest = _VALUES_PATH.sub(" ", message)
    for match in _DOTTED.finditer(rest):
        needs.append(_message_need(tuple(match.group(1).split(".")), scope))
    return list(dict.fromkeys(needs))[:MAX_NEEDS]


def error_position(error: str) -> tuple[str, int, int] | None:
    """The template (Helm name), line and column an `execution error at (...)`, or Go template's
    `executing` error, names."""
    match = _POSITION.search(error) or _EXECUTING.search(error)
    return (match.group(1), int(match.group(2)), int(match.group(3))) if match else None


def piped_need(error: str, source: str) -> Need | None:
    """The key piped into a function that wants a text and got nothing: Go names only the function
    (`at <b64enc>: invalid value; expected string`), the template's line at the error's position
    says what was piped into it (`.Values.global.password | b64enc`), a text the platform injects."""
    function, position = _NOTHING_PIPED.search(error), error_position(error)
    if function is None or position is None:
        return None
    _, line, column = position
    lines = source.splitlines()
    if not 0 < line <= len(lines):
        return None
    at = lines[line - 1].find(function.group(1), max(column - 3, 0))
    piped = _PIPED_VALUE.search(lines[line - 1][:at]) if at >= 0 else None
    if piped is None:
        return None
    return Need((_scoped(_split(piped.group(1)), _scope(error)),), stated=True)


def required_need(error: str, source: str) -> Need | None:
    """The key a `required` call at the error's position reads, from the template's own text: what the
    template reads, which its message may misspell. None when the position holds no such call."""
    position = error_position(error)
    if position is None:
        return None
    _, line, column = position
    lines = source.splitlines()
    if not 0 < line <= len(lines):
        return None
    # Go counts the column from 0 or 1 depending on the error's path: a call starting by it
    text = lines[line - 1]
    match = _REQUIRED_ARGUMENT.search(text, max(column - 2, 0))
    if match is None or match.start() > column + 1:
        # or the value piped into it: `.Values.a | required "..."`, the keyword at the column
        match = next(
            (m for m in _REQUIRED_PIPED.finditer(text) if column - 2 <= m.start(2) <= column + 1),
            None,
        )
    if match is None:
        return None
    return Need((_scoped(_split(match.group(1)), _scope(error)),), stated=True)


def required_needs(error: str, source: str) -> list[Need]:
    """Every key the failing template's `required` calls read, the one at the error's position first:
    a template that requires several values the platform injects says so one render at a time."""
    scope = _scope(error)
    at = required_need(error, source)
    calls = sorted(
        (*_REQUIRED_ARGUMENT.finditer(source), *_REQUIRED_PIPED.finditer(source)),
        key=lambda m: m.start(),
    )
    every = [Need((_scoped(_split(m.group(1)), scope),), stated=True) for m in calls]
    return list(dict.fromkeys([at, *every] if at else every))[:MAX_NEEDS]


def invalid_yaml_template(error: str) -> str | None:
    """The template (Helm name) whose rendered text an error says is not valid YAML."""
    match = _INVALID_YAML.search(error)
    return match.group(1) if match else None


def read_needs(template: str, source: str) -> list[Need]:
    """Every `.Values` key the template's text reads, in order, in its chart's scope: candidates for a
    template whose output an unset value broke (only those a repository's file sets are taken)."""
    scope = template_scope(template)
    keys = [_scoped(_split(m.group(1)), scope) for m in _VALUES_PATH.finditer(source)]
    return [Need((key,)) for key in dict.fromkeys(keys)][:MAX_NEEDS]


def template_scope(template: str) -> Key:
    """The subchart holding a template (Helm name), as the keys its values are under in the chart's
    (`a/charts/b/templates/x.yaml` -> ("b",))."""
    return _chart_scope(template.split("/templates/", 1)[0])


def _scope(error: str) -> Key:
    """The subchart whose template failed, as the keys its values are under (`a/charts/b` -> ("b",))."""
    match = _LOCATION.search(error)
    return _chart_scope(match.group(1)) if match else ()


def _chart_scope(chart: str) -> Key:
    return tuple(chart.split("/charts/")[1:])


def _expression_key(expression: str) -> Key:
    index = _INDEX.search(expression)
    if index:
        return _split(index.group(1)) + tuple(_QUOTED.findall(index.group(2)))
    path = _VALUES_PATH.search(expression)
    return _split(path.group(1)) if path else ()


def _split(dotted: str) -> Key:
    return tuple(p for p in dotted.split(".") if p)


def _scoped(key: Key, scope: Key) -> Key:
    return key if key[0] == "global" else scope + key


def _message_need(key: Key, scope: Key) -> Need:
    """A message's own text: in the template's scope, or already the chart's key."""
    keys = dict.fromkeys([_scoped(key, scope), key])
    return Need(tuple(keys), stated=True)
