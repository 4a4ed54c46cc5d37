"""The comment's plain diffs: each changed object's unified diff, folded, after its judgement (the
JSON's `objects[].diff`, report/object_diffs.py). One per object of an install, whatever the
scenarios; each diff is one unit of the comment's budget, so none is cut open. An object added or
removed whole has no field changes to list: its YAML goes in its own entry (`whole_object_lines`)."""

from __future__ import annotations

from typing import Any

from aftershock.report.escape import code_block_fence, html_text, visible_name
from aftershock.report.shown import listed_objects, merged_across_scenarios
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


def plain_diffs(doc: dict[str, Any]) -> Lines:
    """("### Plain diff", the folded diff of each changed object that has one and has field changes)."""
    diffs = object_diffs(doc)
    blocks = []
    for obj in merged_across_scenarios(listed_objects(doc["objects"])):
        text = diffs.pop(obj["identity"], None)
        if text is None or not obj["fields"]:
            continue  # an object without field changes shows its YAML in its own entry
        summary = f"{obj['change']} <code>{html_text(object_title(obj))}</code>"
        blocks.append(
            "\n".join(
                [f"<details><summary>{summary}</summary>", "", *_fenced(text), "", "</details>"]
            )
        )
    if not blocks:
        return (), ()
    return ("### Plain diff", ""), tuple(blocks)
