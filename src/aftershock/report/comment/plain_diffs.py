"""The comment's plain diffs: each changed object's unified diff, folded, after its judgement (the
JSON's `objects[].diff`, report/object_diffs.py). One per object of an install, whatever the
scenarios, and one for objects of a kind whose diffs differ only in their own (or their release's)
names; each diff is one unit of the comment's budget, so none is cut open. An object added or
removed whole has no field changes to list: its YAML goes in its own entry (`whole_object_lines`)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from aftershock.report.escape import code_block_fence, html_text, visible_name
from aftershock.report.overview import field_key
from aftershock.report.shown import listed_objects, merged_across_scenarios, own_names
from aftershock.report.text import object_title

Lines = tuple[tuple[str, ...], tuple[str, ...]]


def object_diffs(doc: dict[str, Any]) -> dict[str, str]:
    """Identity -> the first diff its entries carry (the default scenario's first)."""
    diffs: dict[str, str] = {}
    for obj in doc["objects"]:
        if obj.get("diff") and obj["identity"] not in diffs:
            diffs[obj["identity"]] = obj["diff"]
    return diffs


WHOLE_OBJECT_LINES = (
    20  # of an added or removed object's YAML in the comment; all of it in the HTML
)


def whole_object_lines(obj: dict[str, Any], diffs: dict[str, str]) -> list[str]:
    """The YAML of an object without field changes (added or removed whole), fenced and cut at
    WHOLE_OBJECT_LINES; else none."""
    text = diffs.get(obj["identity"]) if not obj["fields"] else None
    if text is None:
        return []
    left = len(text.splitlines()) - WHOLE_OBJECT_LINES
    shown = [*_fenced(text, WHOLE_OBJECT_LINES), ""]
    if left > 0:
        shown.append(f"… {left} more lines in the JSON output and the HTML report")
    return shown


def _fenced(text: str, most: int | None = None) -> list[str]:
    """A diff as a fenced `diff` block (its first `most` lines), no backtick run inside closing it."""
    lines = [visible_name(line) for line in text.splitlines()][:most]
    fence = code_block_fence(lines)
    return [f"{fence}diff", *lines, fence]


def plain_diffs(doc: dict[str, Any], grouped: Collection[str] = ()) -> Lines:
    """("### Plain diff", the folded diff of each changed object that has one and has field changes):
    objects of one kind whose diffs differ only in their names (28 Deployments of one chart bump,
    each relabelled with its own name) are one diff, the first's, naming the others. Diffs that say
    more than the repeated field changes (`grouped`: their field_key) come first: the budget cuts last
    blocks first, and those say nothing the comment does not."""
    diffs = object_diffs(doc)
    alike: dict[tuple[str, ...], list[tuple[dict[str, Any], str]]] = {}
    for obj in merged_across_scenarios(listed_objects(doc["objects"])):
        text = diffs.pop(obj["identity"], None)
        if text is None or not obj["fields"]:
            continue  # an object without field changes shows its YAML in its own entry
        key = (obj["change"], obj["key"]["group"], obj["key"]["kind"], _unnamed(text, obj))
        alike.setdefault(key, []).append((obj, text))
    said_above = [
        all(field_key(f, g[0][0]) in grouped for f in g[0][0]["fields"]) for g in alike.values()
    ]
    blocks = [_block(g) for _, g in sorted(zip(said_above, alike.values()), key=lambda p: p[0])]
    if not blocks:
        return (), ()
    return ("### Plain diff", ""), tuple(blocks)


MIN_NAME = 3  # a shorter name is too likely a part of other words to stand for the object
NAMED_ALIKE = 3  # objects named of those whose diff is the one shown; the rest are counted


def _unnamed(text: str, obj: dict[str, Any]) -> str:
    """The diff with the object's name and its release's name masked."""
    names = sorted(own_names(obj), key=len, reverse=True)
    for index, name in enumerate(n for n in names if len(n) >= MIN_NAME):
        text = text.replace(name, f"\0{index}")
    return text


def _block(group: list[tuple[dict[str, Any], str]]) -> str:
    (obj, text), others = group[0], [o for o, _ in group[1:]]
    summary = f"{obj['change']} <code>{html_text(object_title(obj))}</code>"
    if others:
        names = [_short(o) for o in others]
        named = ", ".join(names[:NAMED_ALIKE]) + (
            f" and {len(names) - NAMED_ALIKE} more" if len(names) > NAMED_ALIKE else ""
        )
        how = (
            "with the same diff" if {t for _, t in group} == {text} else "alike but for their names"
        )
        summary += f" and {len(others)} more {how} ({html_text(named)})"
    return "\n".join(
        [f"<details><summary>{summary}</summary>", "", *_fenced(text), "", "</details>"]
    )


def _short(obj: dict[str, Any]) -> str:
    key = obj["key"]
    return f"{key['namespace']}/{key['name']}" if key["namespace"] else key["name"]
