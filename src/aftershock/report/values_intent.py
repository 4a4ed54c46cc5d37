"""What a change does to one values file (or release), said by intent: keys that change the same
way together, lists and maps added by their size.

`release orders: backup.enabled and metrics.enabled true → false, adds env (5 entries)` rather than
one line per key; a list whose size stays says what changed in its items. Built from the document's
`values_changes`; values that are secret show no value.
"""

from __future__ import annotations

import json
from typing import Any

from aftershock.diff.values_keys import what_differs

MAX_NAMED = 3  # keys named in one phrase; the rest are counted
MAX_PHRASES = 4  # phrases said for one file; the rest are counted


def intent_lines(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(file or release, what the change does to its keys), one per file, in document order."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for change in doc["values_changes"]:
        by_file.setdefault(change["file"], []).append(change)
    return [(file, _said(changes)) for file, changes in by_file.items()]


def _said(changes: list[dict[str, Any]]) -> str:
    same: dict[str, list[str]] = {}  # "true → false" -> keys
    added: list[str] = []
    removed: list[str] = []
    other: list[str] = []
    for change in changes:
        kind, path = change["change"], change["path"]
        if change.get("sensitive"):
            other.append(f"{_verb(kind)} {path} (secret)")
        elif kind == "added":
            added.append(f"{path}{_size(change['after'], ' = ')}")
        elif kind == "removed":
            removed.append(path)
        elif _scalar(change["before"]) and _scalar(change["after"]):
            same.setdefault(f"{_text(change['before'])} → {_text(change['after'])}", []).append(
                path
            )
        else:
            other.append(_reshaped(path, change["before"], change["after"]))
    said = [f"{_names(keys)} {how}" for how, keys in same.items()]
    said += [f"adds {_listed(added)}"] if added else []
    said += [f"removes {_listed(removed)}"] if removed else []
    said += other
    more = len(said) - MAX_PHRASES
    return ", ".join(said[:MAX_PHRASES]) + (f" and {more} more change(s)" if more > 0 else "")


def _reshaped(path: str, before: Any, after: Any) -> str:
    """`env (5 entries) → (6 entries)`; when the sizes read the same, what differs inside."""
    sizes = (_size(before, " "), _size(after, " "))
    if sizes[0] == sizes[1] and (inside := what_differs(before, after)):
        return f"{path} changed {inside}"
    return f"{path}{sizes[0]} →{sizes[1]}"


def _listed(keys: list[str]) -> str:
    """`a and b`, or `36 keys (a, b, c, …)` past MAX_NAMED."""
    if len(keys) <= MAX_NAMED:
        return _names(keys)
    return f"{len(keys)} keys ({', '.join(keys[:MAX_NAMED])}, …)"


def _verb(kind: str) -> str:
    return {"added": "adds", "removed": "removes"}.get(kind, "changes")


def _scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _size(value: Any, lead: str) -> str:
    """` (5 entries)`, ` (3 keys)`, or ` = value` for a short scalar or an empty map or list
    (`emptyDir = {}`: a map of 0 keys is what was written, not a count)."""
    if isinstance(value, (list, dict)) and not value:
        return f"{lead}{json.dumps(value)}"
    if isinstance(value, list):
        return f" ({len(value)} entr{'y' if len(value) == 1 else 'ies'})"
    if isinstance(value, dict):
        return f" ({len(value)} key{'' if len(value) == 1 else 's'})"
    text = _text(value)
    return f"{lead}{text}" if len(text) <= 40 else ""


def _text(value: Any) -> str:
    if value is None:
        return "absent"
    if value == "":
        return '""'  # stripped of its quotes, an empty text would read as nothing at all
    return json.dumps(value, ensure_ascii=False).strip('"')


def _names(keys: list[str]) -> str:
    if len(keys) == 1:
        return keys[0]
    if len(keys) <= MAX_NAMED:
        return ", ".join(keys[:-1]) + f" and {keys[-1]}"
    return ", ".join(keys[:MAX_NAMED]) + f" and {len(keys) - MAX_NAMED} more"
