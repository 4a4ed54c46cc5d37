"""What the render stage of a review works on (`StageInput`): both sides, the change, and how to render."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from aftershock.config.settings import AftershockConfig
from aftershock.ingest.suite_files import SuitePatterns
from aftershock.model.change import FileChange
from aftershock.model.units import AffectedChart
from aftershock.pipeline.chart_jobs import RenderSettings, SideInput
from aftershock.pipeline.contexts import Identity
from aftershock.pipeline.gitops import BuiltSources
from aftershock.render.chart_archives import ChartCache
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
