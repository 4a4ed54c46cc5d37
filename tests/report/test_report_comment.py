"""The pull-request comment: summary first, within GitHub's 65,536 characters by construction.

The example history's comments are snapshots, rendered from the JSON snapshots of
test_review_example.py (set AFTERSHOCK_UPDATE_SNAPSHOTS=1 to rewrite them, then read the diff).
A review made much larger than any real one (every object and scenario repeated) must still fit,
with the verdicts, the concerns and the failing tests whole.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from aftershock.report.comment.budget import Section, compose
from aftershock.report.comment.markdown import MAX_COMMENT_CHARS, render_markdown
from aftershock.report.escape import markdown_text
from aftershock.report.overview import verdict_summaries
from aftershock.report.reading import readable_document
from example_states import RANGES, SNAPSHOTS

COMMENTS = Path(__file__).resolve().parents[1] / "snapshots" / "comment"


def example_doc(head: str) -> dict:
    return json.loads((SNAPSHOTS / f"{head}.json").read_text())


def assert_reads_well(text: str, doc: dict) -> None:
    """Under the limit; the verdicts and their reasons in the first 40 lines; every actionable concern shown."""
    assert len(text) <= MAX_COMMENT_CHARS
    first = "\n".join(text.split("\n")[:40])
    for key in ("merge", "security"):
        assert doc["findings"]["verdicts"][key]["title"] in first
    assert "### Concerns" in text
    actionable = [i for i in doc["findings"]["items"] if i["actionable"]]
    for verdict in verdict_summaries(doc):
        for reason in verdict.reasons:  # each verdict's reasons, as written (escaped) under it
            assert markdown_text(reason)[:60] in first, reason
    for item in actionable:
        assert f"`{item['rule']}`" in text
    assert text.count("<details") == text.count("</details>")
    assert text.count("```") % 2 == 0


@pytest.mark.parametrize("base, head", RANGES, ids=[b for _, b in RANGES])
def test_example_comment_matches_snapshot(base, head):
    doc = example_doc(head)
    text = render_markdown(doc)
    assert_reads_well(text, doc)
    path = COMMENTS / f"{head}.md"
    if os.environ.get("AFTERSHOCK_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text()


def test_the_example_says_what_changed_and_collapses_the_repeated_label():
    text = render_markdown(example_doc("demo-head"))
    summary = text[: text.index("### Concerns")]
    # rendered in its context (the orders HelmRelease): the Deployment is orders/orders; Markdown escaped
    assert "- `charts/apps/orders`: replicas 2 → 3 \\(Deployment orders\\)" in summary
    assert "### Tests newly failing (1)" in summary
    assert "runs two replicas by default" in summary
    group = '- `metadata.labels["app.kubernetes.io/part-of"]` added "platform" on 13 objects in 2 chart install(s): `core/ConfigMap/orders/orders`'
    assert group in text
    objects = text[text.index("### Rendered objects") :]
    assert (
        'metadata.labels["app.kubernetes.io/part-of"]: added' not in objects
    )  # listed once, as the group


def test_a_version_bump_is_named():
    doc = example_doc("demo-head")
    chart = next(c for c in doc["charts"] if c["path"] == "charts/apps/orders")
    chart["base_version"], chart["base_app_version"] = "1.7.9", "2.14.0"
    text = render_markdown(doc)
    assert (
        "- `charts/apps/orders`: version 1.7.9 → 1.8.0, appVersion 2.14.0 → 2.14.1, replicas 2 → 3"
        in text
    )


def enlarged(doc: dict, times: int) -> dict:
    """The example review with every object, scenario name and test repeated `times` times."""
    big = copy.deepcopy(doc)
    big["objects"] = [
        dict(
            o, id=f"{o['id']}-{n}", fields=[dict(f, after=f"{f['after']}-{n}") for f in o["fields"]]
        )
        for n in range(times)
        for o in doc["objects"]
    ]
    for s in big["scenarios"]:
        s["cut"] = [f"toggle:feature{n}.enabled=true" for n in range(times * 40)]
    chart = big["tests"]["charts"][0]
    failing = [t for t in chart["tests"] if t["change"] == "newly_failing"]
    chart["tests"] += [dict(t, test=f"{t['test']} {n}") for n in range(times) for t in failing]
    return big


def test_a_huge_review_still_fits_with_its_summary_whole():
    doc = enlarged(example_doc("demo-head"), 200)
    text = render_markdown(doc)
    assert_reads_well(text, doc)
    assert "### Tests newly failing (201)" in text and "- … 181 more in the JSON output" in text
    assert (
        "cut by the cap: toggle:feature0.enabled=true" in text
        and "and 7995 more \\(in the JSON\\)" in text
    )  # escaped Markdown
    assert (
        "more line(s) of this section are in the JSON output" in text
        or "left out to keep this comment" in text
    )


def test_a_change_reaching_hundreds_of_installs_names_the_first_and_counts_the_rest():
    """A library change reaches every chart of a platform repository: what the change does names
    the installs that fit and counts the others, and the comment stays within GitHub's limit."""
    doc = example_doc("demo-head")
    copies = range(400)  # each chart, its reviews and objects again under another path
    doc["charts"] = [dict(c, path=f"{c['path']}-{n:03}") for n in copies for c in doc["charts"]]
    doc["chart_reviews"] = [
        dict(r, id=f"{install}-{n:03}{sep}{rest}", chart=f"{r['chart']}-{n:03}")
        for n in copies
        for r in doc["chart_reviews"]
        for install, sep, rest in [r["id"].partition("#")]
    ]
    doc["objects"] = [
        dict(o, id=f"{o['id']}-{n:03}", review=f"{install}-{n:03}{sep}{rest}")
        for n in copies
        for o in doc["objects"]
        for install, sep, rest in [o["review"].partition("#")]
    ]
    installs = {r["id"].split("#", 1)[0] for r in doc["chart_reviews"]}
    text = render_markdown(doc)
    assert len(text) <= MAX_COMMENT_CHARS
    said = text.split("### What this change does", 1)[1].split("\n### ", 1)[0]
    named = [line for line in said.splitlines() if line.startswith("- `")]
    assert len(named) > 10 and all(" other install(s)" not in line for line in named)
    assert f"- … {len(installs) - len(named)} more chart install(s) in the JSON output" in said


