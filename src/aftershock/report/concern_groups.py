"""Findings that say the same thing of many objects, as one entry: what a maintainer reads once.

Twenty-three Kustomizations that each "no longer depend on rook-ceph/rook-ceph-cluster" are one
concern about one edit, so the comment and the verdicts' reasons list it once with the objects it
was found on (two are enough). Findings group when they share rule, severity, category, evidence, change and the
message after their subject's name (less the colon or comma that joined it to the name: the entry
says `each:` once); the JSON keeps each finding.
"""

from __future__ import annotations

from typing import Any

MIN_GROUP = 2  # this many findings saying the same thing are one entry
MAX_NAMED = 3  # subjects named in a group's entry; the rest are counted


def grouped(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`items` (finding documents, in order) with each group of MIN_GROUP or more findings that say
    the same thing replaced, where its first member stood, by one entry whose message names them."""
    keys = [_key(item) for item in items]
    members: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for key, item in zip(keys, items, strict=True):
        if key is not None:
            members.setdefault(key, []).append(item)
    out: list[dict[str, Any]] = []
    placed: set[tuple[str, ...]] = set()
    for key, item in zip(keys, items, strict=True):
        group = members.get(key) if key is not None else None
        if key is None or group is None or len(group) < MIN_GROUP:
            out.append(item)
        elif key not in placed:
            placed.add(key)
            out.append({**item, "message": _message(group, key[-1]), "grouped": len(group)})
    return out


def _key(item: dict[str, Any]) -> tuple[str, ...] | None:
    said = _said(item["message"], item["subject"]["display"])
    if said is None:
        return None
    fields = ("rule", "severity", "category", "evidence", "delta")
    return (*(str(item[f]) for f in fields), said)


# What may follow a subject's name to join what is said of it: `X: the change edits …`.
_JOINS = ":;,"
_DASHES = "—–-"  # and after a space: `X — …`


def _said(message: str, display: str) -> str | None:
    """What `message` says after its subject's name, without the punctuation that joined the two
    (`each:` says it once); None when the message does not start with the whole name, or says
    nothing after it (`X's selector …` is no subject and predicate)."""
    rest = message.removeprefix(display)
    if rest == message or not rest or not (rest[0].isspace() or rest[0] in _JOINS):
        return None
    said = rest.lstrip(_JOINS).strip().lstrip(_DASHES).strip()
    return said or None


def _message(group: list[dict[str, Any]], said: str) -> str:
    """`23 Kustomization objects, each: no longer depends on … (default/a, default/b, default/c and
    20 more)`: the kind once when they share it."""
    displays = [item["subject"]["display"] for item in group]
    kinds = {d.split(" ", 1)[0] for d in displays}
    if len(kinds) == 1 and all(" " in d for d in displays):
        what = f"{len(group)} {kinds.pop()} objects"
        names = [d.split(" ", 1)[1] for d in displays]
    else:
        what, names = f"{len(group)} objects", displays
    named = ", ".join(names[:MAX_NAMED]) + (
        f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else ""
    )
    return f"{what}, each: {said} ({named})"
