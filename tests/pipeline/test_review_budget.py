"""A review's render budget: the whole-review deadline and the bound on the count of renders, with
real SDK renders of real git repositories; what they cut is not reviewed, and the review still ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.render.budget import DEFAULT_MAX_REVIEW_RENDERS, BudgetedRenderer, RenderBudget
from aftershock.render.interface import RenderRequest
from aftershock.render.limits import Deadline
from charts import app_chart
from gitrepo import commit, make_repo

PROJECT = Path(__file__).resolve().parents[2]
# Hangs (hours of CPU in constant memory) only when a test sets mode=hang.
HANGS_IN_TESTS = (
    '{{- if eq .Values.mode "hang" }}{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}{{ end }}\n'
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: probe}\ndata: {n: {{ .Values.n | default 0 | quote }}}\n"
)
TESTS = 40


def _suite(count: int) -> str:
    tests = "".join(
        f"  - it: hangs {i}\n    set: {{mode: hang, n: {i}}}\n    asserts:\n      - isKind: {{of: ConfigMap}}\n"
        for i in range(count)
    )
    return f"suite: hanging\ntemplates: [templates/probe.yaml]\ntests:\n{tests}"


def test_a_hanging_template_with_many_tests_ends_by_the_deadline(tmp_path):
    repo = make_repo(tmp_path)
    files = {
        **app_chart("charts/web", "web"),
        "charts/web/templates/probe.yaml": HANGS_IN_TESTS,
        "charts/web/tests/probe_test.yaml": _suite(TESTS),
    }
    base = commit(repo, files, "feat: web with tests")
    commit(
        repo,
        {"charts/web/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "feat: three replicas",
    )
    report = tmp_path / "review.json"
    env = dict(os.environ, PYTHONPATH=str(PROJECT / "src"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "aftershock.cli",
            "review",
            "--repo",
            str(repo),
            "--base",
            base,
            "--no-state",
            "--render-cache",
            "off",
            "--max-scenarios",
            "1",
            "--deadline",
            "8",
            "--format",
            "json",
            "--output",
            str(report),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,  # a guard against a hang, not a measure: the deadline's cut is asserted below
    )
    assert done.returncode == 3, done.stderr  # partial: something was not reviewed
    doc = json.loads(report.read_text())
    gaps = {(item["part"], item["reason"]) for item in doc["not_reviewed"]}
    assert ("helm-unittest suites", "review deadline of 8 s reached") in gaps, gaps
    (chart,) = doc["chart_reviews"]
    assert chart["outcome"] == "changed"  # what was rendered before the deadline is kept
    assert "not reviewed: helm-unittest suites: review deadline of 8 s reached" in done.stderr
    assert "Chart tests were not reviewed (review deadline of 8 s reached)." in json.dumps(doc)


def test_the_render_count_bound_leaves_the_excess_not_reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo, {**app_chart("charts/web", "web"), **app_chart("charts/api", "api")}, "feat: charts"
    )
    commit(
        repo,
        {
            "charts/web/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n",
            "charts/api/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n",
        },
        "feat: three replicas",
    )
    review = run_review(
        ReviewRequest(repo=repo, base=base, max_renders=2, run_tests=False), renderer
    )
    outcomes = {r.chart: r.outcome for r in review.chart_reviews}
    assert outcomes == {"charts/api": ChartOutcome.CHANGED, "charts/web": ChartOutcome.NOT_REVIEWED}
    assert {(g.part, g.reason) for g in review.not_reviewed} == {
        ("chart charts/web", "render count bound of 2 reached"),
        (
            "provenance perturbation renders",
            "render count bound of 2 reached",
        ),  # the bound holds after the charts too
    }
    default = ReviewRequest(repo=repo, base=base, run_tests=False)
    assert (
        default.max_renders == DEFAULT_MAX_REVIEW_RENDERS
    )  # not another step's own bound of the same name
    unbounded = run_review(default, renderer)
    assert {r.outcome for r in unbounded.chart_reviews} == {ChartOutcome.CHANGED}
    assert unbounded.not_reviewed == ()


def test_a_render_running_at_the_deadline_is_stopped_with_its_reason(tmp_path, renderer):
    chart = tmp_path / "hang"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: hang\nversion: 0.1.0\n")
    (chart / "templates" / "probe.yaml").write_text(HANGS_IN_TESTS)
    budget = RenderBudget(Deadline.after(2.0), max_renders=10)
    bounded = BudgetedRenderer(renderer, budget)
    hung, later = bounded.render_many(
        [
            RenderRequest(str(chart), values={"mode": "hang"}),
            RenderRequest(str(chart), values={"mode": "hang", "n": 1}),
        ]
    )
    # stopped by the deadline, not by the 60 s render timeout: the reason says which
    assert hung.error == later.error == "review deadline of 2 s reached"
    (refused,) = bounded.render_many([RenderRequest(str(chart))])
    assert refused.error == "review deadline of 2 s reached" and budget.cuts == 3
    (fine,) = renderer.render_many([RenderRequest(str(chart))])  # the stopped worker was replaced
    assert fine.error is None


def test_a_scenario_stopped_at_both_refs_by_the_deadline_is_not_reviewed_not_invalid(
    tmp_path, renderer
):
    """Regression: a scenario whose renders failed alike at base and head was taken as one the chart
    rejects (not a gap), even when the failure was a bound (the deadline, a timeout), not Helm's error."""
    repo = make_repo(tmp_path)
    files = {
        **app_chart("charts/web", "web"),
        "charts/web/templates/probe.yaml": HANGS_IN_TESTS,
        "charts/web/values-hang.yaml": "mode: hang\n",
    }
    base = commit(repo, files, "feat: web")
    commit(
        repo,
        {"charts/web/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "feat: three replicas",
    )
    review = run_review(
        ReviewRequest(repo=repo, base=base, run_tests=False, deadline_seconds=5), renderer
    )
    outcomes = {r.scenario: r.outcome for r in review.chart_reviews}
    assert outcomes["file:values-hang.yaml"] is ChartOutcome.NOT_REVIEWED, outcomes
    assert (
        "chart charts/web in scenario file:values-hang.yaml",
        "review deadline of 5 s reached",
    ) in {(g.part, g.reason) for g in review.not_reviewed}