def test_compose_cuts_optional_sections_by_priority_and_never_required_ones():
    required = Section("Verdict", ("### Verdict", ""), ("x" * 500,))
    details = Section(
        "Details",
        ("<details>", ""),
        tuple(f"line {n}" for n in range(1000)),
        ("</details>", ""),
        priority=2,
    )
    more = Section("More", ("### More", ""), ("y" * 300,), priority=1)
    text = compose([required, details, more], 2_000)
    assert len(text) <= 2_000
    assert "x" * 500 in text and "y" * 300 in text  # priority 1 placed before priority 2
    assert (
        text.index("### Verdict") < text.index("<details>") < text.index("### More")
    )  # display order kept
    assert "line 0" in text and "line 999" not in text and "more line(s) of this section" in text
    assert text.count("<details>") == text.count("</details>")


def test_a_table_left_out_whole_leaves_no_empty_table():
    """sapcc's one-chart reviews cut the charts table before its first row: the comment showed its
    header over the note saying where it is, an empty table."""
    table = Section(
        "Charts",
        ("<details><summary>Charts</summary>", "", "| chart | outcome |", "|---|---|"),
        tuple(f"| `c{n}` | changed |" for n in range(100)),
        ("", "</details>", ""),
        priority=2,
    )
    text = compose([Section("Verdict", ("### Verdict", ""), ("x" * 500,)), table], 700)
    assert "left out to keep this comment short" in text
    assert "| chart |" not in text and "|---|" not in text


def test_compose_refuses_required_sections_over_the_limit():
    with pytest.raises(ValueError, match="required comment sections"):
        compose([Section("Verdict", ("v",), ("x" * 5_000,))], 1_000)


def test_the_blast_radius_chart_fits_a_comment():
    """Top to bottom, one box per layer with its count, about 30 nodes, at most four side by side."""
    from aftershock.report.comment.mermaid import layered_mermaid

    graph = readable_document(enlarged(example_doc("demo-head"), 1))["graph"]  # nodes by id
    text = layered_mermaid(graph, 30)
    assert text.startswith("flowchart TB\n")
    nodes = [line for line in text.splitlines() if line.startswith("    n") or "_more[" in line]
    assert len(nodes) <= 30
    by_layer = graph["radius"]["by_layer"]
    file_block = text.split('  subgraph file["')[1].split("  end")[0]
    shown = file_block.count("    n")
    assert (
        f'subgraph file["Files ({by_layer["file"]})"]' in text
        and f'file_more["+{by_layer["file"] - shown} more"]' in file_block
    )
    blocks = text.split("  subgraph ")[1:]
    assert all(
        sum(line.startswith(("    n", f"    {b.split('[')[0]}_more")) for line in b.splitlines())
        <= 4
        for b in blocks
    )  # at most four nodes
    assert all(len(line.split('["', 1)[1]) <= 36 for line in nodes)  # labels cut to 32 characters


