"""Running helm-unittest suites of a small chart with real Helm (the embedded SDK renderer)."""

from __future__ import annotations

import io
import shutil
import tempfile
import textwrap
from pathlib import Path

import pytest

from aftershock.helmtest.junit import junit_xml
from aftershock.model.test_results import JobStatus, RunResult, SuiteResult
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.testrun import cli_entry
from aftershock.testrun.runner import run_suites

FILES = {
    "Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\nkubeVersion: '>=1.25.0-0'\n",
    "values.yaml": "replicas: 1\nfail: false\n",
    "templates/_helpers.tpl": '{{- define "c.name" -}}web{{- end -}}\n',
    "templates/deployment.yaml": """\
        {{- if .Values.fail }}{{ fail "fail requested" }}{{ end -}}
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ include "c.name" . }}
          labels: {app: web, chart: "c-{{ .Chart.Version }}"}
          annotations: {kube: "{{ .Capabilities.KubeVersion.Version }}"}
        spec:
          replicas: {{ .Values.replicas }}
        """,
    "templates/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
    "templates/checksum.yaml": """\
        apiVersion: v1
        kind: Secret
        metadata:
          name: s
          annotations:
            sum: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
        """,
    "tests/deploy_test.yaml": """\
        suite: deployment
        templates: [deployment.yaml]
        tests:
          - it: renders the defaults
            asserts:
              - equal: {path: spec.replicas, value: 1}
              - matchSnapshot: {path: metadata.labels}
          - it: shares the render of the first test
            asserts:
              - isKind: {of: Deployment}
              - matchSnapshot: {path: metadata.name}
          - it: takes set values
            set: {replicas: 3}
            asserts: [{equal: {path: spec.replicas, value: 3}}]
          - it: overrides the chart version
            chart: {version: 9.9.9}
            asserts: [{equal: {path: "metadata.labels.chart", value: c-9.9.9}}]
          - it: sets the Kubernetes version
            capabilities: {majorVersion: 1, minorVersion: 27}
            asserts: [{equal: {path: "metadata.annotations.kube", value: v1.27.0}}]
          - it: keeps the previous test's Kubernetes version, as helm-unittest does
            asserts: [{equal: {path: "metadata.annotations.kube", value: v1.27.0}}]
          - it: asserts a failure
            set: {fail: true}
            asserts: [{failedTemplate: {errorMessage: fail requested}}]
          - it: needs a post-renderer
            postRenderer: {cmd: ./kustomize.sh}
            asserts: [{isKind: {of: Deployment}}]
        """,
    "tests/__snapshot__/deploy_test.yaml.snap": """\
        renders the defaults:
          1: |
            app: web
            chart: c-0.1.0
        """,
    "tests/checksum_test.yaml": """\
        suite: checksum alone
        templates: [checksum.yaml]
        tests:
          - it: cannot include an unselected template, as upstream
            asserts:
              - failedTemplate: {errorPattern: 'no template "c/templates/configmap.yaml"'}
        ---
        suite: checksum with its config map
        templates: [checksum.yaml, configmap.yaml]
        tests:
          - it: renders
            asserts:
              - hasDocuments: {count: 1}
                template: checksum.yaml
        """,
}


@pytest.fixture(scope="module")
def chart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("helmtest") / "c"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


@pytest.fixture(scope="module")
def result(chart: Path) -> RunResult:
    with SdkRenderer(workers=2) as renderer:
        return run_suites([str(chart)], renderer)


def test_every_suite_behaves_as_upstream(result: RunResult):
    (chart,) = result.charts
    failures = {
        test.name: (test.exec_error, [a.fail_info for a in test.assertions])
        for suite in chart.suites
        for test in suite.tests
        if test.status not in (JobStatus.PASSED, JobStatus.SKIPPED)
    }
    assert failures == {}
    assert chart.passed and [suite.passed for suite in chart.suites] == [True, True, True]
    skipped = [t for s in chart.suites for t in s.tests if t.status == JobStatus.SKIPPED]
    assert [t.name for t in skipped] == ["needs a post-renderer"]
    assert skipped[0].unsupported and "postRenderer" in skipped[0].skip_reason


def _suite(result: RunResult, name: str) -> SuiteResult:
    (suite,) = [suite for suite in result.suites() if suite.name == name]
    return suite


def test_renders_are_shared_and_snapshots_never_rewritten(result: RunResult, chart: Path):
    deployment = _suite(result, "deployment")
    keys = [test.render_key for test in deployment.tests]
    assert keys[0] == keys[1] and keys[4] == keys[5]  # same inputs, one render
    assert len(set(keys[:7])) == 5
    assert result.stats.tests_rendered == 9
    assert result.stats.renders == 7
    assert (
        result.stats.inputs_any_selection == 5
    )  # the checksum suites render the defaults: only their selections differ
    assert deployment.snapshots.total == 2 and deployment.snapshots.created == 1
    stored = (chart / "tests/__snapshot__/deploy_test.yaml.snap").read_text()
    assert stored == textwrap.dedent(FILES["tests/__snapshot__/deploy_test.yaml.snap"])


