"""Which charts a change reaches: charts holding a changed file, then every chart that includes them."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from aftershock.ingest.chart_owners import owning_chart
from aftershock.model.change import FileChange, FileStatus
from aftershock.model.units import AffectedChart, AffectStep, Chart


def affected_charts(
    files: Iterable[FileChange], charts_base: Iterable[Chart], charts_head: Iterable[Chart]
) -> tuple[AffectedChart, ...]:
    """Every chart (at base or head) the change reaches, each with its shortest path from a changed file.

    A changed file reaches the innermost chart holding it at either ref; a chart reaches every chart that
    depends on it (file://, embedded, or symlinked under charts/), transitively.
    """
    charts = _union(charts_base, charts_head)
    paths = _direct(files, charts_base, charts_head)
    dependents = _reverse_dependencies(charts_base, charts_head)
    queue = deque(sorted(paths))
    while queue:
        current = queue.popleft()
        for parent in sorted(dependents.get(current, ())):
            if parent not in paths:
                step = AffectStep(kind="chart", id=parent, relation="includes")
                paths[parent] = paths[current] + (step,)
                queue.append(parent)
    return tuple(AffectedChart(chart=c, path=paths[c]) for c in sorted(paths) if c in charts)


def _union(charts_base: Iterable[Chart], charts_head: Iterable[Chart]) -> set[str]:
    return {c.path for c in charts_base} | {c.path for c in charts_head}


def _direct(
    files: Iterable[FileChange], charts_base: Iterable[Chart], charts_head: Iterable[Chart]
) -> dict[str, tuple[AffectStep, ...]]:
    base, head = tuple(charts_base), tuple(charts_head)
    found: dict[str, tuple[AffectStep, ...]] = {}
    for change in sorted(files, key=_evidence_rank):
        for path, charts in _sides(change, base, head):
            chart = owning_chart(path, charts)
            if chart is not None and chart.path not in found:
                found[chart.path] = (
                    AffectStep(kind="file", id=change.path, relation="changed"),
                    AffectStep(kind="chart", id=chart.path, relation="holds the file"),
                )
    return found


def _sides(
    change: FileChange, base: tuple[Chart, ...], head: tuple[Chart, ...]
) -> list[tuple[str, tuple[Chart, ...]]]:
    """The paths a change occupies: its old path among the base charts, its new one among the head's."""
    sides = []
    if change.status is not FileStatus.ADDED:
        sides.append((change.old_path or change.path, base))
    if change.status is not FileStatus.DELETED:
        sides.append((change.path, head))
    return sides


def _evidence_rank(change: FileChange) -> tuple[int, str]:
    """Name the most telling file first: templates and values before metadata, docs last."""
    name = change.path.rsplit("/", 1)[-1]
    if "/templates/" in change.path or name.startswith("values"):
        return 0, change.path
    if name.lower().endswith((".md", ".txt", ".rst")) or "/tests/" in change.path:
        return 2, change.path
    return 1, change.path


def _reverse_dependencies(
    charts_base: Iterable[Chart], charts_head: Iterable[Chart]
) -> dict[str, set[str]]:
    """dependency path -> charts that include it, at either ref."""
    dependents: dict[str, set[str]] = {}
    for chart in (*charts_base, *charts_head):
        for dep in chart.dependencies:
            if dep.resolved_path and dep.resolved_path != chart.path:
                dependents.setdefault(dep.resolved_path, set()).add(chart.path)
    return dependents