def test_the_terminal_starts_with_the_same_summary():
    import io

    from rich.console import Console

    from aftershock.report.terminal import print_terminal

    console = Console(file=io.StringIO(), width=200)
    print_terminal(example_doc("demo-head"), console)
    text = console.file.getvalue()
    order = [
        text.index(s)
        for s in (
            "charts/apps/orders: replicas 2 → 3",  # what the change does, first
            "Merge risk: High",
            "newly failing charts/apps/orders",
            'repeated metadata.labels["app.kubernetes.io/part-of"] added "platform" on 13 objects',
            "changed Deployment.apps",
        )
    ]
    assert order == sorted(order)


def test_an_install_at_the_repository_root_is_labelled_dot():
    """A Flux Kustomization of path `./` built what lies at the root: its chart path is empty."""
    from aftershock.report.text import install_label, review_label

    review = {
        "chart": "",
        "release": "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/apps",
        "scenario": "default",
    }
    assert install_label(review) == review_label(review) == ". via Kustomization flux-system/apps"
    assert (
        install_label({**review, "release": "helm.toolkit.fluxcd.io/HelmRelease/_/x"})
        == ". via HelmRelease x"
    )


def test_a_chart_that_rendered_in_no_scenario_never_reads_identical(tmp_path, renderer):
    """A chart failing at head in every scenario: the scenarios line says it rendered in none."""
    from aftershock.pipeline import ReviewRequest, run_review
    from aftershock.report.canonical import review_document
    from charts import app_chart
    from gitrepo import commit, make_repo

    files = app_chart("c", "c")
    files["c/values.yaml"] += "ingress:\n  enabled: false\n"
    files["c/templates/ingress.yaml"] = "{{- if .Values.ingress.enabled }}{{- end }}\n"
    repo = make_repo(tmp_path)
    base = commit(repo, files, "feat: chart")
    # a values schema the defaults break: the chart fails as a whole (its error names no template)
    commit(repo, {"c/values.schema.json": '{"type": "object", "required": ["region"]}\n'}, "break")
    doc = review_document(run_review(ReviewRequest(repo=repo, base=base), renderer))
    (summary,) = doc["scenarios"]
    assert summary["not_reviewed_in"] == summary["ran"] and len(summary["ran"]) == 2
    (line,) = [line for line in render_markdown(doc).split("\n") if line.startswith("- `c`: 2 ran")]
    assert "identically" not in line and "rendered in no scenario" in line


def test_the_html_header_says_first_what_the_change_does():
    from aftershock.report.html import render_html

    page = render_html(example_doc("demo-head"))
    what = page[page.index('<div class="what">') :]
    assert what.startswith('<div class="what">7 commits: 96fa738 feat(orders): run three replicas')
    assert "<b>charts/apps/orders</b>: replicas 2 → 3 (Deployment orders)" in what
    assert page.index('<div class="what">') < page.index("<main>")


def test_the_installs_that_render_identically_fold_into_a_count_not_set_as_a_path():
    doc = example_doc("demo-head")
    first = doc["chart_reviews"][0]
    same = [
        dict(first, id=c, chart=c, release=None, scenario="default", outcome="unchanged")
        for c in ("lib/a", "lib/b", "lib/c")
    ]
    doc["chart_reviews"] = doc["chart_reviews"] + same
    said = render_markdown(doc).split("### What this change does", 1)[1].split("\n### ", 1)[0]
    assert "- 3 other install(s): render identically \\(lib/a, lib/b, …\\)" in said


def test_the_scenarios_the_cap_cut_are_counted_not_named_when_every_changed_line_ran():
    doc = example_doc("demo-head")
    (summary, *_) = doc["scenarios"]
    chart = summary["chart"]
    summary["cut"] = ["toggle:a.enabled=true", "toggle:b.enabled=true"]
    run = {"path": f"{chart}/templates/x.yaml", "side": "head", "first": 3, "last": 3}
    doc["changed_lines"] = [dict(run, evidence="traced", scenarios=["default"])]
    assert "2 cut by the cap \\(named in the JSON; every changed line ran\\)" in render_markdown(
        doc
    )
    doc["changed_lines"].append(dict(run, side="base", evidence="none", scenarios=[]))
    assert "2 cut by the cap: toggle:a.enabled=true, toggle:b.enabled=true" in render_markdown(doc)
