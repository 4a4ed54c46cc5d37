"""Which charts are kept to test another and installed nowhere (model.units.test_harnesses)."""

from __future__ import annotations

from aftershock.model import units
from aftershock.model.units import Chart, ChartDependency, ChartType, DependencySource


def chart(path: str, *needs: tuple[str, DependencySource]) -> Chart:
    deps = tuple(
        ChartDependency(p.rsplit("/", 1)[-1], "0.1.0", "", source, resolved_path=p)
        for p, source in needs
    )
    return Chart(
        path, path.rsplit("/", 1)[-1], "0.1.0", ChartType.APPLICATION, "v2", dependencies=deps
    )


def test_a_chart_in_another_charts_tests_folder_or_inside_the_chart_it_renders_is_a_harness():
    charts = [
        chart("lib"),
        chart("lib/test-chart", ("lib", DependencySource.FILE)),  # bjw-s's common/test-chart
        chart("app", ("app/charts/redis", DependencySource.EMBEDDED)),
        chart("app/charts/redis"),  # vendored: its parent installs it
        chart("app/tests/harness"),
        chart("web", ("lib", DependencySource.FILE)),  # beside the library, not in it
    ]
    assert units.test_harnesses(charts) == {"lib/test-chart", "app/tests/harness"}
