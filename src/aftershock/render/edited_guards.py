"""Guards the change writes on values keys the chart does not document, opened by a made-up value.

`guard_scenarios` opens only keys the chart's values.yaml holds: a key it does not document is no
option a user is offered. A condition on a changed line is another matter: the change itself reads
the key (a value its users pass from elsewhere, such as a region's secrets), and the lines it guards
run only where the key is set, so no scenario of the chart's own values runs them; nor the lines
the change adds inside a block on such a key. Each values path an `if`/`with` on an added or removed
template line reads (`.Values.a.b`, as any guard's), or that `hasKey` tests (`hasKey .Values.a "b"`:
`a.b`), then each path the blocks an added line stands in read, that the render's values leave
unset, is set once more to a value that opens it, as the scenario `guard:<path>=<value>`: a
one-entry map where every key beside it holds a map (a section of a config file the chart writes
from a map of maps), else a text. It is a made-up value, as any guard's: its objects show what the
edit does, no rule judges their values, and a chart that rejects it makes it invalid (the refill
round renders the next scenario).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

from aftershock.diff.edited_templates import edited_template_lines, field_names
from aftershock.model.change import FileChange
from aftershock.releases.values import value_at
from aftershock.render.range_shapes import opened_value
from aftershock.render.scenarios import Scenario, conditions, nested, values_read

MAX_EDITED_GUARDS = 2  # per chart: each is a render per ref
_HAS_KEY = re.compile(
    r"\bhasKey\s+\(?\$?\w*\.Values((?:\.[A-Za-z_]\w*)*)\)?\s+\"([A-Za-z_][\w-]*)\""
)
_ABSENT = object()
# A block's opening, middle or end action, with its keyword: `{{- if .Values.a }}`, `{{ end }}`.
_BLOCK = re.compile(r"\{\{-?\s*(?P<keyword>else if|else|if|with|range|define|block|end)\b[^}]*\}\}")


def edited_guard_paths(
    files: Iterable[FileChange], chart_folder: str, read: Callable[[str], str | None]
) -> tuple[str, ...]:
    """The values paths the conditions on a chart's added and removed template lines read, then
    those of the `if`/`with` blocks an added line stands in (`read`: a file's text at head), each
    once, in the order the lines give them (`hasKey`'s tested key joined to its map's path)."""
    found: dict[str, None] = {}
    lines = [line[1:] for line in edited_template_lines(files, chart_folder)]
    for line in [*lines, *_enclosing(files, chart_folder, read)]:
        for condition in conditions(line):
            tested = [
                f"{inner[1:]}.{key}".lstrip(".") for inner, key in _HAS_KEY.findall(condition)
            ]
            for path in tested + values_read(_HAS_KEY.sub("", condition)):
                found.setdefault(path, None)
    return tuple(found)


def enclosing_fields(
    files: Iterable[FileChange], paths: Collection[str], read: Callable[[str], str | None]
) -> dict[str, frozenset[str]]:
    """The field names the `if`/`with` blocks around the added lines of each of `paths` read (`read`:
    a file's text at head), by path: a line that reads nothing (`{{ tpl (toYaml .) $ }}` inside
    `with (concat .Values.global.env .Values.server.env)`) runs only where its blocks open."""
    openings = _openings_by_file((f for f in files if f.path in paths), read)
    return {path: field_names(found) for path, found in openings.items()}


def _enclosing(
    files: Iterable[FileChange], chart_folder: str, read: Callable[[str], str | None]
) -> Iterator[str]:
    """The opening actions (`{{ if .Values.a }}`) of the blocks each added template line stands in."""
    prefix = f"{chart_folder}/templates/" if chart_folder else "templates/"
    for found in _openings_by_file((f for f in files if f.path.startswith(prefix)), read).values():
        yield from found


def _openings_by_file(
    files: Iterable[FileChange], read: Callable[[str], str | None]
) -> dict[str, list[str]]:
    """`block_openings` of each file's added lines, by path (files without any, or unread, left out)."""
    found: dict[str, list[str]] = {}
    for change in files:
        added = {number for hunk in change.hunks for number, _ in hunk.added()}
        text = read(change.path) if added else None
        if text:
            found[change.path] = block_openings(text, added)
    return found


def block_openings(text: str, lines: Collection[int]) -> list[str]:
    """The opening actions of the `if`/`else if`/`with` blocks open at any of `lines` (1-based), each
    once, outermost first. Other blocks (`range`, `define`) are tracked to pair each `end`."""
    found: dict[str, None] = {}
    stack: list[str] = []
    for number, line in enumerate(text.split("\n"), 1):
        if number in lines:
            found.update(dict.fromkeys(a for a in stack if a))
        for match in _BLOCK.finditer(line):
            keyword, action = match.group("keyword"), match.group(0)
            if keyword == "end":
                if stack:
                    stack.pop()
            elif keyword in ("else if", "else"):
                if stack:
                    stack[-1] = action if keyword == "else if" else ""
            else:
                stack.append(action if keyword in ("if", "with") else "")
    return list(found)


def edited_guard_scenarios(
    paths: Iterable[str], sides: Sequence[Mapping[str, Any]]
) -> list[Scenario]:
    """One `guard:` scenario per path that the values of every side (the chart's defaults with what
    the render gives, at head and at base) leave unset, under a map or under no key at all (at most
    MAX_EDITED_GUARDS). A key one side sets is opened by that side's own guards and toggles."""
    scenarios = []
    for path in paths:
        parts = path.split(".")
        if any(value_at(values, parts, _ABSENT) is not _ABSENT for values in sides):
            continue
        parents = [value_at(values, parts[:-1], _ABSENT) for values in sides if len(parts) > 1]
        if any(p is not _ABSENT and not isinstance(p, Mapping) for p in parents):
            continue  # under a text or a list: no key to set there
        sections = any(
            isinstance(p, Mapping) and p and all(isinstance(v, Mapping) for v in p.values())
            for p in parents
        )
        value = opened_value({} if sections else "")
        shown = value if isinstance(value, str) else json.dumps(value)
        scenarios.append(Scenario(name=f"guard:{path}={shown}", overrides=nested({path: value})))
    return scenarios[:MAX_EDITED_GUARDS]
