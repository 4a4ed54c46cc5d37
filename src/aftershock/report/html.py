"""The HTML explorer: one self-contained file (inline CSS, JS and data, no network). A review column
on the left holds the verdicts with their reasons, the findings (a finding selects its objects in the
graph) and the tests newly failing; the impact graph in layer columns fits the window, with pan and
zoom, search, and a clicked node's causes and effects with its details, among them the test guard
map of a changed object; a header button opens the test summary. Everything is keyboard reachable.

It shows only what the review document holds, where Secret values are already redacted.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from aftershock.report.gaps import not_reviewed_groups
from aftershock.report.overview import chart_lines
from aftershock.report.shown import commit_line
from aftershock.report.values_intent import intent_lines

WARNING_LINES = 4  # parts not reviewed listed open in the header; the rest behind "N more"
WHAT_LINES = 3  # chart installs said in the header's line of what the change does

# Nothing may load from elsewhere: inline script and style only, images only as data: URLs.
_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"


def render_html(doc: dict[str, Any]) -> str:
    """The explorer for `doc`: the canonical review document with a "graph" key (graph_document)."""
    title = f"aftershock · {doc['base']['ref']}..{doc['head']['ref']}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>
{_asset("explorer.css")}
</style>
</head>
<body>
<header>
<h1>aftershock impact graph</h1>
<span class="range">{html.escape(doc["base"]["ref"])}..{html.escape(doc["head"]["ref"])}</span>
<span class="chips">{_chips(doc)}</span>
{_tests_button(doc)}
<input id="search" type="search" placeholder="Search nodes by name or id" aria-label="Search nodes">
<span id="search-count"></span>
{_what(doc)}
{_warning(doc)}
</header>
<main>
<nav id="review" aria-label="verdicts, findings and tests"></nav>
<div id="graph" tabindex="0" aria-label="impact graph: arrows pan, + and - zoom, 0 fits"></div>
<aside id="panel" aria-live="polite"></aside>
</main>
<script type="application/json" id="aftershock-data">{_embed(doc)}</script>
<script>
{_asset("document.js")}
{_asset("tests.js")}
{_asset("review.js")}
{_asset("panzoom.js")}
{_asset("explorer.js")}
</script>
</body>
</html>
"""


def _asset(name: str) -> str:
    return (
        resources.files("aftershock.report")
        .joinpath("html_assets", name)
        .read_text(encoding="utf-8")
    )


def _embed(doc: dict[str, Any]) -> str:
    """JSON that cannot end the script element or open markup: <, > and & as \\u escapes."""
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def _chips(doc: dict[str, Any]) -> str:
    graph = doc.get("graph") or {}
    by_layer = (graph.get("radius") or {}).get("by_layer", {})
    chips = [
        f'<span class="chip"><b>{int(count)}</b> {html.escape(layer.replace("_", " "))}</span>'
        for layer, count in by_layer.items()
        if count
    ]
    status = "complete" if doc.get("status") == "complete" else "partial: some parts not reviewed"
    return "".join(chips) + f'<span class="chip">{html.escape(status)}</span>'


def _what(doc: dict[str, Any]) -> str:
    """What the change does, first: the commit's title (or the first and last) and what each chart
    install renders differently, as the comment and the terminal open."""
    count, shown = commit_line(doc)
    titles = " … ".join(f"{sha} {title}" for sha, title in shown)
    said = f"{count} commits: {titles}" if count > 1 else titles
    lines = chart_lines(doc)
    items = [
        f"<li><b>{html.escape(line.label)}</b>: {html.escape(', '.join(line.phrases))}</li>"
        for line in lines[:WHAT_LINES]
    ]
    if len(lines) > WHAT_LINES:
        items.append(f"<li>and {len(lines) - WHAT_LINES} more chart install(s)</li>")
    items += [
        f"<li>values <b>{html.escape(file)}</b>: {html.escape(text)}</li>"
        for file, text in intent_lines(doc)[:WHAT_LINES]
    ]
    return f'<div class="what">{html.escape(said)}<ul>{"".join(items)}</ul></div>'


def _warning(doc: dict[str, Any]) -> str:
    """The parts not reviewed (a chart's missing dependencies on one line); past the first few, the
    rest behind a disclosure, so that a long list does not push the graph off the page."""
    groups = not_reviewed_groups(doc)
    if not groups:
        return ""
    items = [
        f"<li><b>{html.escape(g.part)}</b>{' at ' + html.escape(g.side) if g.side else ''}: "
        f"{html.escape(g.reason)}</li>"
        for g in groups
    ]
    cut = WARNING_LINES if len(items) > WARNING_LINES + 1 else len(items)  # never "1 more"
    shown, rest = items[:cut], items[cut:]
    more = (
        f"<details><summary>{len(rest)} more</summary><ul>{''.join(rest)}</ul></details>"
        if rest
        else ""
    )
    return (
        f'<div class="warning">Not reviewed, so not shown as fine:<ul>{"".join(shown)}</ul>'
        f"{more}</div>"
    )


def _tests_button(doc: dict[str, Any]) -> str:
    """The header's way to the test summary: its counts on a button, or why there are none."""
    tests = doc.get("tests")
    if tests is None:
        return '<span class="chip">tests not run</span>'
    summary = tests["summary"]
    changes, problems = summary["tests"], summary["problems"]
    parts = [f"{int(summary['head_tests'])} tests"]
    parts += (
        [f"{len(tests['untested_charts'])} chart(s) with 0 suites"]
        if tests.get("untested_charts")
        else []
    )
    parts += [f"{int(changes['newly_failing'])} newly failing"] if changes["newly_failing"] else []
    parts += [
        f"{int(problems[kind])} {kind}"
        for kind in ("unguarded", "stale", "vacuous")
        if problems[kind]
    ]
    alarm = changes["newly_failing"] or summary["suite_errors"] or any(problems.values())
    return (
        f'<button id="tests-button" type="button" class="{"alarm" if alarm else "calm"}" '
        f'aria-controls="panel">Tests: {html.escape(" · ".join(parts))}</button>'
    )
