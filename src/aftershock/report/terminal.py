"""Terminal output with rich, derived from the canonical JSON document: the summary (report/overview.py) first."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from aftershock.model.timings import StageTiming
from aftershock.report.comment.evidence_markdown import tests_summary_line
from aftershock.report.comment.findings_markdown import suppression_notes
from aftershock.report.comment.markdown import review_status_line
from aftershock.report.concern_groups import grouped
from aftershock.report.contexts import context_line, context_shown
from aftershock.report.escape import terminal_text
from aftershock.report.gaps import labelled_gaps
from aftershock.report.overview import (
    chart_lines,
    field_groups,
    newly_failing_tests,
    verdict_summaries,
)
from aftershock.report.shown import (
    field_where,
    ignored_line,
    listed_objects,
    merged_across_scenarios,
)
from aftershock.report.text import (
    field_line,
    headline,
    install_label,
    object_title,
    outcome_cell,
    provenance_index,
    range_text,
    render_cell,
    text_diff,
)
from aftershock.report.values_intent import intent_lines

MAX_FIELDS_PER_OBJECT = 25

if TYPE_CHECKING:  # rich is loaded by the terminal format alone (cli/review.py reads quiet_lines)
    from rich.console import Console
    from rich.table import Table


def print_terminal(doc: dict[str, Any], console: Console) -> None:
    console.print(f"[bold]aftershock review[/bold] {range_text(doc)}")
    console.print(headline(doc))
    style = "green" if doc["status"] == "complete" else "yellow"
    console.print(f"[{style}]{terminal_text(review_status_line(doc))}[/{style}]")
    if "lifecycle" in doc:
        _print_review_state(doc["lifecycle"], console)
    _print_summary(doc, console)
    if "findings" in doc:
        _print_findings(doc["findings"], console, doc.get("lifecycle"))
    for label, group in labelled_gaps(doc):
        side = f" at {group.side}" if group.side else ""
        console.print(
            f"  [yellow]{label}[/yellow] {terminal_text(group.part, name=True)}{side}: {terminal_text(group.reason)}"
        )
    for entry in doc.get("contexts", ()):
        if context_shown(entry):
            console.print(f"  [cyan]context[/cyan] {terminal_text(context_line(entry))}")
    if doc["chart_reviews"]:
        console.print(_charts_table(doc))
    if doc.get("tests") is not None:
        console.print(f"[bold]tests[/bold] {terminal_text(tests_summary_line(doc['tests']))}")
    produced_by = provenance_index(doc)
    for obj in merged_across_scenarios(listed_objects(doc["objects"])):
        console.print(
            f"[bold]{obj['change']}[/bold] {terminal_text(object_title(obj), name=True)}  [dim]{terminal_text(', '.join(obj['templates']), name=True)}[/dim]"
        )
        for field in obj["fields"][:MAX_FIELDS_PER_OBJECT]:
            source = produced_by.get((field["id"], field["path"]))
            where = field_where(obj, field)
            console.print(
                f"    {terminal_text(field_line(field))}"
                + (f"  [dim]({terminal_text(where)})[/dim]" if where else "")
                + (f"  [cyan]{terminal_text(source)}[/cyan]" if source else "")
            )
            for line in text_diff(field) or ():
                style = (
                    "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
                )
                console.print(f"      [{style}]{terminal_text(line)}[/{style}]")
        if len(obj["fields"]) > MAX_FIELDS_PER_OBJECT:
            console.print(
                f"    … {len(obj['fields']) - MAX_FIELDS_PER_OBJECT} more (see --format json)"
            )
    if ignored := ignored_line(doc):
        console.print(f"[dim]{terminal_text(ignored)}[/dim]")


def profile_lines(timings: Sequence[StageTiming]) -> list[str]:
    """`--profile`: one line per stage, its wall and CPU seconds and its share of the CPU, then the total."""
    cpu = sum(t.cpu_seconds for t in timings)
    lines = [f"aftershock: {'stage':<16} {'wall s':>8} {'CPU s':>8} {'CPU %':>6}"]
    for t in timings:
        share = 100 * t.cpu_seconds / cpu if cpu > 0 else 0.0
        lines.append(
            f"aftershock: {t.stage:<16} {t.wall_seconds:>8.2f} {t.cpu_seconds:>8.2f} {share:>5.0f}%"
        )
    wall = sum(t.wall_seconds for t in timings)
    lines.append(f"aftershock: {'total':<16} {wall:>8.2f} {cpu:>8.2f}")
    return lines


def quiet_lines(doc: dict[str, Any]) -> list[str]:
    """The review in three lines, for pre-commit (`--quiet`): the range and the merge verdict, the
    security verdict, the status."""
    titles = (
        [doc["findings"]["verdicts"][key]["title"] for key in ("merge", "security")]
        if "findings" in doc
        else ["no verdicts"]
    )
    return [f"aftershock {range_text(doc)}: {titles[0]}", *titles[1:], review_status_line(doc)]


def _print_summary(doc: dict[str, Any], console: Console) -> None:
    """What changed per chart, then the verdicts with their top reasons, the tests newly failing,
    repeated field changes."""
    for line in chart_lines(doc):
        console.print(
            f"[cyan]{terminal_text(line.label)}[/cyan]: {terminal_text(', '.join(line.phrases))}"
        )
    for file, text in intent_lines(doc):  # what it does to each values file, by intent
        console.print(
            f"[cyan]values[/cyan] {terminal_text(file, name=True)}: {terminal_text(text)}"
        )
    # each verdict once, with its reasons; the paragraph of why is in the other formats
    for verdict in verdict_summaries(doc):
        console.print(f"[bold]{terminal_text(verdict.title)}[/bold]")
        for reason in verdict.reasons:
            console.print(f"  - {terminal_text(reason)}")
    for test in newly_failing_tests(doc):
        console.print(f"[red]newly failing[/red] {terminal_text(test)}")
    for group in field_groups(doc):
        console.print(f"[dim]repeated[/dim] {terminal_text(group.line)}")


def _charts_table(doc: dict[str, Any]) -> Table:
    """One row per chart install: its default render, and how its scenarios came out (each
    scenario's row is in the Markdown and the JSON)."""
    from rich.table import Table

    table = Table("chart", "outcome", "base", "head", "objects changed", title="Affected charts")
    installs: dict[str, list[dict[str, Any]]] = {}
    for r in doc["chart_reviews"]:
        installs.setdefault(r["id"].split("#", 1)[0], []).append(r)
    # objects changed per install, each once across its scenarios
    changed = Counter(
        i.rsplit("::", 1)[0] for i in {o["identity"] for o in doc["objects"] if "identity" in o}
    )
    for install, reviews in installs.items():
        first = reviews[0]
        outcomes = [r["outcome"] for r in reviews]
        outcome = outcome_cell(first)
        if len(reviews) > 1:
            moved = sum(o == "changed" for o in outcomes)
            outcome += f"; {len(reviews)} scenarios, {moved} changed"
            fixed = sum(o == "fixed" for o in outcomes)
            outcome += f", {fixed} fixed (failed at base)" if fixed else ""
        table.add_row(
            terminal_text(install_label(first), name=True),
            outcome,
            render_cell(first["base"]),
            render_cell(first["head"]),
            str(changed[install] or len(first["objects"])),
        )
    return table


_SEVERITY_STYLE = {
    "critical": "bold red",
    "high": "red",
    "medium": "yellow",
    "low": "cyan",
    "info": "dim",
}


def _print_review_state(lifecycle: dict[str, Any], console: Console) -> None:
    style = "yellow" if lifecycle["force_pushed"] else "dim"
    line = f"{lifecycle['mode']} review of {lifecycle['target']['display']}: {lifecycle['reason']}"
    if lifecycle["carried_forward"]:
        line += f"; {lifecycle['carried_forward']} finding(s) carried forward, not re-checked"
    console.print(f"[{style}]{terminal_text(line)}[/{style}]")


def _print_findings(
    section: dict[str, Any], console: Console, lifecycle: dict[str, Any] | None
) -> None:
    # the verdicts are printed once, in the summary above
    actionable = [i for i in section["items"] if i["actionable"]]
    if lifecycle is not None:
        _print_lifecycle(actionable, lifecycle, console)
    else:
        if not actionable:
            console.print(f"{terminal_text(section['headline'])}.")
        for item in grouped(actionable):
            _print_item(item, console)
    _print_repository_says(section, console, suppression_notes(lifecycle, ""))


def _print_repository_says(
    section: dict[str, Any], console: Console, notes: dict[str, str]
) -> None:
    for notice in section.get("notices", []):
        console.print(f"[yellow]note:[/yellow] {terminal_text(notice)}")
    suppressed = section.get("suppressed", [])
    if suppressed:
        console.print(f"[bold]suppressed ({len(suppressed)})[/bold]")
    for item in suppressed:
        console.print(
            f"  [dim]{terminal_text(item['message'])} · {item['rule']} · {terminal_text(item['source'])}: "
            f"{terminal_text(item['reason'])}{notes.get(item['fingerprint'], '')}[/dim]"
        )


def _print_item(item: dict[str, Any], console: Console, note: str = "") -> None:
    style = _SEVERITY_STYLE.get(item["severity"], "")
    label = f"{item['severity'].capitalize()} · {item['category']} · {item['evidence']}"
    # a group's fingerprint is its first finding's: the JSON has each
    fingerprint = "" if item.get("grouped") else f" {item['fingerprint'][:12]}"
    console.print(
        f"  [{style}]{terminal_text(label)}[/{style}]: {terminal_text(item['message'])}  [dim]{item['rule']}{fingerprint}{terminal_text(note)}[/dim]"
    )


def _print_lifecycle(
    actionable: list[dict[str, Any]], lifecycle: dict[str, Any], console: Console
) -> None:
    """New and retained concerns, then those resolved since the last head and the dismissed ones."""
    console.print(f"{terminal_text(lifecycle['headline'])}.")
    entries = {e["fingerprint"]: e for state in ("new", "retained") for e in lifecycle[state]}
    retained = {e["fingerprint"] for e in lifecycle["retained"]}
    for title, members in (
        ("new", [i for i in actionable if i["fingerprint"] not in retained]),
        ("retained", [i for i in actionable if i["fingerprint"] in retained]),
    ):
        if members:
            console.print(f"[bold]{title} ({len(members)})[/bold]")
        for item in members:
            _print_item(item, console, _note(entries.get(item["fingerprint"])))
    resolved = [e for e in lifecycle["resolved"] if e["actionable"]]
    if resolved:
        console.print(
            f"[bold]resolved since {(lifecycle['previous_head'] or '')[:7]} ({len(resolved)})[/bold]"
        )
    for entry in resolved:
        console.print(
            f"  [green]{terminal_text(entry['message'])}[/green]  [dim]{entry['rule']} {entry['fingerprint'][:12]}[/dim]"
        )
    if lifecycle["dismissed"]:
        console.print(f"[bold]dismissed ({len(lifecycle['dismissed'])})[/bold]")
    for entry in lifecycle["dismissed"]:
        d = entry["dismissal"]
        console.print(
            f"  [dim]{terminal_text(entry['message'])} · {entry['fingerprint'][:12]} · by {terminal_text(d['by'] or 'someone')} "
            f"on {d['at'][:10]}: {terminal_text(d['reason'])}[/dim]"
        )


def _note(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return ""
    notes = ["carried forward, not re-checked"] if entry["carried_forward"] else []
    if entry["lapsed_dismissal"]:
        notes.append("raised again: its evidence changed since it was dismissed")
    return f" ({'; '.join(notes)})" if notes else ""
