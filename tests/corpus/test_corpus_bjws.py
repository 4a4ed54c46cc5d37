"""The bjw-s library chart's helm-unittest suites, run natively as its CI runs them.

The corpus bundle holds the history of github.com/bjw-s-labs/helm-charts: the library chart
`charts/library/common` and, inside it, `test-chart` (which depends on it by `file://../`), whose
suites CI runs after `helm dep update` with `helm unittest -f "unittests/**/*_test.yaml" .`; they
all pass upstream at the bundle's HEAD: 171 suites (one per file), 726 tests.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aftershock.testrun.runner import run_suites
from conftest import CORPUS

BUNDLE = CORPUS / "bjw-s-helm-charts.bundle"
pytestmark = pytest.mark.skipif(not BUNDLE.is_file(), reason=f"corpus bundle {BUNDLE} is absent")


@pytest.fixture(scope="module")
def bjws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("bjws") / "helm-charts"
    subprocess.run(["git", "clone", "-q", str(BUNDLE), str(dest)], check=True, capture_output=True)
    return dest


def test_every_suite_of_the_test_chart_passes_as_upstream(bjws: Path, renderer):
    chart = bjws / "charts/library/common/test-chart"
    result = run_suites([str(chart)], renderer, test_files=("unittests/**/*_test.yaml",))
    suites = [suite for chart_result in result.charts for suite in chart_result.suites]
    failed = [
        f"{suite.file}: {suite.exec_error or [t.name for t in suite.tests if not t.passed]}"
        for suite in suites
        if not suite.passed
    ]
    assert failed == []
    assert len(suites) == 171
    assert sum(len(suite.tests) for suite in suites) == 726
    assert result.passed


# Reviews of real commits (first-parent, `C^..C`, without the suites, as `--no-tests`):
# - 72cbacc releases common 4.1.1: the test chart renders through its `file://../` dependency, and
#   app-template, which pins common 4.1.0 from the project's https repository, through the common
#   this repository held at 4.1.0 (at base the tree's own, at head an earlier commit's);
# - 9191546 moves app-template to common 4.1.1: the tree's own common at head, an earlier one at base.
@pytest.mark.parametrize(
    "sha, charts",
    [
        ("72cbacc", {"charts/library/common/test-chart", "charts/other/app-template"}),
        ("9191546", {"charts/other/app-template"}),
    ],
)
def test_reviews_render_every_affected_chart_at_both_refs(
    bjws: Path, renderer, sha: str, charts: set[str]
):
    from aftershock.model.review import RenderStatus
    from aftershock.pipeline import ReviewRequest, run_review

    review = run_review(
        ReviewRequest(repo=bjws, base=f"{sha}^", head=sha, run_tests=False), renderer
    )
    # a kustomization of the repository's examples that uses helmCharts is not built (it would run
    # Helm); changed lines no scenario ran (branches for values no CI file sets) are said per line
    unexercised = {f"template {c.path} lines " for c in review.changed_lines if not c.exercised}
    assert [
        g.part
        for g in review.not_reviewed
        if not g.part.startswith("kustomization ")
        and not any(g.part.startswith(t) for t in unexercised)
    ] == []
    assert any(c.evidence == "traced" for c in review.changed_lines) == (sha == "72cbacc")
    charts_here = {
        c.path for c in review.charts
    }  # plain manifests and kustomizations of examples/ are sources too
    rendered = {
        r.chart
        for r in review.chart_reviews
        if r.chart in charts_here and r.base.status is r.head.status is RenderStatus.OK
    }
    assert rendered == charts
    (app,) = [c for c in review.charts if c.path == "charts/other/app-template"][:1]
    assert {d.source.value for d in app.dependencies} == {"in_repo_inferred"}
