"""Candidate render contexts of a chart, in the order they are tried (see model/contexts.py).

Each candidate carries the render inputs it gives at base and at head: a context is chosen by what
renders at base, but its files are read at each side, so a change to a context's own values file
(a test values file, a release's values) shows in the review. This module reads trees and the
configuration; it renders nothing.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aftershock.diff.values_keys import parse_values
from aftershock.gocompat.gofmt import stringify_keys_deep
from aftershock.gocompat.goyaml import GoYamlError
from aftershock.helmtest.suite_values import chart_suites, suite_values_file
from aftershock.helmtest.values import SetPathError, user_values
from aftershock.model.contexts import ContextKind
from aftershock.model.errors import AftershockError
from aftershock.releases.values import merge_maps
from aftershock.render.plan import RenderInputs

TextReader = Callable[[str], str | None]


@dataclass(frozen=True)
class ContextCandidate:
    """One context to try: its inputs at each side (None where it does not exist at that side)."""

    kind: ContextKind
    name: str
    reason: str
    base: RenderInputs | None
    head: RenderInputs | None

    def inputs(self, side: str) -> RenderInputs | None:
        return self.base if side == "base" else self.head


@dataclass(frozen=True)
class ChartFiles:
    """One side of a chart as the candidates read it: its folder, its files and a text reader."""

    chart_path: str
    paths: tuple[str, ...]  # repository paths under the chart folder
    read: TextReader
    label: str

    def rel(self, path: str) -> str:
        return f"{self.chart_path}/{path}" if self.chart_path else path


def configured_contexts(
    chart_path: str, declared: Iterable[Any], sides: Mapping[str, ChartFiles | None]
) -> list[ContextCandidate]:
    """`.aftershock.yaml` `contexts:` entries whose `charts` globs match the chart folder."""
    found = []
    for entry in declared:
        if not any(fnmatch.fnmatchcase(chart_path, pattern) for pattern in entry.charts):
            continue
        inputs = {side: _configured_inputs(entry, files) for side, files in sides.items()}
        reason = "declared in .aftershock.yaml" + (
            f" (values {', '.join(entry.values_files)})" if entry.values_files else ""
        )
        found.append(
            ContextCandidate(
                ContextKind.CONFIG,
                f"config:{entry.name}",
                reason,
                inputs.get("base"),
                inputs.get("head"),
            )
        )
    return found


def _configured_inputs(entry: Any, files: ChartFiles | None) -> RenderInputs | None:
    if files is None:
        return None
    values: dict[str, Any] = {}
    for given in entry.values_files:
        # "/x.yaml" is relative to the repository root, anything else to the chart folder.
        path = given.lstrip("/") if given.startswith("/") else files.rel(given)
        values = merge_maps(
            values, parse_values(files.read(path), source=f"{path} at {files.label}")
        )
    values = merge_maps(values, dict(entry.values))
    return RenderInputs(
        values, entry.release_name, entry.namespace, entry.kube_version, tuple(entry.api_versions)
    )


def chart_testing_contexts(sides: Mapping[str, ChartFiles | None]) -> list[ContextCandidate]:
    """chart-testing's `ci/*-values.yaml`, each a context, by file name."""
    names = sorted(
        {
            p[len(f.rel("ci/")) :]
            for f in sides.values()
            if f is not None
            for p in f.paths
            if p.startswith(f.rel("ci/"))
            and "/" not in p[len(f.rel("ci/")) :]
            and p.endswith(("-values.yaml", "-values.yml"))
        }
    )
    found = []
    for name in names:
        inputs = {side: _file_inputs(files, f"ci/{name}") for side, files in sides.items()}
        found.append(
            ContextCandidate(
                ContextKind.CHART_TESTING,
                f"ci/{name}",
                f"chart-testing values ci/{name}",
                inputs.get("base"),
                inputs.get("head"),
            )
        )
    return found


def _file_inputs(files: ChartFiles | None, rel: str) -> RenderInputs | None:
    if files is None or files.rel(rel) not in files.paths:
        return None
    path = files.rel(rel)
    return RenderInputs(dict(parse_values(files.read(path), source=f"{path} at {files.label}")))


MAX_TEST_GROUPS = 3  # each group is one more trial render of the chart


@dataclass(frozen=True)
class _SuiteShare:
    """What one suite gives all its tests: values files (repository paths), `set`, release, capabilities."""

    files: tuple[str, ...]
    set: tuple[tuple[str, str], ...]
    release: tuple[str, str]
    kube_version: str

    def __bool__(self) -> bool:
        return bool(self.files or self.set or any(self.release) or self.kube_version)


