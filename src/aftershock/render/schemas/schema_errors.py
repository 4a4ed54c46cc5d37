"""Reading Helm's values-schema error: which keys a chart's `values.schema.json` does not know.

Helm checks the values against the chart's schema before it renders and names every violation. A
scenario (a toggle, a test's `set`) that sets a key the change adds is rejected at base, where the
schema does not have it yet, though a chart without a schema would ignore the key. When every
violation Helm names is such an unknown key of the chart itself, the base render can leave those keys
out. Hand-written: the text is Helm's, in two wordings (Helm 3.18+ and 4, santhosh-tekuri/jsonschema:
``- at '/a/b': additional properties 'x', 'y' not allowed``; earlier Helm, gojsonschema:
``- a.b: Additional property x is not allowed``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from aftershock.releases.values import value_at

_HEADER = "values don't meet the specifications of the schema(s) in the following chart(s):"
_POINTER = re.compile(
    r"^- at '(?P<pointer>[^']*)': additional properties (?P<names>.+) not allowed$"
)
_DOTTED = re.compile(r"^- (?P<path>\S+): Additional property (?P<name>\S+) is not allowed$")
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")  # Go's quoting: \' and \\ inside

KeyPath = tuple[str, ...]


def unknown_keys(error: str, chart_name: str) -> tuple[KeyPath, ...] | None:
    """The key paths (from the top of the values) Helm's schema error says chart `chart_name` does not
    allow, when that is all the error says; None for any other error, or a subchart's violation."""
    lines = [line.strip() for line in error.strip().splitlines() if line.strip()]
    if not lines or not lines[0].endswith(_HEADER) or len(lines) < 3:
        return None
    if lines[1] != f"{chart_name}:":
        return None
    found: list[KeyPath] = []
    for line in lines[2:]:
        paths = _paths(line)
        if paths is None:
            return None
        found += paths
    return tuple(dict.fromkeys(found)) or None


def _paths(line: str) -> list[KeyPath] | None:
    pointer = _POINTER.match(line)
    if pointer:
        parent = tuple(
            part.replace("~1", "/").replace("~0", "~") for part in pointer["pointer"].split("/")[1:]
        )
        names = [re.sub(r"\\(.)", r"\1", n) for n in _QUOTED.findall(pointer["names"])]
        return [(*parent, name) for name in names] if names else None
    dotted = _DOTTED.match(line)
    if dotted:
        parent = () if dotted["path"] == "(root)" else tuple(dotted["path"].split("."))
        return [(*parent, dotted["name"])]
    return None


def without_keys(values: Mapping[str, Any], paths: tuple[KeyPath, ...]) -> dict[str, Any]:
    """`values` with each key path removed (a map left empty by it is removed too); a copy."""
    out = dict(values)
    for path in paths:
        out = _without(out, path)
    return out


def _without(values: Mapping[str, Any], path: KeyPath) -> dict[str, Any]:
    out = dict(values)
    head, rest = path[0], path[1:]
    if head not in out:
        return out
    if not rest:
        del out[head]
        return out
    child = out[head]
    if isinstance(child, Mapping):
        pruned = _without(child, rest)
        if pruned or not child:
            out[head] = pruned
        else:
            del out[head]
    return out


def sets_every(values: Mapping[str, Any], paths: tuple[KeyPath, ...]) -> bool:
    """Whether every key path is set in `values` (so leaving them out changes what Helm reads)."""
    return all(value_at(values, path, _ABSENT) is not _ABSENT for path in paths)


_ABSENT = object()
