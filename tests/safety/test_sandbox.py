"""One sandbox for the files helm-unittest suites open: values, snapshots, `-u` writes, chart links.

Each outside file below holds what would make its test pass: a test that passes would have read it.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from aftershock.model.test_results import JobStatus, RunResult
from aftershock.safety.sandbox import Sandbox, SandboxError
from aftershock.testrun.runner import run_suites

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    "values.yaml": "replicas: 1\n",
    "templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: {{ .Values.replicas }}\n",
}
OUTSIDE_VALUES = "replicas: 7\n"
SNAPSHOT = "renders:\n  1: |\n    7\n"


def suite(
    values: str = "",
    snapshot_id: str = "",
    assertion: str = "equal: {path: spec.replicas, value: 7}",
) -> str:
    return textwrap.dedent(f"""\
        suite: s
        templates: [deployment.yaml]
        {f"snapshotId: {snapshot_id!r}" if snapshot_id else ""}
        tests:
          - it: renders
            {f"values: [{values!r}]" if values else ""}
            set: {{replicas: 7}}
            asserts: [{{{assertion}}}]
        """)


def make_chart(root: Path, suite_text: str, *, values_at: str = "values.yaml") -> Path:
    chart = root / "repo" / "c"
    for name, text in {**CHART, "tests/s_test.yaml": suite_text}.items():
        (chart / name).parent.mkdir(parents=True, exist_ok=True)
        (chart / name).write_text(text)
    return chart


def only_test(result: RunResult):
    (chart,) = result.charts
    (s,) = chart.suites
    return s, (s.tests[0] if s.tests else None)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "secret-values.yaml"
    path.parent.mkdir()
    path.write_text(OUTSIDE_VALUES)
    return path


@pytest.mark.parametrize("kind", ["absolute", "relative"])
def test_values_outside_the_chart_are_refused_not_read(tmp_path, renderer, outside, kind):
    values = str(outside) if kind == "absolute" else "../../../outside/secret-values.yaml"
    chart = make_chart(
        tmp_path,
        suite(values=values, assertion="equal: {path: spec.replicas, value: 8}").replace(
            "set: {replicas: 7}", ""
        ),
    )
    outside.write_text("replicas: 8\n")
    _, test = only_test(run_suites([str(chart)], renderer))
    assert test.status is JobStatus.ERRORED
    assert "refused" in (test.exec_error or "") and "secret-values.yaml" in (test.exec_error or "")


def test_values_inside_the_repository_are_read(tmp_path, renderer):
    chart = make_chart(
        tmp_path,
        suite(
            values="../../shared.yaml", assertion="equal: {path: spec.replicas, value: 5}"
        ).replace("set: {replicas: 7}", ""),
    )
    (tmp_path / "repo" / ".git").mkdir()
    (tmp_path / "repo" / "shared.yaml").write_text("replicas: 5\n")
    _, test = only_test(run_suites([str(chart)], renderer))
    assert test.status is JobStatus.PASSED, test.exec_error


def test_a_values_link_leaving_the_root_is_refused(tmp_path, renderer, outside):
    chart = make_chart(
        tmp_path,
        suite(values="link.yaml", assertion="equal: {path: spec.replicas, value: 7}").replace(
            "set: {replicas: 7}", ""
        ),
    )
    os.symlink(outside, chart / "tests" / "link.yaml")
    result = run_suites([str(chart)], renderer)
    (c,) = result.charts
    assert not c.passed and "refused" in (
        c.error or ""
    )  # the chart's own link is refused before any test


def test_snapshot_id_cannot_read_outside_the_snapshot_folder(tmp_path, renderer):
    chart = make_chart(
        tmp_path,
        suite(
            snapshot_id="/../../../../outside/x", assertion="matchSnapshot: {path: spec.replicas}"
        ),
    )
    outside = (
        tmp_path
        / "repo"
        / "c"
        / "tests"
        / "__snapshot__"
        / "s_test.yaml_"
        / ".."
        / ".."
        / ".."
        / ".."
        / "outside"
    )
    outside.resolve().mkdir(parents=True, exist_ok=True)
    (outside.resolve() / "x.snap").write_text(SNAPSHOT.replace("7", "6"))
    s, _ = only_test(run_suites([str(chart)], renderer))
    assert (
        not s.passed and "snapshotId" in (s.exec_error or "") and "refused" in (s.exec_error or "")
    )


def test_update_never_writes_outside_the_snapshot_folder(tmp_path, renderer):
    chart = make_chart(
        tmp_path,
        suite(
            snapshot_id="/../../../../../escaped", assertion="matchSnapshot: {path: spec.replicas}"
        ),
    )
    s, _ = only_test(run_suites([str(chart)], renderer, update_snapshots=True))
    assert not s.passed and "refused" in (s.exec_error or "")
    assert not list(tmp_path.rglob("*escaped*"))


def test_a_snapshot_folder_linked_outside_is_refused(tmp_path, renderer):
    chart = make_chart(tmp_path, suite(assertion="matchSnapshot: {path: spec.replicas}"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, chart / "tests" / "__snapshot__")
    result = run_suites([str(chart)], renderer, update_snapshots=True)
    (c,) = result.charts
    assert not c.passed and "refused" in (c.error or "")
    assert list(elsewhere.iterdir()) == []


def test_update_writes_snapshots_inside(tmp_path, renderer):
    chart = make_chart(tmp_path, suite(assertion="matchSnapshot: {path: spec.replicas}"))
    s, _ = only_test(run_suites([str(chart)], renderer, update_snapshots=True))
    assert s.passed, s.exec_error
    assert (
        chart / "tests" / "__snapshot__" / "s_test.yaml.snap"
    ).read_text() == "renders:\n  1: |\n    7\n"


def test_sandbox_resolves_links_and_dots(tmp_path):
    (tmp_path / "root" / "a").mkdir(parents=True)
    os.symlink(tmp_path, tmp_path / "root" / "a" / "up")
    box = Sandbox.at(tmp_path / "root")
    assert box.resolve("a/../a", tmp_path / "root") == (tmp_path / "root" / "a").resolve()
    for path in ("../x", "a/up/x", "/etc/hostname"):
        with pytest.raises(SandboxError, match="refused"):
            box.resolve(path, tmp_path / "root")


def test_a_chart_yaml_linked_outside_is_refused_before_it_is_read(tmp_path, renderer):
    chart = make_chart(tmp_path, suite())
    elsewhere = tmp_path / "elsewhere.yaml"
    elsewhere.write_text("apiVersion: v2\nname: stolen-name\nversion: 0.1.0\n")
    (chart / "Chart.yaml").unlink()
    os.symlink(elsewhere, chart / "Chart.yaml")
    (c,) = run_suites([str(chart)], renderer).charts
    assert not c.passed and "refused" in (c.error or "") and c.name != "stolen-name"
