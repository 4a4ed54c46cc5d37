"""The comment's "Rendered objects": each changed object folded under the install that rendered it
(`chart via HelmRelease ns/name`), with its field changes less those the repeated field changes list
(report/overview.py: the same change on many objects, a value that is each object's own name
counting as the same), each field with the values keys that produce it."""

from __future__ import annotations

from typing import Any

from aftershock.report.comment.plain_diffs import object_diffs, whole_object_lines
from aftershock.report.escape import (
    code_block_fence,
    html_text,
    markdown_code,
    markdown_text,
    visible_name,
)
from aftershock.report.overview import field_key
from aftershock.report.shown import (
    field_where,
    ignored_line,
    listed_objects,
    merged_across_scenarios,
)
from aftershock.report.text import (
    field_line,
    install_label,
    object_title,
    provenance_index,
    text_diff,
)

MAX_FIELDS_PER_OBJECT = 40
Lines = tuple[tuple[str, ...], tuple[str, ...]]


def rendered_objects(doc: dict[str, Any], grouped: set[str]) -> Lines:
    """Each changed object folded, with its field changes less those listed as repeated changes."""
    if not doc["objects"]:
        return (), ()
    lines: list[str] = []
    produced_by, diffs = provenance_index(doc), object_diffs(doc)
    installs = {r["id"]: install_label(r) for r in doc["chart_reviews"]}
    for obj in merged_across_scenarios(listed_objects(doc["objects"])):
        fields = [f for f in obj["fields"] if field_key(f, obj) not in grouped]
        repeated = len(obj["fields"]) - len(fields)
        if repeated and not fields:
            continue  # said whole by the repeated field changes above
        sources = ", ".join(f"{markdown_code(t)}" for t in obj["templates"])
        lines.append("<details>")
        lines.append(
            f"<summary><b>{obj['change']}</b> <code>{html_text(object_title(obj))}</code> in <code>{html_text(installs.get(obj['review'], obj['chart']))}</code></summary>"
        )
        lines += ["", f"From {sources}", "", *whole_object_lines(obj, diffs)]
        for f in fields[:MAX_FIELDS_PER_OBJECT]:
            lines += _field_lines(f, produced_by.get((f["id"], f["path"])), field_where(obj, f))
        if len(fields) > MAX_FIELDS_PER_OBJECT:
            lines.append(
                f"- … {len(fields) - MAX_FIELDS_PER_OBJECT} more field change(s) in the JSON output"
            )
        if repeated:
            lines.append(f"- and {repeated} repeated field change(s), listed above")
        lines += ["", "</details>", ""]
    if ignored := ignored_line(doc):
        lines += [markdown_text(ignored), ""]
    if not lines:  # every object said whole by the repeated field changes
        return (), ()
    return ("### Rendered objects", ""), tuple(lines)


def _field_lines(
    field: dict[str, Any], produced_by: str | None = None, where: str | None = None
) -> list[str]:
    lines = [
        f"- {markdown_code(field_line(field))}"
        + (f" *({markdown_text(where)})*" if where else "")
        + (f" {markdown_text(produced_by)}" if produced_by else "")
    ]
    diff = text_diff(field)
    if diff:
        fence = code_block_fence(diff)
        lines += ["", f"  {fence}diff", *(f"  {visible_name(line)}" for line in diff), f"  {fence}"]
    return lines
