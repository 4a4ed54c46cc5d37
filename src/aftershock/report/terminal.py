"""Terminal output with rich, derived from the canonical JSON document."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from aftershock.report.text import (
    field_line, headline, object_title, range_text, render_cell, review_label, status_line, text_diff,
)

MAX_FIELDS_PER_OBJECT = 25


def print_terminal(doc: dict[str, Any], console: Console) -> None:
    console.print(f"[bold]aftershock review[/bold] {range_text(doc)}")
    console.print(headline(doc))
    style = "green" if doc["status"] == "complete" else "yellow"
    console.print(f"[{style}]{escape(status_line(doc))}[/{style}]")
    if "findings" in doc:
        _print_findings(doc["findings"], console)
    for item in doc["not_reviewed"]:
        side = f" at {item['side']}" if item["side"] else ""
        console.print(f"  [yellow]not reviewed[/yellow] {escape(item['part'])}{side}: {escape(item['reason'])}")
    if doc["chart_reviews"]:
        console.print(_charts_table(doc))
    for obj in [o for o in doc["objects"] if not o["same_as_default"]]:
        console.print(f"[bold]{obj['change']}[/bold] {escape(object_title(obj))}  [dim]{escape(', '.join(obj['templates']))}[/dim]")
        for field in obj["fields"][:MAX_FIELDS_PER_OBJECT]:
            console.print(f"    {escape(field_line(field))}")
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
        table.add_row(review_label(r), r["outcome"].replace("_", " "), render_cell(r["base"]), render_cell(r["head"]), str(len(r["objects"])))
    return table


_SEVERITY_STYLE = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "cyan", "info": "dim"}


def _print_findings(section: dict[str, Any], console: Console) -> None:
    for key in ("merge", "security"):
        verdict = section["verdicts"][key]
        console.print(f"[bold]{escape(verdict['title'])}[/bold]")
        console.print(f"  [dim]{escape(verdict['rationale'])}[/dim]")
    actionable = [i for i in section["items"] if i["actionable"]]
    if not actionable:
        console.print(f"{escape(section['headline'])}.")
    for item in actionable:
        style = _SEVERITY_STYLE.get(item["severity"], "")
        label = f"{item['severity'].capitalize()} · {item['category']} · {item['evidence']}"
        console.print(f"  [{style}]{escape(label)}[/{style}]: {escape(item['message'])}  [dim]{item['rule']}[/dim]")
