"""Layer 2 of a change: charts, their dependencies, and the logical units a changed file maps to."""

from __future__ import annotations

import enum
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


class ChartType(str, enum.Enum):
    APPLICATION = "application"
    LIBRARY = "library"


class DependencySource(str, enum.Enum):
    """How a dependency reaches its parent chart."""

    FILE = "file"  # Chart.yaml `repository: file://...`
    EMBEDDED = "embedded"  # a chart folder under the parent's charts/
    SYMLINK = "symlink"  # a symlinked folder under the parent's charts/
    ARCHIVE = "archive"  # a packaged .tgz under the parent's charts/
    REMOTE = "remote"  # a repository aftershock never downloads from
    IN_REPO_INFERRED = (
        "in_repo_inferred"  # an https/oci dependency whose name and version match a chart here
    )
    IN_REPO_CONFIGURED = (
        "in_repo_configured"  # mapped to a chart here by `.aftershock.yaml` `dependencies:`
    )
    IN_REPO_LOCKED = "in_repo_locked"  # a chart here (or as an earlier commit held it) at the version Chart.lock pins
    CACHED = "cached"  # the archive of the locked version from the chart cache, digest checked
    CACHED_UNVERIFIED = "cached_unverified"  # that archive, with no digest recorded to check it


@dataclass(frozen=True)
class ChartDependency:
    name: str
    version: str
    repository: str
    source: DependencySource
    alias: str | None = None
    condition: str | None = None
    resolved_path: str | None = None  # repository path of the dependency's folder, when local
    locked: str | None = None  # the version Chart.lock (requirements.lock) pins: what Helm installs


@dataclass(frozen=True)
class Chart:
    """A chart found at one ref: a folder holding a Chart.yaml, or an external chart unpacked."""

    path: str
    name: str
    version: str
    type: ChartType
    api_version: str
    app_version: str | None = None
    dependencies: tuple[ChartDependency, ...] = ()
    # the parent chart's path when this sits under its charts/, or in its folder as its file:// dependency
    embedded_in: str | None = None
    # why its Chart.yaml (or requirements.yaml) cannot be read; its renders fail and say so
    metadata_error: str | None = None
    # a chart from outside the repository (a release's `oci://…/app-template`, a chart repository's
    # URL and chart name), unpacked at `path` in the review's workspace only: what it is called
    source: str | None = None

    @property
    def address(self) -> str:
        """What the review calls the chart: its repository path, or an external chart's source (its
        workspace folder is never shown)."""
        return self.source if self.source is not None else self.path

    @property
    def renderable(self) -> bool:
        """Helm installs application charts on their own; embedded ones render through their parent."""
        return self.type is ChartType.APPLICATION and self.embedded_in is None

    def contains(self, path: str) -> bool:
        return self.path == "" or path == self.path or path.startswith(self.path + "/")


def dependency_closure(chart: Chart, charts: Mapping[str, Chart]) -> tuple[str, ...]:
    """The chart's folder and the folders of every local dependency it reaches, transitively."""
    seen: dict[str, None] = {}
    stack = [chart.path]
    while stack:
        path = stack.pop()
        if path in seen:
            continue
        seen[path] = None
        current = charts.get(path)
        if current is not None:
            stack.extend(d.resolved_path for d in current.dependencies if d.resolved_path)
    return tuple(sorted(seen))


class UnitKind(str, enum.Enum):
    CHART_METADATA = "chart_metadata"
    CHART_LOCK = "chart_lock"
    TEMPLATE = "template"
    TEMPLATE_HELPERS = "template_helpers"
    NOTES = "notes"
    VALUES_FILE = "values_file"
    VALUES_SCHEMA = "values_schema"
    TEST_SUITE = "test_suite"
    TEST_SNAPSHOT = "test_snapshot"
    CRD = "crd"
    CHART_FILE = "chart_file"  # any other file Helm loads with the chart (.Files)
    DOCS = "docs"
    SCRIPT = "script"
    CI = "ci"
    OTHER = "other"


@dataclass(frozen=True)
class Unit:
    """A logical unit touched by a changed file, e.g. a template and the named templates it defines."""

    id: str
    kind: UnitKind
    path: str
    chart: str | None = None
    defines: tuple[str, ...] = ()


class ValuesKeyChangeKind(str, enum.Enum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


@dataclass(frozen=True)
class ValuesKeyChange:
    """A path-level change of one values file, e.g. `gpu-operator.devicePlugin.env` from absent to a list."""

    chart: str | None
    file: str
    path: str
    kind: ValuesKeyChangeKind
    before: Any = None
    after: Any = None
    secret: bool = False  # the value came from a Secret (a release's `valuesFrom`): never shown


@dataclass(frozen=True)
class AffectStep:
    """One hop on the path that connects a change to a chart: a file, then charts that include it."""

    kind: str  # "file", "chart" or "release"
    id: str
    relation: str  # e.g. "changed", "in chart", "dependency of"


@dataclass(frozen=True)
class AffectedChart:
    chart: str
    path: tuple[AffectStep, ...]  # the shortest connection from a changed file to this chart


TEST_FOLDERS = frozenset({"tests", "test"})


def test_harnesses(charts: Iterable[Chart]) -> frozenset[str]:
    """The charts kept to test another, never installed: one inside another chart's `tests/` (or
    `test/`) folder, and one inside the folder of a chart it depends on locally (bjw-s's
    `common/test-chart`, rendering the library it sits in)."""
    charts = list(charts)
    paths = {c.path for c in charts}
    found = set()
    for chart in charts:
        parts = chart.path.split("/")
        in_tests = any(
            parts[i] in TEST_FOLDERS and "/".join(parts[:i]) in paths for i in range(len(parts) - 1)
        )
        around = any(
            d.resolved_path and chart.path.startswith(d.resolved_path + "/")
            for d in chart.dependencies
        )
        if in_tests or around:
            found.add(chart.path)
    return frozenset(found)


def chart_move(path: str, old_path: str | None) -> tuple[str, str] | None:
    """(folder at head, folder at base) when a file git reads as renamed is a Chart.yaml moving to
    another folder: the chart moves (render/plan.py renders its base from the old folder)."""
    if old_path and posixpath.basename(path) == posixpath.basename(old_path) == "Chart.yaml":
        return posixpath.dirname(path), posixpath.dirname(old_path)
    return None
