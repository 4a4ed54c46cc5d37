"""Chart discovery, dependencies (file://, embedded, symlinked, archived, remote) and affected charts."""

from __future__ import annotations

from dataclasses import replace

import pytest

from aftershock.ingest.affected import affected_charts
from aftershock.ingest.chart_owners import owning_chart
from aftershock.ingest.charts import discover_charts
from aftershock.model.change import FileChange, FileStatus
from aftershock.model.units import ChartType, DependencySource
from memtree import MemoryTree


def chart_yaml(name: str, *, kind: str = "application", deps: str = "") -> str:
    return f"apiVersion: v2\nname: {name}\nversion: 0.1.0\ntype: {kind}\n{deps}"


def platform() -> MemoryTree:
    return MemoryTree(
        files={
            "lib/common/Chart.yaml": chart_yaml("common", kind="library"),
            "lib/common/templates/_labels.tpl": '{{- define "common.labels" -}}a: b{{- end -}}',
            "apps/web/Chart.yaml": chart_yaml(
                "web",
                deps="dependencies:\n- name: common\n  version: 0.1.0\n  repository: file://../../lib/common\n",
            ),
            "apps/web/templates/cm.yaml": "kind: ConfigMap",
            "apps/api/Chart.yaml": chart_yaml("api"),
            "wrap/Chart.yaml": chart_yaml(
                "wrap",
                deps="dependencies:\n- name: upstream\n  version: 1.0.0\n  repository: https://example.invalid\n"
                "- name: redis\n  version: 1.0.0\n  repository: oci://example.invalid/charts\n",
            ),
            "wrap/charts/upstream/Chart.yaml": chart_yaml("upstream"),
            "wrap/charts/upstream/templates/ds.yaml": "kind: DaemonSet",
            "wrap/charts/zipped-1.2.3.tgz": "binary",
        },
        links={"apps/api/charts/common": "../../../lib/common"},
    )


def test_discovers_every_chart_with_dependencies():
    charts = {c.path: c for c in discover_charts(platform(), "head")}
    assert sorted(charts) == ["apps/api", "apps/web", "lib/common", "wrap", "wrap/charts/upstream"]
    assert charts["lib/common"].type is ChartType.LIBRARY and not charts["lib/common"].renderable
    web_dep = charts["apps/web"].dependencies[0]
    assert (web_dep.source, web_dep.resolved_path) == (DependencySource.FILE, "lib/common")
    api_dep = charts["apps/api"].dependencies[0]
    assert (api_dep.source, api_dep.resolved_path) == (DependencySource.SYMLINK, "lib/common")
    wrap = {d.name: d for d in charts["wrap"].dependencies}
    assert wrap["upstream"].source is DependencySource.EMBEDDED
    assert wrap["upstream"].resolved_path == "wrap/charts/upstream"
    assert wrap["redis"].source is DependencySource.REMOTE
    assert wrap["zipped"].source is DependencySource.ARCHIVE
    assert charts["wrap/charts/upstream"].embedded_in == "wrap"
    assert not charts["wrap/charts/upstream"].renderable


def test_owning_chart_is_innermost():
    charts = discover_charts(platform(), "head")
    assert (
        owning_chart("wrap/charts/upstream/templates/ds.yaml", charts).path
        == "wrap/charts/upstream"
    )
    assert owning_chart("wrap/values.yaml", charts).path == "wrap"
    assert owning_chart("wrap", charts).path == "wrap"  # a chart's own folder
    assert owning_chart("wrapper/values.yaml", charts) is None  # a folder named alike is not it
    assert owning_chart("README.md", charts) is None
    assert owning_chart("README.md", list(charts)) is None  # any iterable, not only a tuple


def test_a_chart_at_the_repository_root_holds_every_path_no_inner_chart_does():
    root = replace(discover_charts(platform(), "head")[0], path="")
    inner = discover_charts(platform(), "head")
    charts = (root, *inner)
    assert owning_chart("docs/README.md", charts) is root
    assert owning_chart("wrap/values.yaml", charts).path == "wrap"


def test_library_change_reaches_every_chart_that_includes_it():
    charts = discover_charts(platform(), "head")
    change = FileChange(path="lib/common/templates/_labels.tpl", status=FileStatus.MODIFIED)
    affected = {a.chart: a for a in affected_charts([change], charts, charts)}
    assert sorted(affected) == ["apps/api", "apps/web", "lib/common"]
    path = [(s.kind, s.id) for s in affected["apps/web"].path]
    assert path == [("file", change.path), ("chart", "lib/common"), ("chart", "apps/web")]


def test_subchart_change_reaches_its_wrapper_only():
    charts = discover_charts(platform(), "head")
    change = FileChange(path="wrap/charts/upstream/templates/ds.yaml", status=FileStatus.MODIFIED)
    assert [a.chart for a in affected_charts([change], charts, charts)] == [
        "wrap",
        "wrap/charts/upstream",
    ]


def test_change_outside_charts_affects_nothing():
    charts = discover_charts(platform(), "head")
    assert (
        affected_charts([FileChange(path="README.md", status=FileStatus.MODIFIED)], charts, charts)
        == ()
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("apiVersion: v2\nname: [unclosed\n", "apps/api/Chart.yaml"),
        ("- a\n- b\n", "not a mapping"),
        ("version: 1\n", "no name"),
    ],
)
def test_a_chart_with_malformed_chart_yaml_is_kept_with_one_clear_line(text, message):
    # a pull request that breaks one chart's metadata must not stop the review of the others
    tree = platform()
    tree.files["apps/api/Chart.yaml"] = text
    charts = {c.path: c for c in discover_charts(tree, "head abc1234")}
    broken = charts["apps/api"]
    assert broken.metadata_error is not None and message in broken.metadata_error
    assert "\n" not in broken.metadata_error
    assert (broken.name, broken.dependencies) == ("api", ())
    assert charts["apps/web"].metadata_error is None


@pytest.mark.parametrize("text", ["- name: common\n", "just text\n"])
def test_requirements_yaml_that_is_no_mapping_is_one_clear_line(text):
    tree = platform()
    tree.files["apps/api/Chart.yaml"] = "apiVersion: v1\nname: api\nversion: 0.1.0\n"
    tree.files["apps/api/requirements.yaml"] = text
    (broken,) = [c for c in discover_charts(tree, "head abc1234") if c.path == "apps/api"]
    assert broken.metadata_error is not None
    assert "apps/api/requirements.yaml at head abc1234" in broken.metadata_error
    assert "not a mapping" in broken.metadata_error
