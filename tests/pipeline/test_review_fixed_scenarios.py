"""A scenario that fails at base by the chart's own guard and renders at head: the change fixes it."""

from __future__ import annotations

import io

from rich.console import Console

from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from aftershock.report.escape import markdown_text
from aftershock.report.terminal import print_terminal
from aftershock.report.text import scenario_label
from charts import chart_yaml
from gitrepo import commit, make_repo

GUARD = """\
{{- if and .Values.namespaced (not .Values.providers.crd) (not .Values.providers.ingress) }}
{{- fail "ERROR: namespaced rbac requires the CRD or Ingress provider." }}
{{- end }}
"""
ROLE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ if .Values.namespaced }}Role{{ else }}ClusterRole{{ end }}
metadata:
  name: proxy
rules: []
"""
VALUES = "namespaced: false\nproviders:\n  crd: true\n  ingress: false\n  knative: false\n"
# what the fix is for, as the chart's suite tests it: namespaced, with only the knative provider
# (the suite renders the guard's template alone, so no other template renders without it)
SUITE = """\
suite: requirements
templates: [requirements.yaml]
tests:
  - it: allows namespaced rbac with only knative
    set: {namespaced: true, providers: {crd: false, knative: true}}
    asserts: [{notFailedTemplate: {}}]
  - it: fails with no provider
    set: {namespaced: true, providers: {crd: false}}
    asserts: [{failedTemplate: {errorMessage: "ERROR: namespaced rbac requires the CRD, Ingress or Knative provider."}}]
"""
SCENARIO = "test:requirements_test.yaml/allows namespaced rbac with only knative"


def test_a_scenario_the_change_fixes_is_said_and_is_no_gap(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            "c/Chart.yaml": chart_yaml("c"),
            "c/values.yaml": VALUES,
            "c/tests/requirements_test.yaml": SUITE.split("  - it: fails")[0],
            "c/templates/requirements.yaml": GUARD,
            "c/templates/role.yaml": ROLE,
        },
        "feat: c",
    )
    fixed = GUARD.replace(
        "(not .Values.providers.ingress) }}",
        "(not .Values.providers.ingress) (not .Values.providers.knative) }}",
    ).replace("CRD or Ingress provider", "CRD, Ingress or Knative provider")
    commit(
        repo,
        {"c/templates/requirements.yaml": fixed, "c/tests/requirements_test.yaml": SUITE},
        "fix: namespaced rbac with knative",
    )
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    review = result.review
    (scenario,) = [r for r in review.chart_reviews if r.scenario == SCENARIO]
    assert scenario.outcome is ChartOutcome.FIXED
    assert "namespaced rbac requires" in (scenario.base.error or "")
    # the base's failure is what the change is for: observed, not a part not reviewed; the new
    # message, by the test that expects it (its render fails with it at head)
    assert review.complete, review.not_reviewed
    (failing,) = [r for r in review.chart_reviews if r.scenario.startswith("fails:")]
    assert failing.outcome is ChartOutcome.SCENARIO_INVALID and failing.probe
    head_fail = [c for c in review.changed_lines if c.side.value == "head" and c.lines == "2"]
    assert [(c.evidence, c.scenarios) for c in head_fail] == [
        ("text", ("fails:requirements_test.yaml/fails with no provider",))
    ]
    doc = review_document(result.review, result.judgement)
    (summary,) = doc["scenarios"]
    assert summary["fixed_in"] == [SCENARIO]
    merge = doc["findings"]["verdicts"]["merge"]
    assert merge["level"] == "low" and "render differently" in merge["reasons"][0]
    markdown = render_markdown(doc)
    label = markdown_text(scenario_label(SCENARIO))
    assert (
        f"renders in scenario {label}, which failed at base \\(the change fixes it\\)" in markdown
    )
    assert "ERROR: namespaced rbac requires the CRD or Ingress provider" in markdown
    # complete, but not "rendered at base and head": that scenario's base is the failure
    assert "except 1 scenario(s) that failed at base and render at head" in markdown
    console = Console(file=io.StringIO(), width=200)
    print_terminal(doc, console)
    assert "1 fixed (failed at base)" in console.file.getvalue()  # the charts table says it too
