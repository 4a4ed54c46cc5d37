"""Path-level diff of values files: which keys were added, removed or changed, and how."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from aftershock.diff.fields import diff_documents
from aftershock.gocompat.yamlio import load_one
from aftershock.model.errors import MalformedInputError
from aftershock.model.units import ValuesKeyChange, ValuesKeyChangeKind
from aftershock.safety.credential_text import is_reference_name

_ABSENT = object()
# Key names whose values are credentials: their values are never shown, only their size.
# `private` names a credential as a key's own name or a key's (`ssh.private`, `privateKey`), not as a
# word of another name (`to-private-networks`, `privateRegistry`), as credential_text's names do.
_SENSITIVE = re.compile(
    r"(pass(word|wd)?|secret|token|credential|private[-_]?key|(^|[._-])private$|api[-_]?key|signing|"
    r"(^|[._-])key$|cert)",
    re.I,
)


def chart_defaults(read: Callable[[str], str | None], chart_path: str) -> Mapping[str, Any]:
    """A chart's values.yaml as Helm reads it; an empty mapping when it is absent or not YAML (its
    renders say what the broken file does)."""
    path = f"{chart_path}/values.yaml" if chart_path else "values.yaml"
    try:
        return parse_values(read(path), source=path)
    except MalformedInputError:
        return {}


def parse_values(text: str | None, *, source: str) -> Mapping[str, Any]:
    """A values document as Helm reads it; an absent or empty file is an empty mapping."""
    if text is None:
        return {}
    data = load_one(text, source=source)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise MalformedInputError(
            f"values file is a {type(data).__name__}, not a mapping",
            where=source,
            hint="make its top level a mapping",
        )
    return data


def flatten(values: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted path, leaf) pairs; lists and empty maps are leaves, so a list shows as one value."""
    for key in values:
        path = f"{prefix}.{_segment(str(key))}" if prefix else _segment(str(key))
        value = values[key]
        if isinstance(value, dict) and value:
            yield from flatten(value, path)
        else:
            yield path, value


def _segment(key: str) -> str:
    if key and all(ch.isalnum() or ch in "-_" for ch in key):
        return key
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def diff_values(
    before: Mapping[str, Any], after: Mapping[str, Any], *, chart: str | None, file: str
) -> tuple[ValuesKeyChange, ...]:
    """Key-level changes between two values documents, in the order of the head file, then removals."""
    old, new = dict(flatten(before)), dict(flatten(after))
    changes = []
    for path, value in new.items():
        prior = old.get(path, _ABSENT)
        if prior is _ABSENT:
            changes.append(
                ValuesKeyChange(chart, file, path, ValuesKeyChangeKind.ADDED, None, value)
            )
        elif not same_value(prior, value):
            changes.append(
                ValuesKeyChange(chart, file, path, ValuesKeyChangeKind.CHANGED, prior, value)
            )
    for path, value in old.items():
        if path not in new:
            changes.append(
                ValuesKeyChange(chart, file, path, ValuesKeyChangeKind.REMOVED, value, None)
            )
    return tuple(changes)


def same_value(a: Any, b: Any) -> bool:
    """Go's reflect.DeepEqual on decoded YAML: an int never equals a float, a bool never an int."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return bool(a == b)


def describe_value(value: Any) -> str:
    """A short human description: `absent`, `a 5-item list`, `a map of 3 keys`, or the scalar itself."""
    if value is None:
        return "null"
    if isinstance(value, list):
        return f"a {len(value)}-item list" if value else "an empty list"
    if isinstance(value, dict):
        return f"a map of {len(value)} keys" if value else "an empty map"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def is_sensitive(path: str) -> bool:
    """A values path that holds a credential by its name (password, token, secret, ...key), not a
    reference to one (`hub.tokenMountPath`, `auth.password_file`)."""
    return bool(_SENSITIVE.search(path)) and not is_reference_name(path.rsplit(".", 1)[-1])


def redact_value(value: Any) -> Any:
    """Scalars of a sensitive key become `{"redacted": true, "bytes": N}`; structure stays visible."""
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    if value is None or isinstance(value, bool):
        return value
    return {"redacted": True, "bytes": len(str(value).encode("utf-8"))}


def describe_change(change: ValuesKeyChange, *, secret: bool = False) -> str:
    """`path changed from X to Y`; values are sizes only when the key names a credential or `secret`."""
    hide = secret or change.secret or is_sensitive(change.path)
    before = (
        "absent" if change.kind is ValuesKeyChangeKind.ADDED else _describe(change.before, hide)
    )
    after = (
        "absent" if change.kind is ValuesKeyChangeKind.REMOVED else _describe(change.after, hide)
    )
    if before == after and (inside := what_differs(change.before, change.after, hide=hide)):
        return f"{change.path} changed {inside}"  # never `from a 1-item list to a 1-item list`
    return f"{change.path} changed from {before} to {after}"


MAX_INNER_NAMED = 3  # fields named of a list's or map's changed items; the rest are counted
_VERBS = {"added": "added", "removed": "removed", "modified": "changed", "reordered": "reordered"}


def what_differs(before: Any, after: Any, *, hide: bool = False) -> str | None:
    """What differs inside two lists (or two maps) of the same size, where their sizes say nothing:
    `in its item (backendRefs[port=80].name removed, …)`, `in 1 of its 2 items ([1].path changed)`,
    `in order`; with `hide` (a credential's key) which items only. None for anything else."""
    if not (isinstance(before, list) and isinstance(after, list)) and not (
        isinstance(before, dict) and isinstance(after, dict)
    ):
        return None
    if len(before) != len(after):
        return None
    changes = diff_documents(before, after)
    if not changes:
        return None
    if len(changes) == 1 and not changes[0].path:  # the same entries, in another order
        return "in order"
    if isinstance(before, dict):
        where, parts = "in its keys", [(c.path, c.kind.value) for c in changes]
    elif len(before) == 1:
        where, parts = "in its item", [(_below(c.path_parts), c.kind.value) for c in changes]
    else:
        items = {c.path_parts[0] for c in changes if c.path_parts}
        where = f"in {len(items)} of its {len(before)} items"
        parts = [(c.path, c.kind.value) for c in changes]
    if hide:  # a field path may name a list entry by its value
        return where
    named = [f"{path} {_VERBS[kind]}" if path else _VERBS[kind] for path, kind in parts]
    more = len(named) - MAX_INNER_NAMED
    return (
        f"{where} ({', '.join(named[:MAX_INNER_NAMED])}{f' and {more} more' if more > 0 else ''})"
    )


def _below(parts: tuple[str, ...]) -> str:
    """A path inside a list's only item, without the item's own segment (`[0]`)."""
    rest = list(parts[1:])
    return "".join(p if p.startswith("[") or not i else f".{p}" for i, p in enumerate(rest))


def _describe(value: Any, hide: bool) -> str:
    if hide and not isinstance(value, (dict, list, bool)) and value is not None and value != "":
        return f"<redacted: {len(str(value).encode('utf-8'))} bytes>"
    return describe_value(value)
