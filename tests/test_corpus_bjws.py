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

from aftershock.helmtest.runner import run_suites

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
    failed = [f"{suite.file}: {suite.exec_error or [t.name for t in suite.tests if not t.passed]}"
              for suite in suites if not suite.passed]
    assert failed == []
    assert len(suites) == 171
    assert sum(len(suite.tests) for suite in suites) == 726
    assert result.passed
