"""Terminal output with rich, derived from the canonical JSON document."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from aftershock.report.contexts import context_line
from aftershock.report.markdown import review_status_line
from aftershock.report.text import (
    field_line, headline, object_title, provenance_index, range_text, render_cell, review_label, text_diff,
)

MAX_FIELDS_PER_OBJECT = 25


def print_terminal(doc: dict[str, Any], console: Console) -> None:
    console.print(f"[bold]aftershock review[/bold] {range_text(doc)}")
    console.print(headline(doc))
    style = "green" if doc["status"] == "complete" else "yellow"
    console.print(f"[{style}]{escape(review_status_line(doc))}[/{style}]")
    if "lifecycle" in doc:
        _print_review_state(doc["lifecycle"], console)
    if "findings" in doc:
        _print_findings(doc["findings"], console, doc.get("lifecycle"))
    for item in doc["not_reviewed"]:
        side = f" at {item['side']}" if item["side"] else ""
        console.print(f"  [yellow]not reviewed[/yellow] {escape(item['part'])}{side}: {escape(item['reason'])}")
    for entry in doc.get("contexts", ()):
        if entry["kind"] != "defaults" or entry["attempts"]:
            console.print(f"  [cyan]context[/cyan] {escape(context_line(entry))}")
    if doc["chart_reviews"]:
        console.print(_charts_table(doc))
    produced_by = provenance_index(doc)
    for obj in [o for o in doc["objects"] if not o["same_as_default"]]:
        console.print(f"[bold]{obj['change']}[/bold] {escape(object_title(obj))}  [dim]{escape(', '.join(obj['templates']))}[/dim]")
        for field in obj["fields"][:MAX_FIELDS_PER_OBJECT]:
            source = produced_by.get((obj["id"], field["path"]))
            console.print(f"    {escape(field_line(field))}" + (f"  [cyan]{escape(source)}[/cyan]" if source else ""))
            for line in text_diff(field) or ():
                style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
                console.print(f"      [{style}]{escape(line)}[/{style}]")
        if len(obj["fields"]) > MAX_FIELDS_PER_OBJECT:
            console.print(f"    … {len(obj['fields']) - MAX_FIELDS_PER_OBJECT} more (see --format json)")
    for v in doc["values_changes"]:
        console.print(f"[cyan]values[/cyan] {escape(v['file'])}: {escape(v['description'])}")


def _charts_table(doc: dict[str, Any]) -> Table:
    table = Table("chart", "outcome", "base", "head", "objects changed", title="Affected charts")
    for r in doc["chart_reviews"]:
        table.add_row(escape(review_label(r)), r["outcome"].replace("_", " "), render_cell(r["base"]), render_cell(r["head"]), str(len(r["objects"])))
    return table


_SEVERITY_STYLE = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "cyan", "info": "dim"}


def _print_review_state(lifecycle: dict[str, Any], console: Console) -> None:
    style = "yellow" if lifecycle["force_pushed"] else "dim"
    line = f"{lifecycle['mode']} review of {lifecycle['target']['display']}: {lifecycle['reason']}"
    if lifecycle["carried_forward"]:
        line += f"; {lifecycle['carried_forward']} finding(s) carried forward, not re-checked"
    console.print(f"[{style}]{escape(line)}[/{style}]")


def _print_findings(section: dict[str, Any], console: Console, lifecycle: dict[str, Any] | None) -> None:
    for key in ("merge", "security"):
        verdict = section["verdicts"][key]
        console.print(f"[bold]{escape(verdict['title'])}[/bold]")
        console.print(f"  [dim]{escape(verdict['rationale'])}[/dim]")
    actionable = [i for i in section["items"] if i["actionable"]]
    if lifecycle is not None:
        _print_lifecycle(actionable, lifecycle, console)
    else:
        if not actionable:
            console.print(f"{escape(section['headline'])}.")
        for item in actionable:
            _print_item(item, console)
    _print_repository_says(section, console)


def _print_repository_says(section: dict[str, Any], console: Console) -> None:
    for notice in section.get("notices", []):
        console.print(f"[yellow]note:[/yellow] {escape(notice)}")
    suppressed = section.get("suppressed", [])
    if suppressed:
        console.print(f"[bold]suppressed ({len(suppressed)})[/bold]")
    for item in suppressed:
        console.print(f"  [dim]{escape(item['message'])} · {item['rule']} · {escape(item['source'])}: {escape(item['reason'])}[/dim]")


def _print_item(item: dict[str, Any], console: Console, note: str = "") -> None:
    style = _SEVERITY_STYLE.get(item["severity"], "")
    label = f"{item['severity'].capitalize()} · {item['category']} · {item['evidence']}"
    console.print(f"  [{style}]{escape(label)}[/{style}]: {escape(item['message'])}  [dim]{item['rule']} {item['fingerprint'][:12]}{escape(note)}[/dim]")


def _print_lifecycle(actionable: list[dict[str, Any]], lifecycle: dict[str, Any], console: Console) -> None:
    """New and retained concerns, then those resolved since the last head and the dismissed ones."""
    console.print(f"{escape(lifecycle['headline'])}.")
    entries = {e["fingerprint"]: e for state in ("new", "retained") for e in lifecycle[state]}
    retained = {e["fingerprint"] for e in lifecycle["retained"]}
    for title, members in (("new", [i for i in actionable if i["fingerprint"] not in retained]),
                           ("retained", [i for i in actionable if i["fingerprint"] in retained])):
        if members:
            console.print(f"[bold]{title} ({len(members)})[/bold]")
        for item in members:
            _print_item(item, console, _note(entries.get(item["fingerprint"])))
    resolved = [e for e in lifecycle["resolved"] if e["actionable"]]
    if resolved:
        console.print(f"[bold]resolved since {(lifecycle['previous_head'] or '')[:7]} ({len(resolved)})[/bold]")
    for entry in resolved:
        console.print(f"  [green]{escape(entry['message'])}[/green]  [dim]{entry['rule']} {entry['fingerprint'][:12]}[/dim]")
    if lifecycle["dismissed"]:
        console.print(f"[bold]dismissed ({len(lifecycle['dismissed'])})[/bold]")
    for entry in lifecycle["dismissed"]:
        d = entry["dismissal"]
        console.print(f"  [dim]{escape(entry['message'])} · {entry['fingerprint'][:12]} · by {escape(d['by'] or 'someone')} "
                      f"on {d['at'][:10]}: {escape(d['reason'])}[/dim]")


def _note(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return ""
    notes = ["carried forward, not re-checked"] if entry["carried_forward"] else []
    if entry["lapsed_dismissal"]:
        notes.append("raised again: its evidence changed since it was dismissed")
    return f" ({'; '.join(notes)})" if notes else ""
