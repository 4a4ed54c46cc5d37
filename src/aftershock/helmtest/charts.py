"""Finding charts, their suite files and their subcharts the way helm-unittest does.

A chart's suites are the files its `-f` patterns name (`filepatterns`; `tests/*_test.yaml` by
default). With subcharts (on by
default upstream) the suites of each enabled subchart are found in `charts/<subchart name>/tests`,
and run against the parent chart, scoped by the route `parent/charts/<name>`. A subchart is
disabled when its `condition` (or else all its `tags`) in the parent's Chart.yaml is false in the
root chart's values. Chart files are read with Helm's YAML semantics (`aftershock.gocompat.yamlio`).
"""

from __future__ import annotations

import io
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aftershock.gocompat import yamlio
from aftershock.helmtest.filepatterns import DEFAULT_PATTERN, suite_paths
from aftershock.model.errors import AftershockError, ConfigError

TEST_FILE_PATTERN = DEFAULT_PATTERN


class ChartLoadError(AftershockError):
    """A chart whose Chart.yaml cannot be read."""


@dataclass(frozen=True)
class SuiteFile:
    path: Path
    chart_route: str  # "chart" or "chart/charts/sub"


@dataclass(frozen=True)
class ChartUnderTest:
    name: str
    path: Path  # as given or found; a folder, or a packaged .tgz (which has no suites)
    suite_files: tuple[SuiteFile, ...]


def _read_yaml_file(path: Path) -> Any:
    try:
        return yamlio.load_one(path.read_text(encoding="utf-8"), source=str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise ChartLoadError(
            f"cannot read {path.name}", where=str(path.parent), hint=str(exc)
        ) from None


def chart_metadata(chart_dir: Path) -> dict[str, Any]:
    metadata = _read_yaml_file(chart_dir / "Chart.yaml")
    if not isinstance(metadata, dict) or not metadata.get("name"):
        raise ChartLoadError(
            "Chart.yaml has no chart name",
            where=str(chart_dir),
            hint="give the chart a `name` in Chart.yaml",
        )
    if not isinstance(metadata.get("dependencies") or [], list):
        # Helm's loader refuses it too (a list of dependencies is what Chart.yaml holds)
        raise ChartLoadError(
            "Chart.yaml `dependencies` is not a list",
            where=str(chart_dir),
            hint="list the dependencies, each with a name, version and repository",
        )
    return metadata


def _archive_metadata(archive: Path) -> dict[str, Any]:
    try:
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar.getmembers():
                parts = member.name.split("/")
                if len(parts) == 2 and parts[1] == "Chart.yaml" and member.isfile():
                    data = tar.extractfile(member)
                    if data is not None:
                        text = io.TextIOWrapper(data, encoding="utf-8").read()
                        loaded = yamlio.load_one(text, source=str(archive))
                        if isinstance(loaded, dict) and loaded.get("name"):
                            return loaded
    except (OSError, tarfile.TarError) as exc:
        raise ChartLoadError(
            "cannot read the chart archive", where=str(archive), hint=str(exc)
        ) from None
    raise ChartLoadError("the chart archive has no Chart.yaml", where=str(archive))


def _values(chart_dir: Path) -> dict[str, Any]:
    path = chart_dir / "values.yaml"
    if not path.is_file():
        return {}
    loaded = _read_yaml_file(path)
    return loaded if isinstance(loaded, dict) else {}


def _subcharts(chart_dir: Path) -> list[tuple[str, Path | None]]:
    """(name, folder) of each subchart in charts/; folder None for a packaged one."""
    found: list[tuple[str, Path | None]] = []
    charts = chart_dir / "charts"
    if not charts.is_dir():
        return found
    for entry in sorted(charts.iterdir()):
        if entry.is_dir() and (entry / "Chart.yaml").is_file():
            found.append((str(chart_metadata(entry)["name"]), entry))
        elif entry.is_file() and entry.name.endswith(".tgz"):
            found.append((str(_archive_metadata(entry)["name"]), None))
    return found


def _condition_true(condition: str, values: dict[str, Any]) -> bool:
    """evaluateConditionPath: only an explicit boolean false at the path disables."""
    current: Any = values
    parts = condition.split(".")
    for position, part in enumerate(parts):
        if not isinstance(current, dict) or part not in current:
            return True
        current = current[part]
        if position == len(parts) - 1:
            return current if isinstance(current, bool) else True
    return True


def _enabled(parent: dict[str, Any], name: str, values: dict[str, Any]) -> bool:
    for dependency in parent.get("dependencies") or []:
        if not isinstance(dependency, dict):
            continue
        if (dependency.get("alias") or dependency.get("name")) != name:
            continue
        condition = dependency.get("condition")
        if isinstance(condition, str) and condition:
            return _condition_true(condition, values)
        tags = dependency.get("tags") or []
        if tags:
            table = values.get("tags")
            if not isinstance(table, dict):
                return True
            return any(table.get(tag) is True for tag in tags)
        return True
    return True


def _suite_files(chart_dir: Path, route: str, patterns: tuple[str, ...]) -> list[SuiteFile]:
    return [SuiteFile(path, route) for path in suite_paths(chart_dir, patterns)]


def _walk(
    chart_dir: Path, route: str, root_values: dict[str, Any], patterns: tuple[str, ...]
) -> list[SuiteFile]:
    files = _suite_files(chart_dir, route, patterns)
    metadata = chart_metadata(chart_dir)
    for name, _ in _subcharts(chart_dir):
        if not _enabled(metadata, name, root_values):
            continue
        sub_dir = chart_dir / "charts" / name  # upstream looks there, by the subchart's name
        if (sub_dir / "Chart.yaml").is_file():
            files += _walk(sub_dir, f"{route}/charts/{name}", root_values, patterns)
    return files


def load_chart(
    path: Path, patterns: tuple[str, ...] = (TEST_FILE_PATTERN,), with_subcharts: bool = True
) -> ChartUnderTest:
    """The chart at `path` (folder or .tgz) with its suite files and its subcharts' suites.

    `patterns` are globs relative to each chart folder (helm-unittest's `-f`);
    `with_subcharts` is helm-unittest's `--with-subchart` (on by default there too).
    """
    if path.is_file() and path.name.endswith(".tgz"):
        return ChartUnderTest(str(_archive_metadata(path)["name"]), path, ())
    metadata = chart_metadata(path)
    name = str(metadata["name"])
    files = (
        _walk(path, name, _values(path), patterns)
        if with_subcharts
        else _suite_files(path, name, patterns)
    )
    return ChartUnderTest(name, path, tuple(files))


def find_charts(paths: list[str]) -> list[Path]:
    """The charts named by `paths`: a chart folder or archive, or every chart below a folder."""
    found: list[Path] = []
    for given in paths or ["."]:
        path = Path(given)
        if not path.exists():
            raise ConfigError(f"no such chart or folder: {given}", hint="pass a chart folder")
        if path.is_file() or (path / "Chart.yaml").is_file():
            found.append(path)
            continue
        below = _top_level_charts(sorted(chart.parent for chart in path.rglob("Chart.yaml")))
        if not below:
            raise ConfigError(
                f"no Helm chart found under {given}", hint="pass a folder that holds a Chart.yaml"
            )
        found.extend(below)
    return found


def _top_level_charts(chart_dirs: list[Path]) -> list[Path]:
    """Chart folders that are not a subchart inside another chart's `charts/` folder."""
    all_dirs = set(chart_dirs)
    return [
        chart
        for chart in chart_dirs
        if not any(
            parent in all_dirs and chart.is_relative_to(parent / "charts")
            for parent in chart.parents
        )
    ]
