"""Where a Helm template merges values with overrides, and which default lists such a merge replaces.

Sprig's `merge`/`mustMerge` keep the first argument's values and `mergeOverwrite`/
`mustMergeOverwrite` let later arguments win; both merge maps key by key but replace a list as a
whole, so a partial override of a default list drops the default entries it does not repeat. This
module reads template text only (with `gotemplate`), never evaluates it: an argument is followed
through `deepCopy`, `default`, `index`/`get`, parentheses and `$var := ...`/`range` variables to a
values path, or to a named template whose YAML output is decoded (`include "app.defaults" . |
fromYaml`: the pattern `@app.defaults`); anything else (a `dict` literal) is left out.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aftershock.diff.fields import identity_field
from aftershock.provenance.gotemplate import (
    Action,
    Command,
    Field,
    Ident,
    Operand,
    Paren,
    Pipeline,
    Str,
    Var,
    actions,
)

# Whether later arguments win over earlier ones.
MERGE_FUNCTIONS = {
    "mergeOverwrite": True,
    "mustMergeOverwrite": True,
    "merge": False,
    "mustMerge": False,
}
_PASSTHROUGH = frozenset({"deepCopy", "mustDeepCopy"})
_INCLUDES = frozenset({"include", "template"})
_DECODERS = frozenset({"fromYaml", "fromJson", "mustFromJson"})
DEFINE = (
    "@"  # a pattern's first key naming a define whose YAML output is the defaults: "@app.defaults"
)
_ACTION = re.compile(r"\{\{.*?\}\}", re.S)
_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
ANY = "*"  # a key chosen by an expression that cannot be followed

Pattern = tuple[
    str, ...
]  # values keys; "$name" for a key a template variable chooses, ANY for any key


@dataclass(frozen=True)
class MergeCall:
    """One pair of a merge call's arguments: `overrides` wins over `defaults`."""

    line: int
    function: str
    defaults: Pattern
    overrides: Pattern


@functools.lru_cache(maxsize=4096)
def merge_calls(text: str) -> tuple[MergeCall, ...]:
    """Every (defaults, overrides) pair of values paths the merge calls of a template combine."""
    variables: dict[str, Pattern] = {}
    found: list[MergeCall] = []
    for match in _ACTION.finditer(text):
        for action in actions(match.group(0)):
            pipeline = action.pipeline
            if pipeline is None:
                continue
            for function, args in _merges(pipeline, variables):
                line = (
                    text.count("\n", 0, match.start() + max(match.group(0).find(function), 0)) + 1
                )
                found.extend(_pairs(line, function, args))
            _declare(action, pipeline, variables)
    return tuple(dict.fromkeys(found))


def override_path(call: MergeCall, values_path: Sequence[str]) -> Pattern | None:
    """Where an override of the default at `values_path` goes, or None when the merge does not take
    that path as defaults (or the override side cannot be named)."""
    defaults = call.defaults
    if len(values_path) <= len(defaults):
        return None
    bindings: dict[str, str] = {}
    for segment, key in zip(defaults, values_path):
        if segment.startswith("$"):
            if bindings.setdefault(segment, key) != key:
                return None
        elif segment not in (ANY, key):
            return None
    out: list[str] = []
    for segment in call.overrides:
        if segment == ANY or (segment.startswith("$") and segment not in bindings):
            return None
        out.append(bindings.get(segment, segment))
    path = tuple(out) + tuple(values_path[len(defaults) :])
    return None if path == tuple(values_path) else path


def default_lists(
    values: Mapping[str, Any], prefix: Pattern = ()
) -> Iterator[tuple[Pattern, list[Any]]]:
    """Every non-empty list of a values document under plain keys, with its path."""
    for key, value in values.items():
        if not isinstance(key, str) or not _SIMPLE_KEY.fullmatch(key):
            continue
        path = (*prefix, key)
        if isinstance(value, dict):
            yield from default_lists(value, path)
        elif isinstance(value, list) and value:
            yield path, value


def probe_entry(entries: Sequence[Any], name: str) -> tuple[Any, str | None] | None:
    """The one new entry of a partial override of `entries`, and the key that identifies entries
    (None for a list of strings); None when entries have no identity to tell them apart."""
    if all(isinstance(entry, str) for entry in entries):
        return name, None
    key = identity_field(entries)
    return ({key: name}, key) if key is not None else None


