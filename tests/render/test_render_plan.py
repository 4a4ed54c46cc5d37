"""Which template texts may render differently from one render to the next, and which charts a
change moves."""

from __future__ import annotations

import pytest

from aftershock.model.change import FileChange, FileStatus
from aftershock.model.units import AffectedChart, Chart, ChartType
from aftershock.render.plan import may_be_nondeterministic, moved_charts, plan_renders


@pytest.mark.parametrize(
    "text, varies",
    [
        ("token: {{ randAlphaNum 16 }}", True),
        ("{{- $ips := values .Values.regions }}", True),  # Go's map order
        ("{{ range $k := keys .Values.labels }}{{ $k }}{{ end }}", True),
        ('{{ keys .Values.labels | sortAlpha | join "," }}', False),
        ('{{ .Values.keys }} {{ $values }} {{ dict "values" 1 }}', False),
        ("values: [a, b]\nkeys: {{ .Values.x }}", False),  # words in YAML text call nothing
    ],
)
def test_what_may_vary_between_renders(text, varies):
    assert may_be_nondeterministic([text]) is varies


def _chart(path: str) -> Chart:
    return Chart(path, "web", "0.1.0", ChartType.APPLICATION, "v2")


def test_a_renamed_chart_yaml_pairs_the_old_folder_with_the_new_one_only_when_both_are_one_sided():
    files = [
        FileChange("apps/web/Chart.yaml", FileStatus.RENAMED, "charts/web/Chart.yaml"),
        FileChange("apps/web/values.yaml", FileStatus.RENAMED, "charts/web/values.yaml"),
        FileChange("Chart.yaml", FileStatus.MODIFIED),
    ]
    moved = moved_charts(files)
    assert moved == {"apps/web": "charts/web"}
    affected = [AffectedChart("apps/web", ()), AffectedChart("charts/web", ())]
    (plan,) = plan_renders(affected, [_chart("charts/web")], [_chart("apps/web")], moved)
    assert (plan.path, plan.base and plan.base.path, plan.head and plan.head.path) == (
        "apps/web",
        "charts/web",
        "apps/web",
    )
    # a copy (the old folder still holds a chart at head) is two charts
    plans = plan_renders(
        affected, [_chart("charts/web")], [_chart("apps/web"), _chart("charts/web")], moved
    )
    assert [(p.path, p.base is not None) for p in plans] == [
        ("apps/web", False),
        ("charts/web", True),
    ]


def test_a_move_whose_new_folder_the_review_does_not_plan_keeps_the_old_one():
    moved = {"apps/web": "charts/web"}
    (plan,) = plan_renders(
        [AffectedChart("charts/web", ())], [_chart("charts/web")], [_chart("apps/web")], moved
    )
    assert (plan.path, plan.base is not None, plan.head) == ("charts/web", True, None)
