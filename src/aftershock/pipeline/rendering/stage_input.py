"""What the render stage of a review works on (`StageInput`): both sides, the change, and how to render."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from aftershock.config.settings import AftershockConfig
from aftershock.diff.exercise import ChangedRun, changed_runs
from aftershock.ingest.suite_files import SuitePatterns
from aftershock.model.change import FileChange, Side
from aftershock.model.units import AffectedChart
from aftershock.pipeline.builds.gitops import BuiltSources
from aftershock.pipeline.context.contexts import Identity
from aftershock.pipeline.rendering.chart_history import DependencyHistory
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, SideInput
from aftershock.pipeline.rendering.line_traces import WantedLines
from aftershock.pipeline.rendering.side_results import CrdObjects
from aftershock.render.external.chart_archives import ChartCache
from aftershock.render.interface import RenderOutcome


@dataclass(frozen=True)
class StageInput:
    """What the render stage works on: both sides, the change, and how to render."""

    config: AftershockConfig
    sides: tuple[SideInput, SideInput]
    files: tuple[FileChange, ...]
    to_render: tuple[
        AffectedChart, ...
    ]  # the charts to render (an incremental review: those since..head reaches)
    follow_changed: tuple[str, ...]  # paths whose releases count as changed
    settings: RenderSettings
    identity: Identity
    max_scenarios: int
    work: Path
    rendered: Callable[[RenderOutcome], None] | None = None
    planned: Callable[[int], None] | None = None
    built: BuiltSources = (
        BuiltSources()
    )  # kustomize and Flux builds: their releases are followed too
    chart_cache: ChartCache = ChartCache()  # archives of charts from outside the repository
    suite_patterns: Mapping[str, SuitePatterns] = field(
        default_factory=dict
    )  # chart -> where its suites are
    history: DependencyHistory | None = None  # resolves the dependencies of charts rendered later
    crds: CrdObjects = field(default_factory=CrdObjects, compare=False, repr=False)  # parsed once

    def reaching(self, paths: Collection[str]) -> StageInput:
        """This input, with the dependencies of the charts `paths` resolved from history."""
        return replace(self, sides=with_history(self.history, self.sides, paths))

    @functools.cached_property
    def changed_paths(self) -> tuple[str, ...]:
        """Every path the change touches, both paths of a rename."""
        return tuple(p for f in self.files for p in (f.path, f.old_path) if p)

    @functools.cached_property
    def changed_runs(self) -> tuple[ChangedRun, ...]:
        """The runs of changed lines in the templates of every chart at either side."""
        trees = {"base": self.sides[0][0], "head": self.sides[1][0]}
        folders = {c.path for _, charts in self.sides for c in charts}
        return tuple(
            changed_runs(self.files, folders, lambda side, path: trees[side].text_or_none(path))
        )

    @functools.cached_property
    def changed_lines(self) -> WantedLines:
        """(side, template path) -> its changed lines: what renders trace (pipeline/rendering/line_traces.py)."""
        wanted: dict[tuple[Side, str], set[int]] = {}
        for run in self.changed_runs:
            wanted.setdefault((Side(run.side), run.path), set()).update(
                range(run.first, run.last + 1)
            )
        return {key: frozenset(lines) for key, lines in wanted.items()}


def with_history(
    history: DependencyHistory | None,
    sides: tuple[SideInput, SideInput],
    paths: Collection[str],
) -> tuple[SideInput, SideInput]:
    """Both sides, with the dependencies of the charts `paths` resolved from history (the same
    sides when there was nothing left to resolve)."""
    if history is None:
        return sides
    (base_tree, base), (head_tree, head) = sides
    new_base, new_head = history.resolve((base, head), paths)
    if new_base is base and new_head is head:
        return sides
    return (base_tree, new_base), (head_tree, new_head)