def pattern_text(pattern: Pattern) -> str:
    return ".".join(pattern) if pattern else "(all values)"


def _merges(
    pipeline: Pipeline, variables: Mapping[str, Pattern]
) -> Iterator[tuple[str, list[Pattern | None]]]:
    """(function, resolved arguments) of every merge call in a pipeline, nested ones included."""
    piped: Pattern | None = None
    for index, command in enumerate(pipeline.commands):
        for operand in command:
            if isinstance(operand, Paren):
                yield from _merges(operand.pipeline, variables)
        head = command[0] if command else None
        if isinstance(head, Ident) and head.name in MERGE_FUNCTIONS:
            args = [_resolve(op, variables) for op in command[1:]]
            yield head.name, args + ([piped] if index else [])
        piped = _command(command, piped if index else None, variables)


def _pairs(line: int, function: str, args: list[Pattern | None]) -> Iterator[MergeCall]:
    later_wins = MERGE_FUNCTIONS[function]
    for i, first in enumerate(args):
        for second in args[i + 1 :]:
            low, high = (first, second) if later_wins else (second, first)
            if low is not None and high is not None and low != high:
                yield MergeCall(line, function, low, high)


def _declare(action: Action, pipeline: Pipeline, variables: dict[str, Pattern]) -> None:
    """Follow `$x := <values path>` and `range $k, $v := <values path>` for later actions of the file."""
    names = pipeline.declares
    if not names:
        return
    value = _pipeline(pipeline, variables)
    if action.kind == "range":
        value = None if value is None else (*value, f"${names[0]}" if len(names) == 2 else ANY)
        names = names[-1:]
    for name in names:
        if value is None:
            variables.pop(name, None)
        else:
            variables[name] = value


def _pipeline(pipeline: Pipeline, variables: Mapping[str, Pattern]) -> Pattern | None:
    value: Pattern | None = None
    for index, command in enumerate(pipeline.commands):
        value = _command(command, value if index else None, variables)
        if value is None:
            return None
    return value


def _command(
    command: Command, piped: Pattern | None, variables: Mapping[str, Pattern]
) -> Pattern | None:
    """The values path a command yields: an operand, or deepCopy/default/index/get of one."""
    if not command:
        return None
    head, args = command[0], command[1:]
    if not isinstance(head, Ident):
        return _resolve(head, variables) if len(command) == 1 and piped is None else None
    if head.name in _PASSTHROUGH:
        return (
            piped
            if piped is not None
            else (_resolve(args[0], variables) if len(args) == 1 else None)
        )
    if head.name == "default":
        return (
            piped
            if piped is not None
            else (_resolve(args[-1], variables) if len(args) == 2 else None)
        )
    if head.name in _INCLUDES and args and isinstance(args[0], Str) and piped is None:
        return (
            f"{DEFINE}{args[0].value}",
        )  # defaults a named template builds (`include … | fromYaml`)
    if head.name in _DECODERS:
        return (
            piped
            if piped is not None
            else (_resolve(args[0], variables) if len(args) == 1 else None)
        )
    if head.name in ("index", "get") and args and piped is None:
        base = _resolve(args[0], variables)
        return None if base is None else (*base, *(_key(op) for op in args[1:]))
    return None


def _resolve(operand: Operand, variables: Mapping[str, Pattern]) -> Pattern | None:
    if isinstance(operand, Field) and operand.chain[:1] == ("Values",):
        return operand.chain[1:]
    if isinstance(operand, Var) and operand.chain[:1] == ("Values",):
        return operand.chain[1:]  # `$.Values...` or `$root.Values...`
    if isinstance(operand, Var) and operand.name in variables:
        return (*variables[operand.name], *operand.chain)
    if isinstance(operand, Paren):
        inner = _pipeline(operand.pipeline, variables)
        return None if inner is None else (*inner, *operand.chain)
    return None


def _key(operand: Operand) -> str:
    if isinstance(operand, Str):
        return operand.value
    if isinstance(operand, Var) and not operand.chain:
        return f"${operand.name}"
    return ANY