def test_assertion_results_name_template_document_and_value(result: RunResult):
    takes_set = _suite(result, "deployment").tests[2]
    (checked,) = takes_set.assertions[0].checked
    assert (
        checked.template,
        checked.document_index,
        checked.path,
        checked.actual,
        checked.passed,
    ) == ("c/templates/deployment.yaml", 0, "spec.replicas", 3, True)
    assert takes_set.assertions[0].expected == 3


def test_junit_report(result: RunResult):
    xml = junit_xml(result)
    assert xml.count("<testsuite ") == 3 and xml.count("<testcase ") == 10
    assert "<skipped message=\"SKIPPED 'needs a post-renderer'" in xml


def test_console_entry_point(chart: Path, tmp_path: Path):
    failing = tmp_path / "failing"
    failing.mkdir()
    for name in (
        "Chart.yaml",
        "values.yaml",
        "templates/_helpers.tpl",
        "templates/deployment.yaml",
    ):
        (failing / name).parent.mkdir(parents=True, exist_ok=True)
        (failing / name).write_text(textwrap.dedent(FILES[name]))
    (failing / "tests").mkdir()
    (failing / "tests/fail_test.yaml").write_text(
        textwrap.dedent("""\
        suite: wrong expectation
        templates: [deployment.yaml]
        tests:
          - it: expects two replicas
            asserts: [{equal: {path: spec.replicas, value: 2}}]
        """)
    )
    out = io.StringIO()
    junit = tmp_path / "report.xml"
    code = cli_entry.run([str(failing)], junit=str(junit), workers=1, color=False, out=out)
    text = out.getvalue()
    assert code == 1
    assert "Test Suites: 1 failed, 0 passed, 1 total" in text
    assert "Tests:       1 failed, 0 passed, 1 total" in text
    assert "\t\t- asserts[0] `equal` fail\n\t\t\tTemplate:\tc/templates/deployment.yaml" in text
    assert '<failure message="Failed"' in junit.read_text()
    missing = io.StringIO()
    assert (
        cli_entry.run([str(tmp_path / "nope")], junit=None, workers=1, color=False, out=missing)
        == 2
    )
    assert missing.getvalue().startswith("Error: no such chart or folder")


def test_chart_copies_on_the_same_file_system_never_change_the_chart(tmp_path: Path):
    """Copies are hard links where they can be (here: the chart in the copies' own folder); a copy's
    Chart.yaml is edited by replacing it, so the chart itself keeps its version."""
    from aftershock.render.workspaces.tempdirs import fast_temp_root

    root = Path(tempfile.mkdtemp(prefix="aftershock-test-chart-", dir=fast_temp_root()))
    try:
        chart = root / "c"
        for name, text in FILES.items():
            path = chart / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        before = (chart / "Chart.yaml").read_text()
        with SdkRenderer(workers=1) as renderer:
            result = run_suites([str(chart)], renderer)
        (deployment,) = [s for s in result.suites() if s.name == "deployment"]
        assert {t.name: t.status for t in deployment.tests}[
            "overrides the chart version"
        ] == JobStatus.PASSED
        assert (chart / "Chart.yaml").read_text() == before
        assert sorted(p.name for p in (chart / "templates").iterdir()) == sorted(
            Path(name).name for name in FILES if name.startswith("templates/")
        )  # nothing pruned here
    finally:
        shutil.rmtree(root, ignore_errors=True)


KUBE_SUITE = """\
suite: kube
templates: [deployment.yaml]
tests:
  - it: sets the Kubernetes version
    capabilities: {majorVersion: "1", minorVersion: "29"}
    asserts: [{equal: {path: metadata.annotations.kube, value: v1.29.0}}]
  - it: keeps the version the test before set
    asserts: [{equal: {path: metadata.annotations.kube, value: v1.29.0}}]
  - it: keeps it again
    asserts: [{isKind: {of: Deployment}}]
"""


def test_left_out_tests_are_not_rendered_and_their_kubernetes_version_still_carries_over(
    tmp_path: Path,
):
    """A caller (a review's base side) may leave tests out: they are reported not run, never passed,
    and a left-out test that sets the Kubernetes version still sets it for the tests after it."""
    chart = tmp_path / "c"
    for name, text in {**FILES, "tests/kube_test.yaml": KUBE_SUITE}.items():
        path = chart / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    skip = frozenset(
        {
            ("tests/kube_test.yaml", "sets the Kubernetes version"),
            ("tests/kube_test.yaml", "keeps it again"),
        }
    )
    with SdkRenderer(workers=1) as renderer:
        whole = run_suites([str(chart)], renderer, test_files=("tests/kube_test.yaml",))
        left = run_suites(
            [str(chart)],
            renderer,
            test_files=("tests/kube_test.yaml",),
            skip_tests={str(chart): skip},
        )
    (suite,) = left.suites()
    statuses = {t.name: t.status for t in suite.tests}
    assert statuses == {
        "sets the Kubernetes version": JobStatus.NOT_RUN,
        "keeps the version the test before set": JobStatus.PASSED,
        "keeps it again": JobStatus.NOT_RUN,
    }
    assert (left.stats.tests_rendered, whole.stats.tests_rendered) == (1, 3)
