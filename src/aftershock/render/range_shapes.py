"""Values that open a template's `range` over `.Values…`, shaped as its body reads each entry, and
the guards inside a `with .Values.x` on fields of `x`.

`{{- range .Values.extraPorts }} - name: {{ .name }} port: {{ .port }}{{- end }}` runs its body only
for a non-empty list (or map), and reads `name` and `port` of each entry: a scenario opening it sets
one entry holding those fields, so the body's lines run as a user's values would run them. A guard
inside the body on an entry's field (`{{- if .strictTLSOptions }}` in `range $name, $cfg :=
.Values.ports`, or a `with` of it) is opened on the first entry the defaults hold. Fields read inside a nested `with`
or `range` belong to another object and are left out. Fields a body tests (`if .tls`) take `true`;
the others the text "aftershock". Inside `{{- with .Values.core }}`, `{{- if .strictTLSOptions }}`
reads `core.strictTLSOptions`: a field the defaults document and leave empty opens with a value of
its type.

Hand-written: the body is the template's actions between the `range` and its `end`, counted as Go's
parser nests blocks; only the shape of the reads matters here, not their evaluation.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

_ACTION = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}", re.DOTALL)
_RANGE = re.compile(
    r"^(range|with)\s+(?:(\$\w+)\s*(?:,\s*(\$\w+))?\s*:=\s*)?\(?\$?\.Values((?:\.[A-Za-z_]\w*)+)\)?\s*$"
)
_OPENS = ("if", "with", "range", "define", "block")
_REBINDS = ("with", "range")
_DOT_FIELD = re.compile(r"(?<![\w$)\].])\.([A-Za-z_]\w*)")
_CONDITION = re.compile(r"^(?:if|else\s+if)\b(.*)$", re.DOTALL)  # `with` binds a value: text
_TEXT = "aftershock"


class RangeBody(NamedTuple):
    """A `range` over a values path, and the entry fields its body reads: those an `if` tests and
    those an `if` or a `with` guards apart."""

    path: str
    read: tuple[str, ...]
    tested: tuple[str, ...]
    guarded: tuple[str, ...] = ()
    keyword: str = "range"  # or `with`: the body reads one map, not entries


def range_bodies(text: str) -> Iterator[RangeBody]:
    """Each `range` over `.Values…` in `text`, with the fields of an entry its body reads."""
    actions = [a for a in _ACTION.findall(text) if not a.startswith("/*")]
    for index, action in enumerate(actions):
        match = _RANGE.match(action)
        if match:
            # `range $v := …` and `range $k, $v := …` name the entry; `.` is the entry too
            read, tested, guarded = _reads(actions[index + 1 :], match.group(3) or match.group(2))
            yield RangeBody(
                match.group(4)[1:], tuple(read), tuple(tested), tuple(guarded), match.group(1)
            )


def _reads(
    body: list[str], variable: str | None
) -> tuple[dict[str, None], dict[str, None], dict[str, None]]:
    """The entry fields read, those an `if` tests, and those an `if` or `with` guards, before the
    `end` closing the range."""
    read: dict[str, None] = {}
    tested: dict[str, None] = {}
    guarded: dict[str, None] = {}
    stack: list[str] = []
    for action in body:
        word = action.split(None, 1)[0] if action.split() else ""
        rebound = any(w in _REBINDS for w in stack)  # `.` is another object in there
        read.update(dict.fromkeys(_fields(action, variable, rebound)))
        condition = _CONDITION.match(action)
        if condition:
            tested.update(dict.fromkeys(_fields(condition.group(1), variable, rebound)))
        if word in ("if", "with", "else"):
            guarded.update(dict.fromkeys(_fields(action, variable, rebound)))
        if word in _OPENS:
            stack.append(word)
        elif word == "end":
            if not stack:
                break
            stack.pop()
    return read, tested, guarded


def _fields(action: str, variable: str | None, rebound: bool) -> list[str]:
    found = []
    if variable is not None:
        found += re.findall(rf"{re.escape(variable)}\.([A-Za-z_]\w*)", action)
    if not rebound:
        found += [f for f in _DOT_FIELD.findall(action) if f != "Values"]
    return found


def range_openings(
    bodies: list[RangeBody], defaults: Mapping[str, Any], value_at: Any
) -> list[tuple[str, Any]]:
    """(values path, value) pairs that open each range or a guard inside its body; `value_at(values,
    segments, missing)` reads a path of the defaults."""
    found: list[tuple[str, Any]] = []
    absent = object()
    for body in bodies:
        default = value_at(defaults, body.path.split("."), absent)
        if default is absent:
            continue  # a key the chart does not document is no option a user is offered
        entry = {f: (True if f in body.tested else _TEXT) for f in body.read}
        if body.keyword == "with":
            found += _fields_opened(body, default)
        elif not default:
            shaped = entry or _TEXT
            found.append((body.path, {_TEXT: shaped} if isinstance(default, dict) else [shaped]))
        else:
            found += _guards_in(body, default)
    return found


def _guards_in(body: RangeBody, default: Any) -> list[tuple[str, Any]]:
    """Open the body's tests (and `with`s) of an entry's field on the first entry the defaults hold."""
    if isinstance(default, dict):
        key, first = next(iter(default.items()))
        if isinstance(first, dict):
            return [
                (f"{body.path}.{key}.{field}", _opening(field, body))
                for field in body.read
                if not first.get(field) and field in body.guarded
            ]
    if isinstance(default, list) and isinstance(default[0], dict):
        closed = {f: _opening(f, body) for f in body.guarded if not default[0].get(f)}
        if closed:
            return [(body.path, [{**default[0], **closed}, *default[1:]])]
    return []


def _fields_opened(body: RangeBody, default: Any) -> list[tuple[str, Any]]:
    """A `with .Values.x` over a map the defaults hold: each guard inside on a field of it the
    defaults document and leave closed, opened with a value of the same type."""
    if not isinstance(default, dict):
        return []
    opened = []
    for field in body.guarded:
        value = default.get(field, None)
        if field in default and not value:
            shaped = opened_value(value)
            if shaped is not None:
                opened.append((f"{body.path}.{field}", shaped))
    return opened


_OPENED_BY_TYPE: dict[type, Any] = {
    bool: True,
    str: _TEXT,
    int: 1,
    dict: {_TEXT: _TEXT},
    list: [_TEXT],
}


def opened_value(empty: Any) -> Any:
    """A value of the type of `empty` (a default a guard finds closed) that opens the guard: true,
    a text, 1, a one-entry map or list, each a copy of its own; None for another type."""
    return copy.deepcopy(_OPENED_BY_TYPE.get(type(empty)))


def _opening(field: str, body: RangeBody) -> Any:
    return True if field in body.tested else _TEXT
