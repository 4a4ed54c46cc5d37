"""The values a repository's CI and tests give its charts, indexed to answer "which file sets key K?".

A platform injects values into every chart it installs (`global.registry`, an owner-info map); its
repository shows them only in the values its CI and tests pass: chart-testing's `ci/*-values.yaml`,
the values files helm-unittest suites load, and what a suite sets for all its tests (`set:`). When
no context renders a chart because a key is missing, the render stage looks the key up here
(pipeline/context/inferred_values.py). Built once per side, from texts; a chart's files are parsed
when a lookup first reaches that chart.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aftershock.diff.values_keys import parse_values
from aftershock.gocompat.gofmt import stringify_keys_deep
from aftershock.gocompat.goyaml import GoYamlError
from aftershock.helmtest.suite_values import chart_suites, suite_values_file
from aftershock.helmtest.values import SetPathError, user_values
from aftershock.model.errors import AftershockError

TextReader = Callable[[str], str | None]
Key = tuple[str, ...]


@dataclass(frozen=True)
class IndexedChart:
    """One chart as the index reads it."""

    path: str
    files: tuple[str, ...]  # repository paths under the chart folder
    suites: tuple[str, ...]  # its helm-unittest suite files
    dependencies: Mapping[str, str] = field(
        default_factory=dict, hash=False
    )  # values key (alias or name) -> the dependency's chart folder here


@dataclass(frozen=True)
class ValuesSource:
    """One values file of the CI or the tests, parsed."""

    chart: str
    file: str  # repository path
    values: Mapping[str, Any] = field(hash=False)


@dataclass(frozen=True)
class FoundValue:
    """The value a source sets at `key` (the key as the chart asking for it sees it)."""

    key: Key
    value: Any = field(hash=False)
    file: str


class PlatformValues:
    """Every chart's CI and test values files, in chart order, and each chart's dependencies.

    A chart's files are parsed the first time a lookup reaches it: a key is usually found in the
    asking chart's own files, so a one-chart review need not parse every values file of the tree.
    """

    def __init__(self, charts: Sequence[IndexedChart] = (), read: TextReader = lambda _: None):
        self._charts = {c.path: c for c in sorted(charts, key=lambda c: c.path)}
        self._read = read
        self._parsed: dict[str, tuple[ValuesSource, ...]] = {}
        self.dependencies: Mapping[str, Mapping[str, str]] = {
            c.path: dict(c.dependencies) for c in charts
        }

    @property
    def sources(self) -> tuple[ValuesSource, ...]:
        """Every chart's sources, in chart order (parses them all)."""
        return tuple(s for chart in self._charts for s in self._of(chart))

    def gives_any(self) -> bool:
        """Whether any chart gives values, parsing charts only until one does."""
        return any(self._of(chart) for chart in self._charts)

    def find(self, chart: str, key: Key) -> FoundValue | None:
        """Where `key` is set for `chart`: its own files first; a key under a dependency's name in
        that dependency's files; a `global.` key (platform-wide by Helm's rules) in the dependencies'
        files, then in any chart's."""
        found = self._own(chart, key) or self._through_dependency(chart, key, frozenset())
        if found is None and key[0] == "global":
            nearby = list(self.dependencies.get(chart, {}).values())
            found = next((f for c in nearby if (f := self._own(c, key)) is not None), None) or next(
                (f for c in self._charts if (f := self._own(c, key)) is not None), None
            )
        return found

    def _of(self, chart: str) -> tuple[ValuesSource, ...]:
        if chart not in self._parsed:
            indexed = self._charts.get(chart)
            self._parsed[chart] = (
                tuple(_chart_sources(indexed, self._read)) if indexed is not None else ()
            )
        return self._parsed[chart]

    def _own(self, chart: str, key: Key) -> FoundValue | None:
        return next((f for s in self._of(chart) if (f := _found(s, key)) is not None), None)

    def _through_dependency(self, chart: str, key: Key, seen: frozenset[str]) -> FoundValue | None:
        dependency = self.dependencies.get(chart, {}).get(key[0])
        if len(key) < 2 or dependency is None or dependency in seen:
            return None
        inner = self._own(dependency, key[1:]) or self._through_dependency(
            dependency, key[1:], seen | {chart}
        )
        return FoundValue(key, inner.value, inner.file) if inner is not None else None


def _found(source: ValuesSource, key: Key) -> FoundValue | None:
    node: Any = source.values
    for part in key:
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    if node is None or node == "":
        return None  # set to nothing: no help to a chart that needs it
    return FoundValue(key, node, source.file)


def platform_values(charts: Sequence[IndexedChart], read: TextReader) -> PlatformValues:
    """The CI and test values files of `charts`, each chart's in order: `ci/*-values.yaml` by name,
    then the files its suites load in suite order; a file that cannot be read is left out. Each
    chart's files are read when a lookup first reaches the chart."""
    return PlatformValues(charts, read)


def gives_any_values(charts: Iterable[IndexedChart], read: TextReader) -> bool:
    """Whether `platform_values` of these charts would hold any source, reading charts only until
    the first one that gives some (a one-chart review need not parse every suite of the tree)."""
    return any(next(iter(_chart_sources(chart, read)), None) is not None for chart in charts)


def _chart_sources(chart: IndexedChart, read: TextReader) -> Iterable[ValuesSource]:
    readers = dict.fromkeys(_ci_files(chart), _ci_values)
    readers |= {p: suite_values_file for p in _suite_files(chart, read) if p not in readers}
    for path, reader in readers.items():
        try:
            values = reader(path, read)
        except (AftershockError, ValueError, GoYamlError):
            continue
        if values:
            yield ValuesSource(chart.path, path, values)
    yield from _suite_sets(chart, read)


def _suite_sets(chart: IndexedChart, read: TextReader) -> Iterable[ValuesSource]:
    """The values each suite of the chart sets for all its tests (`set:` at the suite's level: the
    maps a platform injects into every app, `_cluster`, `_namespace`), after its values files."""
    for suite_path in chart.suites:
        for suite in chart_suites(suite_path, read):
            if not suite.set:
                continue
            try:
                values = stringify_keys_deep(user_values([], dict(suite.set), {}, "chart"))
            except (ValueError, SetPathError):
                continue
            if values:
                yield ValuesSource(chart.path, f"{suite_path} (set)", values)


def _ci_files(chart: IndexedChart) -> Iterable[str]:
    folder = f"{chart.path}/ci/" if chart.path else "ci/"
    return sorted(
        p
        for p in chart.files
        if p.startswith(folder)
        and "/" not in p[len(folder) :]
        and p.endswith(("-values.yaml", "-values.yml"))
    )


def _ci_values(path: str, read: TextReader) -> Mapping[str, Any]:
    """A chart-testing values file as Helm reads it."""
    return parse_values(read(path), source=path)


def _suite_files(chart: IndexedChart, read: TextReader) -> Iterable[str]:
    for suite_path in chart.suites:
        for suite in chart_suites(suite_path, read):
            folder = posixpath.dirname(suite_path)
            given = [*suite.values, *(v for t in suite.tests for v in t.values)]
            yield from (posixpath.normpath(posixpath.join(folder, v)) for v in given)
