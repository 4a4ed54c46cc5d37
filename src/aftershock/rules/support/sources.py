"""Reading repository sources handed to rules: files of a chart, line numbers, tolerant YAML/JSON parsing."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from aftershock.gocompat.yamlnodes import safe_load_all
from aftershock.model.review import Review
from aftershock.model.units import ChartType
from aftershock.rules.model import SourceFiles


def files_under(
    texts: Mapping[str, str], folder: str, suffixes: tuple[str, ...] = ()
) -> Iterator[tuple[str, str]]:
    prefix = folder.rstrip("/") + "/" if folder else ""
    for path in texts.under(prefix) if isinstance(texts, SourceFiles) else sorted(texts):
        if path.startswith(prefix) and (not suffixes or path.endswith(suffixes)):
            yield path, texts[path]


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def find_lines(text: str, pattern: re.Pattern[str]) -> list[int]:
    return [line_of(text, match.start()) for match in pattern.finditer(text)]


def load_yaml_documents(text: str) -> list[Any]:
    """Every document of a YAML text; [] when it does not parse (other rules report broken files)."""
    try:
        return [doc for doc in safe_load_all(text) if doc is not None]
    except yaml.YAMLError:
        return []


def load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def library_dependencies(review: Review, chart_path: str) -> tuple[str, ...]:
    """Folders of the library charts `chart_path` includes (their templates read the parent's .Values)."""
    by_path = {chart.path: chart for chart in review.charts}
    chart = by_path.get(chart_path)
    found = []
    for dep in chart.dependencies if chart else ():
        target = by_path.get(dep.resolved_path or "")
        if target is not None and target.type is ChartType.LIBRARY:
            found.append(target.path)
    return tuple(found)
