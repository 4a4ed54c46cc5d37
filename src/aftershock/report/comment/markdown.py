"""Markdown for a pull-request comment, from the canonical JSON document: what the change does, the
verdicts, the tests newly failing, what was not reviewed and the concerns, whole; then the details,
folded and cut lowest priority first (report/comment/budget.py) to about 6,000 characters for a change of
at most five chart installs, and always within GitHub's 65,536."""

from __future__ import annotations

from typing import Any

from aftershock.graph.compact import expand_graph
from aftershock.model.review import PROBE_PREFIXES
from aftershock.report.comment.budget import Section, compose
from aftershock.report.comment.evidence_markdown import test_evidence_markdown
from aftershock.report.comment.findings_markdown import concerns_markdown
from aftershock.report.comment.mermaid import layered_mermaid
from aftershock.report.comment.objects_markdown import rendered_objects
from aftershock.report.comment.plain_diffs import plain_diffs
from aftershock.report.contexts import context_line, context_shown
from aftershock.report.escape import (
    html_text,
    markdown_code,
    markdown_text,
)
from aftershock.report.gaps import not_reviewed_lines
from aftershock.report.overview import (
    FieldGroup,
    chart_lines,
    field_groups,
    newly_failing_tests,
    one_line,
    scenario_lines,
    verdict_summaries,
)
from aftershock.report.shown import (
    alike_once,
    commit_line,
    values_lines,
)
from aftershock.report.text import (
    headline,
    outcome_cell,
    range_text,
    render_cell,
    review_label,
    status_line,
)
from aftershock.report.values_intent import intent_lines

MAX_MERMAID_NODES = 30
MAX_FINDINGS_CHARS = 30_000
MAX_COMMENT_CHARS = 65_536  # GitHub refuses comments over 65,536 characters
SHORT_COMMENT_INSTALLS = 5  # a change reaching so few installs is said in about
SHORT_COMMENT_CHARS = 6_000  # this much; the rest is in the JSON and the HTML
MAX_LISTED = 20  # failing tests and not-reviewed parts listed in the summary; the rest are counted
MAX_RATIONALE_CHARS = 2_000
GROUP_NAMED = 3  # objects a repeated field change names; the rest are counted
# A section's head and body lines, and its tail when the head opens a block (else the default tail).
Lines = (
    tuple[tuple[str, ...], tuple[str, ...]]
    | tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
)


MAX_VALUES_SAID = 3  # values key changes said under what the change does
MAX_INSTALL_CHARS = 8_000  # the installs said under what the change does; the rest are counted


def render_markdown(doc: dict[str, Any]) -> str:
    groups = field_groups(doc)
    grouped = {g.key for g in groups}
    sections = [
        Section("Header", (f"## aftershock review · `{range_text(doc)}`", ""), ()),
        # what the change does first: the intent a reviewer states, from what was observed
        Section("What changed", ("### What this change does", ""), tuple(_what_changed(doc))),
        Section("Scope", tuple(_scope(doc)), ()),
        Section("Verdicts", ("### Verdicts", ""), tuple(_verdicts(doc))),
        _section("Tests newly failing", _failing(doc)),
        _section("Not reviewed", _not_reviewed(doc)),
        Section("Concerns", (), tuple(_concerns(doc))),
        _section("Repeated field changes", _groups(groups), priority=3),
        _section("Tests", _tests(doc), priority=4),
        _section("Render contexts", _contexts(doc), priority=5),
        # bounded per chart: what ran and what was cut
        _section("Scenarios", _scenarios(doc), priority=2),
        _section("Charts", _charts(doc), priority=6),
        _section("Blast radius", _radius(doc), priority=7),
        # the diff itself before the drawings of where it reaches
        _section("Rendered objects", rendered_objects(doc, grouped), priority=3),
        _section(
            "Plain diff", plain_diffs(doc, grouped), priority=3
        ),  # as flux-local readers expect it
        _section("Values keys", _values(doc), priority=5),
        _section("Commits and files", _layers(doc), priority=9),
    ]
    installs = {r["id"].split("#", 1)[0] for r in doc["chart_reviews"]}
    target = SHORT_COMMENT_CHARS if len(installs) <= SHORT_COMMENT_INSTALLS else None
    return compose(sections, MAX_COMMENT_CHARS, target)


def _section(title: str, lines: Lines, priority: int = 0) -> Section:
    if len(lines) == 3:
        return Section(title, lines[0], lines[1], lines[2], priority=priority)
    return Section(title, lines[0], lines[1], priority=priority)


def _scope(doc: dict[str, Any]) -> list[str]:
    """The counts and the review's status, after what the change does (meaning before counts)."""
    lines = [f"**{headline(doc)}**", "", review_status_line(doc), ""]
    if "lifecycle" in doc:
        lines += [_review_state(doc["lifecycle"]), ""]
    return lines


