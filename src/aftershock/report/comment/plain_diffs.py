"""The comment's plain diffs: each changed object's unified diff, folded, after its judgement (the
JSON's `objects[].diff`, report/object_diffs.py). One per object of an install, whatever the
scenarios; each diff is one unit of the comment's budget, so none is cut open."""

from __future__ import annotations

from typing import Any

from aftershock.report.escape import code_block_fence, html_text, visible_name
from aftershock.report.shown import listed_objects, merged_across_scenarios
from aftershock.report.text import object_title

Lines = tuple[tuple[str, ...], tuple[str, ...]]


def plain_diffs(doc: dict[str, Any]) -> Lines:
    """("### Plain diff", the folded diff of each changed object that has one)."""
    diffs: dict[str, str] = {}
    for obj in doc["objects"]:
        if obj.get("diff") and obj["identity"] not in diffs:
            diffs[obj["identity"]] = obj["diff"]
    blocks = []
    for obj in merged_across_scenarios(listed_objects(doc["objects"])):
        text = diffs.pop(obj["identity"], None)
        if text is None:
            continue
        lines = [visible_name(line) for line in text.splitlines()]
        fence = code_block_fence(lines)
        summary = f"{obj['change']} <code>{html_text(object_title(obj))}</code>"
        blocks.append(
            "\n".join(
                [
                    f"<details><summary>{summary}</summary>",
                    "",
                    f"{fence}diff",
                    *lines,
                    fence,
                    "",
                    "</details>",
                ]
            )
        )
    if not blocks:
        return (), ()
    return ("### Plain diff", ""), tuple(blocks)