def tests_context(
    sides: Mapping[str, ChartFiles | None], suite_paths: Callable[[ChartFiles], Sequence[str]]
) -> list[ContextCandidate]:
    """One candidate per group of the chart's suites that load the same values files, `set`, release
    and capabilities, the groups most suites share first (ties in file order). A group without a
    release borrows the one most of the chart's suites give. A group fewer suites use than load
    nothing at all (the defaults) is left out.

    Grouped on the side the chart is tried on (base, else head); its files are read at each side."""
    source = sides.get("base") or sides.get("head")
    if source is None:
        return []
    shares = [
        _share(suite) for path in suite_paths(source) for suite in chart_suites(path, source.read)
    ]
    total = len(shares)
    # Suites that load nothing render the chart's defaults: a group fewer suites use than those is
    # not how the chart is meant to render (one suite's edge case), so it is no candidate.
    plain = sum(1 for s in shares if not s)
    groups = [
        (share, count)
        for share, count in Counter(s for s in shares if s).most_common(MAX_TEST_GROUPS)
        if count > plain
    ]
    borrowed = _common_release(shares)
    found = []
    for number, (share, count) in enumerate(groups, start=1):
        release = share.release if any(share.release) else borrowed
        reason = _tests_reason(share, count, total, release, shares, source.chart_path)
        recipe = (share.files, dict(share.set), release or ("", ""), share.kube_version)
        inputs = {side: _suite_inputs(f, *recipe) for side, f in sides.items()}
        name = "tests" if number == 1 else f"tests:{number}"
        found.append(
            ContextCandidate(
                ContextKind.TESTS, name, reason, inputs.get("base"), inputs.get("head")
            )
        )
    return found


def _share(suite: Any) -> _SuiteShare:
    folder = posixpath.dirname(suite.file)
    own = [posixpath.normpath(posixpath.join(folder, v)) for v in suite.values]
    # A file every test of the suite loads counts as the suite's own.
    per_test = [
        {posixpath.normpath(posixpath.join(folder, v)) for v in t.values} for t in suite.tests
    ]
    common = set.intersection(*per_test) if per_test else set()
    files = tuple(dict.fromkeys(own + sorted(common)))
    sets = tuple(
        sorted(
            (str(k), json.dumps(stringify_keys_deep(v), sort_keys=True, default=str))
            for k, v in suite.set.items()
        )
    )
    kube = ".".join(
        p for p in (suite.capabilities.major_version, suite.capabilities.minor_version) if p
    )
    return _SuiteShare(files, sets, (suite.release.name, suite.release.namespace), kube)


def _common_release(shares: list[_SuiteShare]) -> tuple[str, str] | None:
    """The release most of the chart's suites that give one give (ties in file order)."""
    given = Counter(s.release for s in shares if any(s.release))
    return given.most_common(1)[0][0] if given else None


def _tests_reason(
    share: _SuiteShare,
    count: int,
    total: int,
    release: tuple[str, str] | None,
    shares: list[_SuiteShare],
    chart: str,
) -> str:
    prefix = f"{chart}/" if chart else ""
    loaded = f"loaded by {count} of {total} suites"
    parts = [f"values of {path.removeprefix(prefix)}, {loaded}" for path in share.files]
    if share.set:
        parts.append(f"{len(share.set)} `set` value(s) of {count} of {total} suites")
    if release:
        name, namespace = release
        n = sum(s.release == release for s in shares)
        borrowed = "" if release == share.release else ", borrowed"
        parts.append(
            f"release {name or '(default)'} in namespace {namespace or '(default)'}"
            f"{borrowed} from {n} of {total} suites"
        )
    if share.kube_version and not parts:
        parts.append(f"capabilities of {count} of {total} suites")
    return "; ".join(parts)


def _suite_inputs(
    files: ChartFiles | None,
    paths: tuple[str, ...],
    sets: dict[str, str],
    release: tuple[str, str],
    kube: str,
) -> RenderInputs | None:
    if files is None:
        return None
    try:
        documents = [suite_values_file(p, files.read) for p in paths if files.read(p) is not None]
        values = stringify_keys_deep(
            user_values(documents, {k: json.loads(v) for k, v in sets.items()}, {}, "chart")
        )
    except (ValueError, SetPathError, GoYamlError) as error:
        raise AftershockError(
            f"the tests' values cannot be read: {error}", where=files.label
        ) from None
    name, namespace = release
    return RenderInputs(
        values, name or None, namespace or None, f"v{kube}.0" if kube.count(".") == 1 else None
    )


DEFAULTS = ContextCandidate(
    ContextKind.DEFAULTS, "defaults", "the chart's own defaults", RenderInputs(), RenderInputs()
)