def _verdicts(doc: dict[str, Any]) -> list[str]:
    """Each verdict, its top three reasons, and its rationale folded."""
    if "findings" not in doc:
        return ["The rules did not run: no verdict.", ""]
    lines: list[str] = []
    rationales = []
    for summary, key in zip(verdict_summaries(doc), ("merge", "security")):
        lines += (
            [f"**{markdown_text(summary.title)}**", ""]
            + [f"- {markdown_text(reason)}" for reason in summary.reasons]
            + [""]
        )
        rationale = doc["findings"]["verdicts"][key]["rationale"]
        rationales.append(f"{markdown_text(one_line(rationale, MAX_RATIONALE_CHARS))}")
    return lines + [
        "<details><summary>Why these verdicts</summary>",
        "",
        *("\n".join(rationales).split("\n")),
        "",
        "</details>",
        "",
    ]


def _what_changed(doc: dict[str, Any]) -> list[str]:
    """The commits' titles, then per chart install what rendered differently, then what the change
    does to each values file or release, by intent (a few; each key under "Values keys")."""
    count, titles = commit_line(doc)
    said = [f"{markdown_code(sha)} {markdown_text(title)}" for sha, title in titles]
    lines = [f"{count} commits, from {said[0]} to {said[1]}" if count > 1 else "".join(said), ""]
    lines += _install_lines(doc) or ["- No renderable chart is affected by this change."]
    values = alike_once(intent_lines(doc))
    lines += [
        f"- values {markdown_code(file)}: {markdown_text(text)}"
        for file, text in values[:MAX_VALUES_SAID]
    ]
    if len(values) > MAX_VALUES_SAID:
        lines.append(f"- … {len(values) - MAX_VALUES_SAID} more values file(s) below")
    return lines + [""]


def _install_lines(doc: dict[str, Any]) -> list[str]:
    """A line per chart install, those that render differently first, within MAX_INSTALL_CHARS
    (a library change reaches hundreds); then how many more the JSON and the HTML list."""
    said, room = [], MAX_INSTALL_CHARS
    installs = chart_lines(doc)
    for install in installs:
        # a chart install's label is a path; the folded identical ones' is a count ("4 other install(s)")
        label = markdown_code(install.label) if install.installs == 1 else install.label
        line = f"- {label}: {markdown_text(', '.join(install.phrases))}"
        if len(line) + 1 > room:
            break
        said.append(line)
        room -= len(line) + 1
    if len(said) < len(installs):
        left = sum(install.installs for install in installs[len(said) :])
        said.append(f"- … {left} more chart install(s) in the JSON output and the HTML report")
    return said


def _failing(doc: dict[str, Any]) -> Lines:
    failing = newly_failing_tests(doc)
    if not failing:
        return (), ()
    body = [f"- {markdown_text(line)}" for line in failing[:MAX_LISTED]]
    if len(failing) > MAX_LISTED:
        body.append(f"- … {len(failing) - MAX_LISTED} more in the JSON output")
    return (f"### Tests newly failing ({len(failing)})", ""), (*body, "")


def review_status_line(doc: dict[str, Any]) -> str:
    """The status line; an incremental review says it rendered only what changed since its start."""
    lifecycle = doc.get("lifecycle")
    if doc["status"] != "complete" or not lifecycle or lifecycle["mode"] != "incremental":
        return status_line(doc)
    return (
        f"Incremental review complete: the charts the commits since {(lifecycle['since'] or '')[:7]} reach were "
        "rendered at base and head; findings about the others are carried forward."
    )


def _review_state(lifecycle: dict[str, Any]) -> str:
    """How this review of the target was chosen: full or incremental, and why (a force-push says so)."""
    line = f"**{lifecycle['mode'].capitalize()} review of {markdown_text(lifecycle['target']['display'])}** · {markdown_text(lifecycle['reason'])}"
    if lifecycle["carried_forward"]:
        line += f" · {lifecycle['carried_forward']} finding(s) carried forward, not re-checked"
    return line


def _not_reviewed(doc: dict[str, Any]) -> Lines:
    parts = not_reviewed_lines(doc)
    context = not_reviewed_lines(doc, context=True)
    if not parts and not context:
        return (), ()
    body = [f"- {markdown_text(line)}" for line in parts[:MAX_LISTED]]
    if len(parts) > MAX_LISTED:
        body.append(f"- … {len(parts) - MAX_LISTED} more in the JSON output")
    if context:  # failing alike at both refs, the change reviewed elsewhere: not counted
        body += ["", "Context, failing alike at both refs (not counted):"]
        body += [f"- {markdown_text(line)}" for line in context[:MAX_LISTED]]
    return ("### Not reviewed", ""), (*body, "")


def _concerns(doc: dict[str, Any]) -> list[str]:
    if "findings" not in doc:
        return []
    text = concerns_markdown(
        doc["findings"],
        max_chars=MAX_FINDINGS_CHARS,
        lifecycle=doc.get("lifecycle"),
        touched=touched_objects(doc["objects"]),
    )
    return text.rstrip().split("\n") + [""]


def touched_objects(objects: list[dict[str, Any]]) -> frozenset[str]:
    """The objects the change touches in a real install: changed in a scenario of given values, not
    only in a probe's made-up ones (a guard opened, a value probed)."""
    return frozenset(
        o.get("identity", o["id"])
        for o in objects
        if not str(o.get("scenario", "default")).startswith(PROBE_PREFIXES)
    )


