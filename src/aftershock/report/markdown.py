"""Markdown for a pull-request comment, derived from the canonical JSON document."""

from __future__ import annotations

from typing import Any

from aftershock.evidence.markdown import test_evidence_markdown
from aftershock.findings.markdown import findings_markdown
from aftershock.graph.mermaid import mermaid_from_document
from aftershock.report.text import (
    field_line, headline, object_title, range_text, provenance_index, render_cell, review_label, status_line, text_diff,
)

MAX_FIELDS_PER_OBJECT = 40
MAX_MERMAID_NODES = 40
MAX_FINDINGS_CHARS = 30_000
MAX_COMMENT_CHARS = 65_000  # GitHub refuses comments over 65,536 characters


def render_markdown(doc: dict[str, Any]) -> str:
    parts = [
        f"## aftershock review · `{range_text(doc)}`",
        "",
        f"**{headline(doc)}**",
        "",
        review_status_line(doc),
        "",
    ]
    if "lifecycle" in doc:
        parts += [_review_state(doc["lifecycle"]), ""]
    if "findings" in doc:
        parts += [findings_markdown(doc["findings"], max_chars=MAX_FINDINGS_CHARS, lifecycle=doc.get("lifecycle")).rstrip(), ""]
    if doc.get("tests"):
        parts += [test_evidence_markdown(doc["tests"]).rstrip(), ""]
    parts += _not_reviewed(doc) + _charts(doc) + _scenarios(doc) + _radius(doc) + _objects(doc) + _values(doc) + _layers(doc)
    text = "\n".join(parts).rstrip() + "\n"
    if len(text) > MAX_COMMENT_CHARS:
        note = "\n\n… the rest of this review is in the JSON output (the comment would exceed GitHub's limit).\n"
        text = text[: MAX_COMMENT_CHARS - len(note)].rsplit("\n", 1)[0] + note
    return text


def review_status_line(doc: dict[str, Any]) -> str:
    """The status line; an incremental review says it rendered only what changed since its start."""
    lifecycle = doc.get("lifecycle")
    if doc["status"] != "complete" or not lifecycle or lifecycle["mode"] != "incremental":
        return status_line(doc)
    return (f"Incremental review complete: the charts the commits since {(lifecycle['since'] or '')[:7]} reach were "
            "rendered at base and head; findings about the others are carried forward.")


def _review_state(lifecycle: dict[str, Any]) -> str:
    """How this review of the target was chosen: full or incremental, and why (a force-push says so)."""
    line = f"**{lifecycle['mode'].capitalize()} review of {_inline(lifecycle['target']['display'])}** · {_inline(lifecycle['reason'])}"
    if lifecycle["carried_forward"]:
        line += f" · {lifecycle['carried_forward']} finding(s) carried forward, not re-checked"
    return line


def _not_reviewed(doc: dict[str, Any]) -> list[str]:
    if not doc["not_reviewed"]:
        return []
    lines = ["### Not reviewed", ""]
    for item in doc["not_reviewed"]:
        side = f" at {item['side']}" if item["side"] else ""
        lines.append(f"- **{item['part']}**{side}: {_inline(item['reason'])}")
    return lines + [""]


def _charts(doc: dict[str, Any]) -> list[str]:
    if not doc["chart_reviews"]:
        return ["No renderable chart is affected by this change.", ""]
    lines = ["### Charts", "", "| chart | outcome | base | head | objects changed |", "|---|---|---|---|---|"]
    for r in doc["chart_reviews"]:
        lines.append(
            f"| `{review_label(r)}` | {r['outcome'].replace('_', ' ')} | {render_cell(r['base'])} "
            f"| {render_cell(r['head'])} | {len(r['objects'])} |"
        )
    return lines + [""] + _in_repository_dependencies(doc)


def _in_repository_dependencies(doc: dict[str, Any]) -> list[str]:
    """Remote dependencies rendered from a chart of this repository, and on what grounds."""
    how = {"in_repo_inferred": "inferred: same name, version in range", "in_repo_configured": "observed: .aftershock.yaml"}
    rendered = {r["chart"] for r in doc["chart_reviews"]}
    lines = sorted({f"- `{c['path']}` uses `{d['resolved_path']}` for `{d['name']}` {d['version']} from {d['repository']} ({how[d['source']]})"
                    for c in doc["charts"] if c["path"] in rendered for d in c["dependencies"] if d["source"] in how})
    return ["Dependencies rendered from this repository, never downloaded:", "", *lines, ""] if lines else []


def _scenarios(doc: dict[str, Any]) -> list[str]:
    lines = [f"- `{s['chart']}`: {_inline(s['summary'])}" + (f" (cut by the cap: {', '.join(s['cut'])})" if s["cut"] else "")
             for s in doc["scenarios"]]
    return ["### Scenarios", "", *lines, ""] if lines else []


def _radius(doc: dict[str, Any]) -> list[str]:
    graph = doc["graph"]
    if graph["radius"]["nodes"] == 0:
        return []
    counts = ", ".join(f"{n} {layer}" for layer, n in graph["radius"]["by_layer"].items() if n)
    return ["### Blast radius", "", counts, "", "```mermaid", mermaid_from_document(graph, MAX_MERMAID_NODES).rstrip(), "```", ""]


def _objects(doc: dict[str, Any]) -> list[str]:
    if not doc["objects"]:
        return []
    lines = ["### Rendered objects", ""]
    produced_by = provenance_index(doc)
    for obj in [o for o in doc["objects"] if not o["same_as_default"]]:
        sources = ", ".join(f"`{t}`" for t in obj["templates"])
        lines.append("<details>")
        lines.append(f"<summary><b>{obj['change']}</b> <code>{object_title(obj)}</code> in <code>{obj['chart']}</code></summary>")
        lines.append("")
        lines.append(f"From {sources}")
        lines.append("")
        fields = obj["fields"]
        for f in fields[:MAX_FIELDS_PER_OBJECT]:
            lines += _field_lines(f, produced_by.get((obj["id"], f["path"])))
        if len(fields) > MAX_FIELDS_PER_OBJECT:
            lines.append(f"- … {len(fields) - MAX_FIELDS_PER_OBJECT} more field change(s) in the JSON output")
        lines += ["", "</details>", ""]
    return lines


def _field_lines(field: dict[str, Any], produced_by: str | None = None) -> list[str]:
    lines = [f"- `{field_line(field)}`" + (f" {_inline(produced_by)}" if produced_by else "")]
    diff = text_diff(field)
    if diff:
        lines += ["", "  ```diff", *(f"  {line}" for line in diff), "  ```"]
    return lines


def _values(doc: dict[str, Any]) -> list[str]:
    if not doc["values_changes"]:
        return []
    lines = ["### Values keys", ""]
    lines += [f"- `{v['file']}`: {_inline(v['description'])}" for v in doc["values_changes"]]
    return lines + [""]


def _layers(doc: dict[str, Any]) -> list[str]:
    lines = ["<details><summary>Commits and files</summary>", ""]
    for c in doc["commits"]:
        lines.append(f"- `{c['short_sha']}` {_inline(c['title'])} — {_inline(c['author']['name'])}")
    lines.append("")
    for f in doc["files"]:
        rename = f" (from `{f['old_path']}`, {f['similarity']}%)" if f["old_path"] else ""
        lines.append(f"- {f['status']} `{f['path']}`{rename} +{f['additions']} −{f['deletions']}")
    return lines + ["", "</details>", ""]


def _inline(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")
