"""Where a helm-unittest run's templates and suites live in a review's workspace: suite files named
relative to their chart, and each template the run names (`name/templates/x.yaml`, subcharts by
name or alias) mapped to its repository path (as `RenderedObject.template` names it)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from aftershock.gocompat import yamlio
from aftershock.model.errors import AftershockError
from aftershock.model.test_results import ChartResult, chart_relative_file


def chart_relative(result: ChartResult, chart_dir: Path) -> ChartResult:
    """Suite files named relative to the chart folder (the runner names them relative to the cwd)."""
    suites = tuple(
        replace(s, file=chart_relative_file(s.file, chart_dir)) if s.file else s
        for s in result.suites
    )
    return replace(result, suites=suites)


def template_paths(result: ChartResult, chart_dir: Path, root: Path) -> dict[str, str]:
    """Each template the run checked (`name/templates/x.yaml`) -> its repository path, or left out."""
    names = {
        name
        for s in result.suites
        for t in s.tests
        for a in t.assertions
        for name in (*a.templates, *(c.template for c in a.checked))
    }
    found = {}
    for name in sorted(names):
        path = _template_path(name, chart_dir, root)
        if path is not None:
            found[name] = path
    return found


def _template_path(name: str, chart_dir: Path, root: Path) -> str | None:
    parts = name.split("/")[1:]
    current = chart_dir
    while len(parts) >= 2 and parts[0] == "charts":
        sub = _subchart_dir(current, parts[1])
        if sub is None:
            return None
        current, parts = sub, parts[2:]
    folder, top = Path(os.path.realpath(current)), Path(os.path.realpath(root))
    if not parts or not folder.is_relative_to(top):
        return None
    return folder.relative_to(top).joinpath(*parts).as_posix().removeprefix("./")


def _subchart_dir(chart_dir: Path, name: str) -> Path | None:
    """The folder of the subchart Helm names `name`: charts/<name>, an aliased dependency, or a
    folder under charts/ whose Chart.yaml has that name."""
    direct = chart_dir / "charts" / name
    if (direct / "Chart.yaml").is_file():
        return direct
    metadata = _chart_yaml(chart_dir)
    for dependency in metadata.get("dependencies") or []:
        if (
            isinstance(dependency, dict)
            and dependency.get("alias") == name
            and isinstance(dependency.get("name"), str)
        ):
            aliased = chart_dir / "charts" / str(dependency["name"])
            if (aliased / "Chart.yaml").is_file():
                return aliased
    candidates = (
        sorted((chart_dir / "charts").glob("*/Chart.yaml"))
        if (chart_dir / "charts").is_dir()
        else []
    )
    return next((c.parent for c in candidates if _chart_yaml(c.parent).get("name") == name), None)


def _chart_yaml(chart_dir: Path) -> dict[str, Any]:
    try:
        loaded = yamlio.load_one(
            (chart_dir / "Chart.yaml").read_text(encoding="utf-8"), source=str(chart_dir)
        )
    except (OSError, UnicodeDecodeError, AftershockError):
        return {}
    return loaded if isinstance(loaded, dict) else {}
