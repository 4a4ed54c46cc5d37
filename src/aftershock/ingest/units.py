"""Maps each changed file to the logical units it touches (templates, values files, tests, docs, ...)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable

from aftershock.ingest.chart_owners import owning_chart
from aftershock.model.change import FileChange, FileStatus
from aftershock.model.units import Chart, Unit, UnitKind

_DEFINE = re.compile(r"""\{\{-?\s*define\s+"([^"]+)"\s*-?\}\}""")
_DOC_SUFFIXES = (".md", ".rst", ".adoc", ".txt")
_SCRIPT_SUFFIXES = (".sh", ".bash", ".py", ".ps1", ".mk")
_CI_PREFIXES = (
    ".github/",
    ".gitlab-ci",
    ".ci/",
    ".circleci/",
    ".buildkite/",
    "Jenkinsfile",
    ".tekton/",
)

TextReader = Callable[[str], str | None]  # path -> text, None when absent at that ref


def defined_templates(text: str) -> tuple[str, ...]:
    """Names of the named templates a template file `define`s, in file order."""
    return tuple(dict.fromkeys(_DEFINE.findall(text)))


def classify_in_chart(rel: str) -> UnitKind:
    """The unit kind of a path relative to its chart's folder."""
    name = posixpath.basename(rel)
    if rel == "Chart.yaml" or rel == "requirements.yaml":
        return UnitKind.CHART_METADATA
    if rel in ("Chart.lock", "requirements.lock"):
        return UnitKind.CHART_LOCK
    if rel == "values.schema.json":
        return UnitKind.VALUES_SCHEMA
    if _is_values_file(rel):
        return UnitKind.VALUES_FILE
    if rel.startswith("templates/"):
        return _template_kind(name)
    if rel.startswith("crds/"):
        return UnitKind.CRD
    if rel.startswith("tests/"):
        return UnitKind.TEST_SNAPSHOT if "/__snapshot__/" in rel else UnitKind.TEST_SUITE
    return _repository_kind(rel, default=UnitKind.CHART_FILE)


def _template_kind(name: str) -> UnitKind:
    if name == "NOTES.txt":
        return UnitKind.NOTES
    return UnitKind.TEMPLATE_HELPERS if name.startswith("_") else UnitKind.TEMPLATE


def _is_values_file(rel: str) -> bool:
    """values.yaml, values-*.yaml beside Chart.yaml, and chart-testing's ci/*-values.yaml."""
    name = posixpath.basename(rel)
    folder = posixpath.dirname(rel)
    is_yaml = name.endswith((".yaml", ".yml"))
    if folder == "":
        return is_yaml and (name.startswith("values") or name.endswith("values.yaml"))
    return folder == "ci" and is_yaml


def _repository_kind(path: str, default: UnitKind = UnitKind.OTHER) -> UnitKind:
    name = posixpath.basename(path)
    if path.startswith(_CI_PREFIXES):
        return UnitKind.CI
    if (
        path.startswith("docs/")
        or "/docs/" in path
        or name.lower().endswith(_DOC_SUFFIXES)
        or name
        in (
            "LICENSE",
            "NOTICE",
            "OWNERS",
            "CODEOWNERS",
        )
    ):
        return UnitKind.DOCS
    if (
        path.startswith(("scripts/", "hack/"))
        or name.endswith(_SCRIPT_SUFFIXES)
        or name == "Makefile"
    ):
        return UnitKind.SCRIPT
    return default


def units_for_file(
    change: FileChange,
    charts_base: Iterable[Chart],
    charts_head: Iterable[Chart],
    read_base: TextReader,
    read_head: TextReader,
) -> tuple[Unit, ...]:
    """The units one changed file touches, on either side of a rename."""
    units: dict[str, Unit] = {}
    sides = []
    if change.status is not FileStatus.ADDED:
        sides.append((change.old_path or change.path, charts_base, read_base))
    if change.status is not FileStatus.DELETED:
        sides.append((change.path, charts_head, read_head))
    for path, charts, read in sides:
        unit = _unit(path, owning_chart(path, charts), read)
        previous = units.get(unit.id)
        defines = tuple(dict.fromkeys((previous.defines if previous else ()) + unit.defines))
        units[unit.id] = Unit(unit.id, unit.kind, unit.path, unit.chart, defines)
    return tuple(units.values())


def _unit(path: str, chart: Chart | None, read: TextReader) -> Unit:
    if chart is None:
        return Unit(id=f"file:{path}", kind=_repository_kind(path), path=path)
    rel = path[len(chart.path) + 1 :] if chart.path else path
    kind = classify_in_chart(rel)
    defines: tuple[str, ...] = ()
    if kind in (UnitKind.TEMPLATE, UnitKind.TEMPLATE_HELPERS):
        text = read(path)
        defines = defined_templates(text) if text else ()
    return Unit(id=f"{kind.value}:{path}", kind=kind, path=path, chart=chart.path, defines=defines)
