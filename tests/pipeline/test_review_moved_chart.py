"""A chart the change moves to another folder (its Chart.yaml renamed) is one chart, its base rendered
from the old folder: a move alone renders identically. Real git, real Helm."""

from __future__ import annotations

from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import app_chart
from gitrepo import commit, git, make_repo


def _moved(tmp_path, renderer, replicas: int):
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("charts/web", "web"), "feat: web")
    (repo / "apps").mkdir()
    git(repo, "mv", "charts/web", "apps/web")
    values = app_chart("apps/web", "web", replicas=replicas)["apps/web/values.yaml"]
    commit(repo, {"apps/web/values.yaml": values}, "refactor: move web under apps/")
    return review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)


def test_a_chart_moved_alone_renders_identically(tmp_path, renderer):
    result = _moved(tmp_path, renderer, replicas=2)
    (review,) = [r for r in result.review.chart_reviews if r.scenario == "default"]
    assert (review.chart, review.outcome, review.changes) == (
        "apps/web",
        ChartOutcome.UNCHANGED,
        (),
    )
    assert {o.template for o in review.base_objects} == {"charts/web/templates/deployment.yaml"}
    assert not [f for f in result.judgement.findings if f.actionable]
    said = render_markdown(review_document(result.review, result.judgement)).replace("\\", "")
    assert "`apps/web`: moved from charts/web, renders identically" in said


def test_a_chart_moved_and_changed_shows_only_the_change(tmp_path, renderer):
    result = _moved(tmp_path, renderer, replicas=3)
    (review,) = [r for r in result.review.chart_reviews if r.scenario == "default"]
    (change,) = review.changes
    assert (change.key.kind, change.kind.value) == ("Deployment", "changed")
    assert [f.path for f in change.fields] == ["spec.replicas"]
    assert "resource-deleted" not in {f.rule_id for f in result.judgement.findings}
