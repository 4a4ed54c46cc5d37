"""Mapping changed files to logical units, and the path-level diff of values files."""

from __future__ import annotations

import pytest

from aftershock.diff.values_keys import describe_change, diff_values, parse_values, same_value
from aftershock.ingest.charts import discover_charts
from aftershock.ingest.units import classify_in_chart, defined_templates, units_for_file
from aftershock.model.change import FileChange, FileStatus
from aftershock.model.errors import MalformedInputError
from aftershock.model.units import UnitKind, ValuesKeyChangeKind
from memtree import MemoryTree


@pytest.mark.parametrize(
    "rel, kind",
    [
        ("Chart.yaml", UnitKind.CHART_METADATA),
        ("Chart.lock", UnitKind.CHART_LOCK),
        ("values.yaml", UnitKind.VALUES_FILE),
        ("values-prod.yaml", UnitKind.VALUES_FILE),
        ("ci/ha-values.yaml", UnitKind.VALUES_FILE),
        ("values.schema.json", UnitKind.VALUES_SCHEMA),
        ("templates/deployment.yaml", UnitKind.TEMPLATE),
        ("templates/_helpers.tpl", UnitKind.TEMPLATE_HELPERS),
        ("templates/NOTES.txt", UnitKind.NOTES),
        ("tests/deployment_test.yaml", UnitKind.TEST_SUITE),
        ("tests/__snapshot__/deployment_test.yaml.snap", UnitKind.TEST_SNAPSHOT),
        ("crds/foo.yaml", UnitKind.CRD),
        ("README.md", UnitKind.DOCS),
        ("files/config.toml", UnitKind.CHART_FILE),
    ],
)
def test_classifies_chart_files(rel, kind):
    assert classify_in_chart(rel) is kind


def test_template_unit_names_its_defines_on_both_sides():
    base = MemoryTree(
        {
            "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
            "c/templates/_h.tpl": '{{- define "c.old" -}}{{- end -}}',
        }
    )
    head = MemoryTree(
        {
            "c/Chart.yaml": base.files["c/Chart.yaml"],
            "c/templates/_h.tpl": '{{ define "c.new" }}{{ end }}{{- define "c.labels" -}}{{ end }}',
        }
    )
    charts = discover_charts(head, "head")
    change = FileChange(path="c/templates/_h.tpl", status=FileStatus.MODIFIED)
    (unit,) = units_for_file(change, charts, charts, base.text_or_none, head.text_or_none)
    assert unit.kind is UnitKind.TEMPLATE_HELPERS and unit.chart == "c"
    assert unit.defines == ("c.old", "c.new", "c.labels")
    assert defined_templates('{{- define "a" }}{{ define "a" }}') == ("a",)


def test_repository_files_outside_charts():
    tree = MemoryTree(
        {".github/workflows/ci.yaml": "", "docs/guide.md": "", "scripts/x.sh": "", "misc.bin": ""}
    )
    kinds = {
        p: units_for_file(
            FileChange(path=p, status=FileStatus.ADDED),
            (),
            (),
            tree.text_or_none,
            tree.text_or_none,
        )[0].kind
        for p in tree.files
    }
    assert kinds == {
        ".github/workflows/ci.yaml": UnitKind.CI,
        "docs/guide.md": UnitKind.DOCS,
        "scripts/x.sh": UnitKind.SCRIPT,
        "misc.bin": UnitKind.OTHER,
    }


def test_values_diff_reports_paths_and_descriptions():
    before = parse_values("a:\n  b: 1\n  gone: x\nlist: [1]\n", source="v")
    after = parse_values(
        "a:\n  b: 1.0\nlist: [1]\ngpu-operator:\n  devicePlugin:\n    env: [1, 2, 3, 4, 5]\n",
        source="v",
    )
    changes = {c.path: c for c in diff_values(before, after, chart="c", file="c/values.yaml")}
    assert changes["a.b"].kind is ValuesKeyChangeKind.CHANGED  # int 1 vs float 1.0 differ, as in Go
    assert changes["a.gone"].kind is ValuesKeyChangeKind.REMOVED
    assert "list" not in changes
    env = changes["gpu-operator.devicePlugin.env"]
    assert (
        describe_change(env) == "gpu-operator.devicePlugin.env changed from absent to a 5-item list"
    )


def test_same_value_is_go_deep_equal():
    assert not same_value(1, 1.0)
    assert not same_value(True, 1)
    assert same_value({"a": [1, {"b": "c"}]}, {"a": [1, {"b": "c"}]})


def test_malformed_values_file_is_one_clear_error():
    with pytest.raises(MalformedInputError) as caught:
        parse_values("a: [1, 2\n", source="charts/x/values.yaml at head")
    assert "charts/x/values.yaml" in str(caught.value)
    with pytest.raises(MalformedInputError):
        parse_values("- 1\n", source="v")