def _groups(groups: tuple[FieldGroup, ...]) -> Lines:
    """Identical field changes on many objects, each one line naming the first objects it was seen
    on (all of them in the JSON output and the HTML report)."""
    if not groups:
        return (), ()
    body: list[str] = []
    for group in groups:
        names = [o.split("::", 1)[-1] for o in group.objects]
        named = ", ".join(markdown_code(n) for n in names[:GROUP_NAMED]) + (
            f" and {len(names) - GROUP_NAMED} more" if len(names) > GROUP_NAMED else ""
        )
        body.append(
            f"- {markdown_code(group.path)} {markdown_text(group.text)} on {len(group.objects)} "
            f"objects in {len(group.charts)} chart install(s): {named}"
        )
    head = (
        "### Repeated field changes",
        "",
        "Each is listed once (and left out of the objects below):",
        "",
    )
    return head, tuple(body)


def _tests(doc: dict[str, Any]) -> Lines:
    if not doc.get("tests"):
        return (), ()
    text = test_evidence_markdown(doc["tests"]).rstrip()
    return (
        (
            "<details><summary>Tests: counts, suites that could not run, unguarded fields</summary>",
            "",
        ),
        tuple(text.split("\n")[1:]),
        ("", "</details>", ""),
    )


def _charts(doc: dict[str, Any]) -> Lines:
    if not doc["chart_reviews"]:
        return (), ()
    body = tuple(
        f"| {markdown_code(review_label(r), in_table=True)} | {outcome_cell(r)} | {render_cell(r['base'])} "
        f"| {render_cell(r['head'])} | {len(r['objects'])} |"
        for r in doc["chart_reviews"]
    )
    return (
        (
            "<details><summary>Charts rendered, per scenario</summary>",
            "",
            "| chart | outcome | base | head | objects changed |",
            "|---|---|---|---|---|",
        ),
        body,
        ("", "</details>", "", *_in_repository_dependencies(doc)),
    )


def _in_repository_dependencies(doc: dict[str, Any]) -> list[str]:
    """Remote dependencies rendered from a chart of this repository, and on what grounds."""
    how = {
        "in_repo_inferred": "inferred: same name, version in range",
        "in_repo_configured": "observed: .aftershock.yaml",
        "in_repo_locked": "observed: the version Chart.lock pins",
    }
    rendered = {r["chart"] for r in doc["chart_reviews"]}
    lines = sorted(
        {
            f"- {markdown_code(c['path'])} uses {markdown_code(d['resolved_path'])} for {markdown_code(d['name'])} "
            f"{markdown_text(d['version'])} from {markdown_text(d['repository'])} ({how[d['source']]})"
            for c in doc["charts"]
            if c["path"] in rendered
            for d in c["dependencies"]
            if d["source"] in how
        }
    )
    return (
        ["Dependencies rendered from this repository, never downloaded:", "", *lines, ""]
        if lines
        else []
    )


def _contexts(doc: dict[str, Any]) -> Lines:
    lines = tuple(
        f"- {markdown_text(context_line(c))}" for c in doc.get("contexts", ()) if context_shown(c)
    )
    return (("### Render contexts", ""), (*lines, "")) if lines else ((), ())


def _scenarios(doc: dict[str, Any]) -> Lines:
    lines = tuple(
        f"- {markdown_code(s.chart)}: {markdown_text(s.text)}" for s in scenario_lines(doc)
    )
    return (("### Scenarios", ""), lines) if lines else ((), ())


def _radius(doc: dict[str, Any]) -> Lines:
    graph = doc["graph"]
    if graph["radius"]["nodes"] == 0:
        return (), ()
    counts = ", ".join(f"{n} {layer}" for layer, n in graph["radius"]["by_layer"].items() if n)
    drawn = expand_graph(graph, doc["values_changes"], doc["files"])  # nodes by id, with layers
    chart = ("```mermaid", layered_mermaid(drawn, MAX_MERMAID_NODES).rstrip(), "```")
    return (
        (f"<details><summary>Blast radius: {html_text(counts)}</summary>", ""),
        chart,
        ("", "</details>", ""),
    )


def _values(doc: dict[str, Any]) -> Lines:
    if not doc["values_changes"]:
        return (), ()
    return ("### Values keys", ""), tuple(
        f"- {markdown_code(file)}: {markdown_text(text)}" for file, text in values_lines(doc)
    )


def _layers(doc: dict[str, Any]) -> Lines:
    lines = [
        f"- `{c['short_sha']}` {markdown_text(c['title'])} — {markdown_text(c['author']['name'])}"
        for c in doc["commits"]
    ]
    lines.append("")
    for f in doc["files"]:
        rename = (
            f" (from {markdown_code(f['old_path'])}, {f['similarity']}%)" if f["old_path"] else ""
        )
        lines.append(
            f"- {f['status']} {markdown_code(f['path'])}{rename} +{f['additions']} −{f['deletions']}"
        )
    return (
        ("<details><summary>Commits and files</summary>", ""),
        tuple(lines),
        ("", "</details>", ""),
    )
