"""The merge calls of a chart's templates (and of the library charts it includes), and the defines
whose YAML output such a call takes as defaults, read once per review from a side's workspace.
Side effects: reads the materialised chart folders."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aftershock.model.override import MergeSite
from aftershock.model.units import Chart, ChartType
from aftershock.provenance.define_defaults import define_body
from aftershock.provenance.merges import MergeCall, merge_calls, pattern_text
from aftershock.render.plan import dependency_closure

_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl")
_MAX_TEMPLATE_BYTES = 2**20


class MergeSites:
    """The merge calls of each template folder, found once per review: a library's are in every
    chart that includes it."""

    def __init__(self) -> None:
        self._by_folder: dict[tuple[Path, str], list[tuple[MergeSite, MergeCall]]] = {}
        # a define found once per side and name: every merge call and chart using it asks again
        self._defines: dict[tuple[Path, str, str], tuple[str, str, int] | None] = {}

    def of_chart(
        self, root: Path, chart: Chart, charts: Mapping[str, Chart]
    ) -> list[tuple[MergeSite, MergeCall]]:
        """The merge calls of the chart's templates and of the library charts it includes."""
        return [
            site for folder in _folders(chart, charts) for site in self._of_folder(root, folder)
        ]

    def _of_folder(self, root: Path, folder: str) -> list[tuple[MergeSite, MergeCall]]:
        key = (root, folder)
        if key not in self._by_folder:
            self._by_folder[key] = _folder_sites(root, folder)
        return self._by_folder[key]

    def define(
        self, root: Path, chart: Chart, charts: Mapping[str, Chart], name: str
    ) -> tuple[str, str, int] | None:
        """(template path, body, first line) of the define `name` among the chart's templates and
        its libraries', as the side's workspace holds them."""
        key = (root, chart.path, name)
        if key not in self._defines:
            self._defines[key] = _find_define(root, _folders(chart, charts), name)
        return self._defines[key]


def _find_define(root: Path, folders: list[str], name: str) -> tuple[str, str, int] | None:
    for folder in folders:
        templates = root / folder / "templates" if folder else root / "templates"
        for file in _template_files(templates):
            found = define_body(read_text(file), name)
            if found is not None:
                template = join(folder, "templates/" + file.relative_to(templates).as_posix())
                return template, found[0], found[1]
    return None


def _folder_sites(root: Path, folder: str) -> list[tuple[MergeSite, MergeCall]]:
    templates = root / folder / "templates" if folder else root / "templates"
    sites = []
    for file in _template_files(templates):
        template = join(folder, "templates/" + file.relative_to(templates).as_posix())
        for call in merge_calls(read_text(file)):
            site = MergeSite(
                template,
                call.line,
                call.function,
                pattern_text(call.defaults),
                pattern_text(call.overrides),
            )
            sites.append((site, call))
    return sites


def _is_library(chart: Chart | None) -> bool:
    return chart is not None and chart.type is ChartType.LIBRARY


def _folders(chart: Chart, charts: Mapping[str, Chart]) -> list[str]:
    return [
        p
        for p in dependency_closure(chart, charts)
        if p == chart.path or _is_library(charts.get(p))
    ]


def _template_files(templates: Path) -> list[Path]:
    files = templates.rglob("*") if templates.is_dir() else ()
    return sorted(p for p in files if p.is_file() and p.suffix in _TEMPLATE_SUFFIXES)


def read_text(path: Path) -> str:
    try:
        if path.stat().st_size > _MAX_TEMPLATE_BYTES:
            return ""
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name
