"""Conformance with helm-unittest on the shared corpus (skipped when ../shared/corpus is absent).

* The fixture charts of helm-unittest (`helm-unittest-v3/`, its `test/data/v3`) must give the
  results helm-unittest's own tests expect; the source of each expectation is noted beside it.
* Every suite of the traefik chart at `master` must pass, as it does upstream.

One upstream feature is not supported (post-renderers, which run a command from the repository):
its tests must be reported skipped with the reason, never passed. helm-unittest's fake cluster for
`lookup` (`kubernetesProvider`) is served as a cluster snapshot: those tests run.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from aftershock.model.test_results import JobStatus, RunResult
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.testrun.runner import run_suites
from aftershock.testrun.summary import write_report

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
FIXTURES = CORPUS / "helm-unittest-v3"
TRAEFIK = CORPUS / "traefik-helm-chart.bundle"

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"corpus not found at {CORPUS}"),
]

UPSTREAM_TESTS = "helm-unittest pkg/unittest/test_runner_test.go"
UPSTREAM_OUTPUT = "helm-unittest pkg/unittest/.snapshots"
MAKEFILE = "helm-unittest Makefile TEST_NAMES (charts its release checks run and expect to pass)"

# fixture, suite files, whether it passes, summary lines, source of the expectation
EXPECTATIONS = [
    (
        "basic",
        "tests/*_test.yaml",
        True,
        [
            "Test Suites: 15 passed, 3 skipped, 18 total",
            "Tests:       47 passed, 4 skipped, 51 total",
            "Snapshot:    5 passed, 5 total",
        ],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithPassedTests; {UPSTREAM_OUTPUT}/TestV3RunnerOkWithPassedTests",
    ),
    (
        "basic",
        "tests_failed/*_test.yaml",
        False,
        [
            "Test Suites: 9 failed, 0 passed, 9 total",
            "Tests:       17 failed, 1 errored, 0 passed, 17 total",
            "Snapshot:    2 passed, 2 total",
        ],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithFailedTests (expects failure); "
        f"{UPSTREAM_OUTPUT}/TestV3RunnerOkWithFailedTests",
    ),
    (
        "failing-template",
        "tests/*_test.yaml",
        True,
        ["Test Suites: 2 passed, 2 total", "Tests:       3 passed, 3 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithFailingTemplatePassedTest",
    ),
    (
        "full-snapshot",
        "tests/*_test.yaml",
        True,
        ["Tests:       3 passed, 3 total", "Snapshot:    17 passed, 17 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithFullsnapshot",
    ),
    (
        "global-double-setting",
        "tests/*_test.yaml",
        True,
        ["Test Suites: 3 passed, 3 total", "Tests:       5 passed, 5 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkGlobalDoubleWithPassedTests",
    ),
    (
        "invalidbasic",
        "tests/*_test.yaml",
        False,
        ["Charts:      1 failed, 1 errored, 0 passed, 1 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerInvalidTestSuiteFailfast (expects failure); "
        "pkg/unittest/test_suite_test.go (no tests found / no asserts found)",
    ),
    ("library-chart", "tests/*_test.yaml", True, ["Test Suites: 0 passed, 0 total"], MAKEFILE),
    ("nested_glob", "tests/*_test.yaml", True, ["Test Suites: 1 passed, 1 total"], MAKEFILE),
    ("with-crds", "tests/*_test.yaml", True, ["Test Suites: 2 passed, 2 total"], MAKEFILE),
    (
        "with-disabled-subchart-on-condition",
        "tests/*_test.yaml",
        True,
        ["Charts:      1 passed, 1 total", "Test Suites: 0 passed, 0 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithSkippedTestsWhenSubchartDisabledOnCondition",
    ),
    (
        "with-disabled-subchart-on-tags",
        "tests/*_test.yaml",
        True,
        ["Charts:      1 passed, 1 total", "Test Suites: 4 passed, 4 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithSkippedTestsWhenSubchartDisabledOnTags",
    ),
    (
        "with-document-select",
        "tests/*_test.yaml",
        True,
        ["Test Suites: 8 passed, 8 total", "Tests:       13 passed, 13 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithDocumentSelect",
    ),
    (
        "with-document-select",
        "tests_failed/*_test.yaml",
        False,
        ["Test Suites: 3 failed, 0 passed, 3 total", "Tests:       5 failed, 0 passed, 5 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithDocumentSelectorWithFailedTests (expects failure)",
    ),
    (
        "with-files",
        "tests/*_test.yaml",
        True,
        ["Tests:       1 passed, 1 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithFiles",
    ),
    ("with-helm-tests", "tests/*_test.yaml", True, ["Test Suites: 4 passed, 4 total"], MAKEFILE),
    # Upstream: 4 suites, 5 tests pass (TestV3RunnerOkWithFakeK8sClient), three of them with
    # kubernetesProvider objects, their lookups matching the stored snapshots.
    (
        "with-k8s-fake-client",
        "tests/*_test.yaml",
        True,
        [
            "Test Suites: 4 passed, 4 total",
            "Tests:       5 passed, 5 total",
            "Snapshot:    4 passed, 4 total",
        ],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithFakeK8sClient",
    ),
    (
        "with-packaged-0.1.0.tgz",
        "tests/*_test.yaml",
        True,
        ["Test Suites: 0 passed, 0 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkPackagedChart",
    ),
    # Upstream: 2 suites, 4 tests pass (TestV3RunnerOkWithPostRenderer); post-renderers run a
    # command from the repository, which aftershock never does.
    (
        "with-post-renderer",
        "tests/*_test.yaml",
        True,
        ["Test Suites: 1 passed, 1 skipped, 2 total", "Tests:       1 passed, 3 skipped, 4 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithPostRenderer (postRenderer unsupported)",
    ),
    (
        "with-samenamesubsubcharts",
        "tests/*_test.yaml",
        True,
        ["Tests:       3 passed, 3 total"],
        MAKEFILE,
    ),
    (
        "with-schema",
        "tests/*_test.yaml",
        True,
        ["Tests:       1 passed, 1 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithSchemaValidation",
    ),
    (
        "with-subchart",
        "tests/*_test.yaml",
        True,
        [
            "Test Suites: 14 passed, 14 total",
            "Tests:       30 passed, 30 total",
            "Snapshot:    10 passed, 10 total",
        ],
        f"{UPSTREAM_TESTS} TestV3RunnerWithTestsInSubchart",
    ),
    (
        "with-subfolder",
        "tests/*_test.yaml",
        True,
        ["Test Suites: 4 passed, 4 total", "Tests:       16 passed, 16 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithSubSubfolder",
    ),
    (
        "with-subsubcharts",
        "tests/*_test.yaml",
        True,
        ["Test Suites: 3 passed, 3 total", "Tests:       5 passed, 5 total"],
        f"{UPSTREAM_TESTS} TestV3RunnerOkWithSubSubChartsPassedTests",
    ),
]


@pytest.fixture(scope="module")
def renderer():
    with SdkRenderer(workers=2) as sdk:
        yield sdk


def _report(result: RunResult) -> str:
    out = io.StringIO()
    write_report(result, out, color=False)
    return out.getvalue()


@pytest.mark.parametrize(
    ("fixture", "files", "passes", "lines", "source"),
    EXPECTATIONS,
    ids=[f"{e[0]}:{e[1].split('/')[0]}" for e in EXPECTATIONS],
)
def test_fixture_behaves_as_upstream_expects(renderer, fixture, files, passes, lines, source):
    result = run_suites([str(FIXTURES / fixture)], renderer, test_files=(files,))
    report = _report(result)
    assert result.passed is passes, f"{source}\n{report}"
    for line in lines:
        assert line in report, f"{source}\n{report}"
    for test in (t for suite in result.suites() for t in suite.tests):
        if test.status == JobStatus.SKIPPED and test.unsupported:
            assert "not supported" in test.skip_reason


@pytest.mark.skipif(not TRAEFIK.is_file(), reason=f"traefik bundle not found at {TRAEFIK}")
def test_every_traefik_suite_passes_at_master(renderer, tmp_path: Path):
    repo = tmp_path / "traefik-helm-chart"
    subprocess.run(
        ["git", "clone", "--quiet", "--branch", "master", str(TRAEFIK), str(repo)], check=True
    )
    result = run_suites([str(repo / "traefik")], renderer)
    report = _report(result)
    suites = result.suites()
    assert suites and all(suite.passed for suite in suites), report
    tests = [test for suite in suites for test in suite.tests]
    assert not [t.name for t in tests if t.status in (JobStatus.FAILED, JobStatus.ERRORED)]
    assert not [t.name for t in tests if t.status == JobStatus.SKIPPED]
    # the two tests that give kubernetesProvider objects pass by what `lookup` found in them
    looked_up = [
        t
        for t in tests
        if t.name
        in (
            "should be possible to specify custom annotations",
            "should be possible to specify custom webhook certificate from existing secret",
        )
    ]
    assert len(looked_up) == 2 and all(t.status == JobStatus.PASSED for t in looked_up)
    assert result.stats.renders < result.stats.tests_rendered
