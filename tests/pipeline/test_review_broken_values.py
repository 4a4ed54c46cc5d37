"""A pull request that breaks a chart's values file does not stop the review: that file is not
reviewed, the chart's render at head fails (a finding), and the other charts are reviewed.

Real repositories in tmp folders, real renders with the embedded Helm.
"""

from __future__ import annotations

from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from charts import chart_yaml
from gitrepo import commit, make_repo

CONFIGMAP = (
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: NAME}\ndata: {x: "{{ .Values.x }}"}\n'
)


def chart(name: str, values: str) -> dict[str, str]:
    return {
        f"{name}/Chart.yaml": chart_yaml(name),
        f"{name}/values.yaml": values,
        f"{name}/templates/cm.yaml": CONFIGMAP.replace("NAME", name),
    }


def test_a_values_file_broken_at_head_is_not_reviewed_and_the_rest_is(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**chart("a", "x: 1\n"), **chart("b", "x: 1\n")}, "feat: charts")
    commit(repo, {"a/values.yaml": "- not\n- a mapping\n", "b/values.yaml": "x: 2\n"}, "head")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    review = result.review
    outcomes = {r.chart: r.outcome for r in review.chart_reviews if r.scenario == "default"}
    assert outcomes == {"a": ChartOutcome.NOT_REVIEWED, "b": ChartOutcome.CHANGED}
    (gap,) = [g for g in review.not_reviewed if g.part == "values file a/values.yaml"]
    assert "not a mapping" in gap.reason
    assert [v.path for v in review.values_changes] == ["x"]  # b's
    assert "chart-render-broken" in {f.rule_id for f in result.judgement.findings}


def test_a_chart_yaml_broken_at_head_fails_its_render_and_the_rest_is_reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**chart("a", "x: 1\n"), **chart("b", "x: 1\n")}, "feat: charts")
    commit(repo, {"a/Chart.yaml": "apiVersion: v2\nname: [a\n", "b/values.yaml": "x: 2\n"}, "head")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    outcomes = {r.chart: r.outcome for r in result.review.chart_reviews if r.scenario == "default"}
    assert outcomes == {"a": ChartOutcome.NOT_REVIEWED, "b": ChartOutcome.CHANGED}
    assert "chart-render-broken" in {f.rule_id for f in result.judgement.findings}
