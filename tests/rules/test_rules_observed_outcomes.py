"""Evidence that moves the verdict: a test newly failing at head, a chart that stops rendering.

Real repositories, real helm-unittest runs and real renders with the embedded Helm.
"""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, review_change
from charts import app_chart
from gitrepo import commit, make_repo

CHART = "charts/app"
REPLICAS_SUITE = """\
suite: deployment
templates: [templates/deployment.yaml]
tests:
  - it: runs two replicas
    asserts:
      - equal: {path: spec.replicas, value: 2}
"""
MODE_SUITE = """\
suite: mode
templates: [templates/deployment.yaml]
tests:
  - it: runs in fast mode
    asserts:
      - equal: {path: "spec.template.spec.containers[0].env[0].value", value: fast}
"""
REQUIRED = """\
{{- if .Values.strict }}{{ required "image is required in strict mode" .Values.strictImage }}{{- end }}
"""
FAILING_ON_PURPOSE = """\
suite: strict
templates: [templates/strict.yaml]
tests:
  - it: refuses strict mode without an image
    set: {strict: true}
    asserts:
      - failedTemplate: {errorMessage: "image is required in strict mode"}
"""


def review(tmp_path, renderer, base_files, head_files):
    repo = make_repo(tmp_path)
    commit(repo, base_files, "base")
    commit(repo, head_files, "head")
    result = review_change(ReviewRequest(repo=repo, base="HEAD~1", head="HEAD"), renderer)
    return result.judgement


def by_rule(judgement, rule):
    return [f for f in judgement.findings if f.rule_id == rule]


def test_a_test_newly_failing_is_a_finding_and_moves_the_verdict(tmp_path, renderer):
    base = {**app_chart(CHART, "app"), f"{CHART}/tests/mode_test.yaml": MODE_SUITE}
    judgement = review(
        tmp_path,
        renderer,
        base,
        {f"{CHART}/values.yaml": "replicas: 2\nimage: nginx:1.27.0\nmode: slow\n"},
    )
    [finding] = by_rule(judgement, "tests-newly-failing")
    assert (
        finding.actionable
        and finding.evidence.value == "observed"
        and finding.severity.value == "medium"
    )
    assert 'test "runs in fast mode"' in finding.message and "expected" in finding.message
    assert finding.location.file == f"{CHART}/tests/mode_test.yaml" and finding.location.line == 4
    assert judgement.verdicts.merge.level.value == "medium"


def test_a_failing_test_that_guards_availability_is_high(tmp_path, renderer):
    base = {**app_chart(CHART, "app"), f"{CHART}/tests/deployment_test.yaml": REPLICAS_SUITE}
    judgement = review(
        tmp_path,
        renderer,
        base,
        {f"{CHART}/values.yaml": "replicas: 1\nimage: nginx:1.27.0\nmode: fast\n"},
    )
    [finding] = by_rule(judgement, "tests-newly-failing")
    assert finding.severity.value == "high" and "spec.replicas" in finding.message
    assert judgement.verdicts.merge.level.value == "high"


def test_a_test_still_passing_is_no_finding(tmp_path, renderer):
    base = {**app_chart(CHART, "app"), f"{CHART}/tests/deployment_test.yaml": REPLICAS_SUITE}
    judgement = review(
        tmp_path,
        renderer,
        base,
        {f"{CHART}/values.yaml": "replicas: 2\nimage: nginx:1.27.1\nmode: fast\n"},
    )
    assert by_rule(judgement, "tests-newly-failing") == []


def test_a_chart_that_stops_rendering_is_a_high_finding(tmp_path, renderer):
    base = app_chart(CHART, "app")
    head = {
        f"{CHART}/templates/deployment.yaml": '{{ required "image.tag is required" .Values.missing }}\n'
    }
    judgement = review(tmp_path, renderer, base, head)
    [finding] = by_rule(judgement, "chart-render-broken")
    # the head renders with a placeholder for what it requires (pipeline/context/head_values.py), and fails without
    assert (
        finding.severity.value == "high"
        and "missing (placeholder)" in finding.message
        and "image.tag is required" in finding.message
    )
    assert judgement.verdicts.merge.level.value == "high"


def test_a_chart_that_stops_rendering_for_want_of_no_value_is_a_high_finding(tmp_path, renderer):
    base = app_chart(CHART, "app")
    head = {f"{CHART}/templates/deployment.yaml": '{{ fail "this chart is retired" }}\n'}
    judgement = review(tmp_path, renderer, base, head)
    [finding] = by_rule(judgement, "chart-render-broken")
    assert finding.severity.value == "high" and "this chart is retired" in finding.message


def test_a_test_written_to_fail_is_not_a_scenario_that_breaks(tmp_path, renderer):
    # `strict` has no default, so no toggle scenario sets it: only the test's own values do.
    head = {
        f"{CHART}/templates/strict.yaml": REQUIRED,
        f"{CHART}/tests/strict_test.yaml": FAILING_ON_PURPOSE,
    }
    repo = make_repo(tmp_path)
    commit(repo, app_chart(CHART, "app"), "base")
    commit(repo, head, "head")
    result = review_change(ReviewRequest(repo=repo, base="HEAD~1", head="HEAD"), renderer)
    # the test's values are no scenario; the guard the change writes on `strict` opens with a
    # made-up value (render/edited_guards.py), a probe whose failure is no break either
    assert [s.ran for s in result.review.scenarios] == [("default", "guard:strict=aftershock")]
    assert by_rule(result.judgement, "chart-render-broken") == []
    assert result.review.complete, result.review.not_reviewed
    assert result.judgement.verdicts.merge.level.value != "high"


def test_a_test_scenario_that_breaks_is_a_finding(tmp_path, renderer):
    """The same test without `failedTemplate` is a scenario of the chart, and its failure at head a break."""
    suite = FAILING_ON_PURPOSE.replace(
        'failedTemplate: {errorMessage: "image is required in strict mode"}',
        "hasDocuments: {count: 0}",
    )
    head = {f"{CHART}/templates/strict.yaml": REQUIRED, f"{CHART}/tests/strict_test.yaml": suite}
    judgement = review(tmp_path, renderer, app_chart(CHART, "app"), head)
    [finding] = by_rule(judgement, "chart-render-broken")
    assert "test:strict_test.yaml/refuses strict mode without an image" in finding.message
