"""Dependencies no render can be given: which of a chart's dependencies (its own, and those of the local
charts it reaches) are not at hand at one ref, why, the command that would fetch each, and whether
the chart has anything left to render without them.

Helm refuses a chart one of whose dependencies is missing, so one chart from a chart repository that
nobody vendored (a locked version no cache holds) would leave all of the parent's own templates
unreviewed. The parent renders without it instead (`render.workspaces.partial_charts` takes it out of a copy's
Chart.yaml); the dependency's objects are *not reviewed*, with the reason and the command.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from aftershock.ingest.charts import same_named_charts
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.contexts import TemplateSelection
from aftershock.model.review import ChartOutcome, ChartReview, DependencyGap, NotReviewed
from aftershock.model.units import Chart, ChartDependency, DependencySource
from aftershock.render.external.dependency_archives import fetch_command, is_locked_remote
from aftershock.render.plan import dependency_closure

MAX_DEPTH = 8  # local dependencies of local dependencies, followed this deep


def missing_dependencies(
    chart: Chart, charts: Mapping[str, Chart], cache: Path | None
) -> tuple[DependencyGap, ...]:
    """The dependencies of `chart` (and of the local charts it reaches) that cannot be given to Helm,
    each with the Helm name it renders under and why; `cache` is the chart cache folder, if any."""
    gaps: dict[str, DependencyGap] = {}
    for route, dep in _routes(chart, charts):
        reason = _why_missing(dep, chart, charts, cache)
        if reason is not None:
            gaps.setdefault(route, DependencyGap(route, _label(dep), reason))
    return tuple(gaps[r] for r in sorted(gaps))


def blocked_reason(gaps: Sequence[DependencyGap]) -> str:
    """Why a chart with nothing left to render without `gaps` cannot be rendered at all."""
    return "; ".join(f"dependency {g.dependency}: {g.reason}" for g in gaps)


def renders_without(
    chart: Chart, charts: Mapping[str, Chart], tree: RefSnapshot, gaps: Sequence[DependencyGap]
) -> bool:
    """Whether something is left to render once `gaps` are left out: a template (not a partial) of the
    chart or of a local chart it reaches, a packaged subchart, or a dependency that is at hand."""
    left_out = {g.route for g in gaps}
    if any(route not in left_out for route, _ in _routes(chart, charts)):
        return True
    for path in dependency_closure(chart, charts):
        prefix = f"{path}/" if path else ""
        for file in tree.tree.paths_under(path):
            relative = file[len(prefix) :]
            name = relative.rsplit("/", 1)[-1]
            if relative.startswith("charts/") and name.endswith(".tgz"):
                return True
            if (relative.startswith("templates/") or "/templates/" in relative) and not (
                name.startswith("_") or name == "NOTES.txt"
            ):
                return True
    return False


def without_dependencies(
    selection: TemplateSelection, gaps: Sequence[DependencyGap]
) -> TemplateSelection:
    """The selection leaving `gaps` out too."""
    routes = {*selection.dependencies_left_out, *(g.route for g in gaps)}
    return replace(selection, dependencies_left_out=tuple(sorted(routes)))


def left_out_folders(
    chart: Chart, charts: Mapping[str, Chart], gaps: Sequence[DependencyGap]
) -> tuple[str, ...]:
    """The folders (repository paths) of the dependencies `gaps` leave out that are at hand at this
    ref: their `crds/` files are left out with them."""
    routes = {g.route for g in gaps}
    return tuple(
        sorted(
            {d.resolved_path for r, d in _routes(chart, charts) if r in routes and d.resolved_path}
        )
    )


def _routes(chart: Chart, charts: Mapping[str, Chart]) -> list[tuple[str, ChartDependency]]:
    """Each dependency reached from `chart`, with the Helm name it renders under (`web/charts/lib`)."""
    found: list[tuple[str, ChartDependency]] = []
    stack: list[tuple[str, Chart, int]] = [(chart.name, chart, 0)]
    while stack:
        prefix, current, depth = stack.pop()
        for dep in current.dependencies:
            route = f"{prefix}/charts/{dep.alias or dep.name}"
            found.append((route, dep))
            sub = charts.get(dep.resolved_path) if dep.resolved_path else None
            if sub is not None and depth < MAX_DEPTH:
                stack.append((route, sub, depth + 1))
    return found


def joined_gaps(sides: Iterable[Sequence[DependencyGap]]) -> tuple[DependencyGap, ...]:
    """The dependencies left out at either ref (base first), each once; one whose version the change
    moves names both (`redis 18.1.0 → 18.2.0`)."""
    found: dict[str, DependencyGap] = {}
    for gaps in sides:
        for gap in gaps:
            found[gap.route] = _both_versions(found[gap.route], gap) if gap.route in found else gap
    return tuple(found[route] for route in sorted(found))


def _both_versions(base: DependencyGap, head: DependencyGap) -> DependencyGap:
    if base.dependency == head.dependency:
        return base
    name, _, before = base.dependency.partition(" ")
    after = head.dependency.partition(" ")[2]
    return replace(
        head, dependency=f"{name} {before or '(any version)'} → {after or '(any version)'}"
    )


def _label(dep: ChartDependency) -> str:
    version = dep.locked or dep.version
    return f"{dep.name} {version}" if version else dep.name


def _why_missing(
    dep: ChartDependency, chart: Chart, charts: Mapping[str, Chart], cache: Path | None
) -> str | None:
    if is_locked_remote(dep):
        return (
            f"run `{fetch_command(chart.path, cache)}` and review with that --chart-cache: the "
            "version Chart.lock pins is not vendored under charts/, not in this repository at that "
            "version and not in the chart cache"
        )
    if dep.source is DependencySource.FILE and dep.resolved_path is None:
        return (
            f"its path {dep.repository} names a folder that is missing at this ref or lies outside the "
            "repository; fix the `file://` path in Chart.yaml or vendor the chart under charts/"
        )
    if dep.source is not DependencySource.REMOTE:
        return None
    reason = (
        "it is not vendored under charts/ and aftershock never downloads dependencies; run "
        "`helm dependency build` and commit charts/"
    )
    named = same_named_charts(dep, charts.values())
    if named:
        here = ", ".join(f"{c.path} is {c.version}" for c in named)
        reason += (
            f", or map it in .aftershock.yaml `dependencies:` ({dep.name} "
            f"{dep.version or '(any version)'} is wanted, this repository's {here})"
        )
    return reason


def failed_without(
    gaps: list[NotReviewed], dependencies: tuple[DependencyGap, ...]
) -> list[NotReviewed]:
    """The failures of a chart rendered without `dependencies`: each says so first, the likelier cause."""
    if not dependencies:
        return gaps
    why = blocked_reason(dependencies)
    return [
        replace(g, reason=f"{why}; rendered without it, the chart fails: {g.reason}") for g in gaps
    ]


@dataclass(frozen=True)
class Apart:
    """What of a chart no changed file reaches, when its own folder holds none (the change reaches it
    through one of its local dependencies): a dependency, or a template of one, is apart unless a
    folder on its route holds a changed file. What it renders is the same at both refs, whatever
    the change; values flow from a chart to its dependencies, never between them."""

    chart: str
    folders: Mapping[str, str]  # route -> the folder of the local dependency it names
    reached: frozenset[str]  # routes whose folder holds a changed file
    defines: bool  # a changed file there is a template: its named templates reach every chart

    def route(self, route: str) -> bool:
        """Whether the dependency of `route` is apart from the change: no chart on the way to it, nor
        any of its own dependencies (whose named templates it may include), holds a changed file."""
        steps = route.split("/charts/")
        on_way = {"/charts/".join(steps[:n]) for n in range(2, len(steps) + 1)}
        return not any(r in on_way or r.startswith(f"{route}/charts/") for r in self.reached)

    def template(self, path: str) -> bool:
        """Whether the template at repository `path` is one of a local dependency apart from the
        change, and the change edits no template (a named one is included across charts)."""
        held = [(len(f), r) for r, f in self.folders.items() if path.startswith(f"{f}/")]
        inside = path.startswith(f"{self.chart}/") or not held
        return not (inside or self.defines) and self.route(max(held)[1])


def apart_from_change(
    chart: Chart | None, charts: Mapping[str, Chart], changed: Collection[str]
) -> Apart | None:
    """What of `chart` no changed file reaches (`Apart`); None when its own folder holds one."""
    if chart is None or not changed or _holds(chart.path, changed):
        return None
    folders = {r: d.resolved_path for r, d in _routes(chart, charts) if d.resolved_path}
    reached = frozenset(r for r, f in folders.items() if _holds(f, changed))
    defines = any("/templates/" in p for p in changed)
    return Apart(chart.path, folders, reached, defines)


def apart_templates(review: ChartReview, part: str, apart: Apart | None) -> set[str]:
    """The parts (`template T of chart C`) of the templates that fail alike at both refs and that
    no changed file reaches (`Apart.template`)."""
    if apart is None:
        return set()
    return {
        f"template {f.template} of {part}"
        for f in review.templates_not_rendered
        if f.base_error == f.head_error and apart.template(f.template)
    }


def _holds(folder: str, changed: Collection[str]) -> bool:
    return any(not folder or p == folder or p.startswith(f"{folder}/") for p in changed)


def rendered_without(
    review: ChartReview,
    gaps: tuple[DependencyGap, ...],
    part: str,
    apart: Apart | None = None,
) -> tuple[ChartReview, list[NotReviewed]]:
    """A review whose chart rendered without `gaps`: each is not reviewed (said once per chart,
    whatever the scenario); one `apart` from the change (`apart_from_change`) as context, listed
    apart. A chart that failed all the same has said so in its own failure."""
    if not gaps or review.outcome is ChartOutcome.NOT_REVIEWED:
        return review, []
    inputs = [
        replace(i, templates=without_dependencies(i.templates, gaps))
        for i in (review.base_inputs, review.head_inputs)
    ]
    review = replace(
        review, dependencies_not_rendered=gaps, base_inputs=inputs[0], head_inputs=inputs[1]
    )
    return review, [
        NotReviewed(
            f"dependency {g.dependency} of {part}",
            f"{g.reason}; the rest of the chart was rendered without it"
            + ("; no changed file reaches it" if apart and apart.route(g.route) else ""),
            context=bool(apart and apart.route(g.route)),
        )
        for g in gaps
    ]
