"""Chart discovery at one ref: every folder with a Chart.yaml, its dependencies, and who includes whom."""

from __future__ import annotations

import bisect
import functools
import itertools
import posixpath
from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from typing import Any, Protocol

from aftershock.gocompat.gofmt import format_scalar
from aftershock.gocompat.semver import satisfies  # Helm's semver ranges (Masterminds), pure
from aftershock.gocompat.yamlio import load_one
from aftershock.model.errors import MalformedInputError
from aftershock.model.units import Chart, ChartDependency, ChartType, DependencySource


class ChartSource(Protocol):
    """What discovery needs from a tree at one ref."""

    def file_paths(self) -> Iterable[str]:
        """Every path in the tree that is a file or a symlink."""
        ...

    def symlink_target(self, path: str) -> str | None:
        """The repository path a symlink entry points at (normalised), or None for a non-link."""
        ...

    def read_text(self, path: str) -> str: ...

    def read_texts(self, paths: Iterable[str]) -> Mapping[str, str]:
        """Many files in one batch (each must exist)."""
        ...


def discover_charts(
    tree: ChartSource, ref_label: str, dependency_map: Mapping[str, str] | None = None
) -> tuple[Chart, ...]:
    """Find every chart in the tree, sorted by path, with dependencies resolved to repository paths.

    An `https://` or `oci://` dependency that is not vendored resolves to a chart of this tree:
    the folder `dependency_map` gives for `<repository>/<name>` or `<name>` (observed), else the
    one chart whose name matches and whose version satisfies the range, as Helm checks it (inferred).
    """
    paths = sorted(tree.file_paths())
    chart_dirs = sorted(
        posixpath.dirname(p) for p in paths if posixpath.basename(p) == "Chart.yaml"
    )
    links = {p: t for p in paths if (t := tree.symlink_target(p)) is not None}
    dir_set = set(chart_dirs)
    path_set = set(paths)
    lock_files = [
        lock
        for d in chart_dirs
        for lock in (posixpath.join(d, "Chart.lock"), posixpath.join(d, "requirements.lock"))
        if lock in path_set and lock not in links
    ]
    texts = tree.read_texts([*(posixpath.join(d, "Chart.yaml") for d in chart_dirs), *lock_files])
    charts = []
    for chart_dir in chart_dirs:
        try:
            meta = _parse_chart_yaml(
                texts[posixpath.join(chart_dir, "Chart.yaml")], chart_dir, ref_label
            )
            deps = _dependencies(tree, chart_dir, meta, paths, links, dir_set, ref_label)
        except MalformedInputError as error:
            # one chart's broken metadata must not stop the review of the others: it is kept, and
            # its renders fail with Helm's own reading of it (not reviewed; a finding where it broke)
            charts.append(_unreadable(chart_dir, error, _embedding_parent(chart_dir, dir_set)))
            continue
        deps = _with_locked(deps, chart_dir, texts)
        charts.append(_chart(chart_dir, meta, deps, _embedding_parent(chart_dir, dir_set)))
    named: dict[str, list[Chart]] = {}
    for chart in charts:
        named.setdefault(chart.name, []).append(chart)
    found = [_in_repository(chart, named, dir_set, dependency_map or {}) for chart in charts]
    return _with_vendoring_parents(found)


def _with_vendoring_parents(charts: list[Chart]) -> tuple[Chart, ...]:
    """A chart kept inside another's folder as its `file://` dependency (`vendor/exporter`) is that
    chart's subchart, as one under its charts/ is: Helm packs it into the parent and never installs it
    alone, and it often reads the parent's named templates and `global` values."""
    vendoring: dict[str, str] = {}
    for parent in charts:
        for dep in parent.dependencies:
            vendored = dep.resolved_path
            if (
                dep.source is DependencySource.FILE
                and vendored
                and vendored != parent.path
                and parent.contains(vendored)
                and len(parent.path) >= len(vendoring.get(vendored, ""))
            ):
                vendoring[vendored] = parent.path  # the innermost parent
    return tuple(
        replace(c, embedded_in=vendoring[c.path])
        if c.embedded_in is None and c.path in vendoring
        else c
        for c in charts
    )


def _in_repository(
    chart: Chart,
    named: Mapping[str, list[Chart]],
    paths: Collection[str],
    dependency_map: Mapping[str, str],
) -> Chart:
    """The chart, its remote dependencies resolved to charts of the tree (`named`: by name)."""
    deps = tuple(
        _in_repository_dependency(chart, dep, named, paths, dependency_map)
        for dep in chart.dependencies
    )
    return chart if deps == chart.dependencies else replace(chart, dependencies=deps)


def _in_repository_dependency(
    chart: Chart,
    dep: ChartDependency,
    named: Mapping[str, list[Chart]],
    paths: Collection[str],
    dependency_map: Mapping[str, str],
) -> ChartDependency:
    if dep.source is not DependencySource.REMOTE or not dep.repository.startswith(
        ("https://", "oci://")
    ):
        return dep
    others = [c for c in named.get(dep.name, ()) if c.path != chart.path]  # charts of its name
    for key in (f"{dep.repository.rstrip('/')}/{dep.name}", dep.name):
        mapped = dependency_map.get(key)
        folder = None if mapped is None else posixpath.normpath(mapped).strip("/")
        if folder in paths:
            return replace(dep, source=DependencySource.IN_REPO_CONFIGURED, resolved_path=folder)
    if dep.locked:
        # Helm builds charts/ from the lock: only a chart at the locked version is what it installs
        # (else that version from history or the chart cache, never the newest chart here).
        locked = [c for c in others if same_version(c.version, dep.locked)]
        if len(locked) == 1:
            return replace(
                dep, source=DependencySource.IN_REPO_LOCKED, resolved_path=locked[0].path
            )
        return dep
    matches = [c for c in others if not dep.version or _satisfies(c.version, dep.version)]
    if len(matches) == 1:
        return replace(dep, source=DependencySource.IN_REPO_INFERRED, resolved_path=matches[0].path)
    return dep


def _satisfies(version: str, constraint: str) -> bool:
    try:
        return satisfies(version, constraint)
    except ValueError:
        return False  # a malformed version or range resolves to nothing, as Helm finds nothing


def same_version(version: str, locked: str) -> bool:
    return version.removeprefix("v") == locked.removeprefix("v")


def _with_locked(
    deps: tuple[ChartDependency, ...], chart_dir: str, texts: Mapping[str, str]
) -> tuple[ChartDependency, ...]:
    """The remote dependencies with the version the chart's Chart.lock (requirements.lock) pins."""
    locked: dict[str, str] = {}
    for name in ("Chart.lock", "requirements.lock"):
        text = texts.get(posixpath.join(chart_dir, name))
        if text is not None and not locked:
            locked = dict(_lock_entries(text))
    if not locked:
        return deps
    return tuple(
        replace(d, locked=locked[d.name])
        if d.source is DependencySource.REMOTE and d.name in locked
        else d
        for d in deps
    )


@functools.lru_cache(maxsize=8192)  # base and head mostly hold the same locks
def _lock_entries(text: str) -> tuple[tuple[str, str], ...]:
    """(name, version) of a lock file's entries; a lock that does not parse pins nothing (Helm's
    `dependency build` would fail on it, and the dependency resolves as if unlocked)."""
    try:
        lock = load_one(text, source="Chart.lock")
    except MalformedInputError:
        return ()
    entries = lock.get("dependencies") if isinstance(lock, dict) else None
    return tuple(
        (_text(e["name"]), _text(e["version"]))
        for e in (entries if isinstance(entries, list) else ())
        if isinstance(e, dict) and e.get("name") and e.get("version")
    )


def same_named_charts(dep: ChartDependency, charts: Iterable[Chart]) -> list[Chart]:
    """Charts of the tree named as a dependency (for saying why it did not resolve to one)."""
    return [c for c in charts if c.name == dep.name]


def _unreadable(path: str, error: MalformedInputError, parent: str | None) -> Chart:
    """A chart whose metadata cannot be read: named after its folder, with why."""
    chart = _chart(path, {"apiVersion": "v2"}, (), parent)
    return replace(chart, metadata_error=error.line())


def _chart(
    path: str, meta: Mapping[str, Any], deps: tuple[ChartDependency, ...], parent: str | None
) -> Chart:
    kind = (
        ChartType.LIBRARY
        if str(meta.get("type", "")).lower() == "library"
        else ChartType.APPLICATION
    )
    app_version = meta.get("appVersion")
    return Chart(
        path=path,
        name=_text(meta.get("name") or posixpath.basename(path)),
        version=_text(meta.get("version", "")),
        type=kind,
        api_version=str(meta.get("apiVersion", "v1")),
        app_version=None if app_version is None else str(app_version),
        dependencies=deps,
        embedded_in=parent,
    )


def _parse_chart_yaml(text: str, chart_dir: str, ref_label: str) -> Mapping[str, Any]:
    path = posixpath.join(chart_dir, "Chart.yaml")
    meta = _parsed(text) if _parses(text) else load_one(text, source=f"{path} at {ref_label}")
    if not isinstance(meta, dict):
        raise MalformedInputError(
            "Chart.yaml is not a mapping",
            where=f"{path} at {ref_label}",
            hint="fix the chart metadata",
        )
    if not meta.get("name"):
        raise MalformedInputError(
            "Chart.yaml has no name",
            where=f"{path} at {ref_label}",
            hint="add `name:` to the chart metadata",
        )
    return meta


def _text(value: Any) -> str:
    """A Chart.yaml string field as Helm reads it (sigs.k8s.io/yaml into a string): `name: y` is the
    YAML 1.1 boolean true, so "true", never Python's "True"; numbers keep their decimal text."""
    if isinstance(value, (bool, int, float)):
        return format_scalar(value)
    return str(value)  # a map or list: Helm refuses the chart, and says so


@functools.lru_cache(maxsize=8192)
def _parsed(text: str) -> Any:
    """A Chart.yaml parsed once per distinct text: base and head mostly hold the same ones (the
    result is shared: read it, never change it)."""
    return load_one(text, source="Chart.yaml")


def _parses(text: str) -> bool:
    """Whether the text parses; a failing one is parsed again with its path, for the error line."""
    try:
        _parsed(text)
    except MalformedInputError:
        return False
    return True


def _embedding_parent(chart_dir: str, chart_dirs: set[str]) -> str | None:
    """A chart at `<parent>/charts/<name>` is embedded in the chart at <parent>."""
    head = posixpath.dirname(chart_dir)
    parent, charts = posixpath.split(head)
    if charts == "charts" and parent in chart_dirs:
        return parent
    return None


def _declared(
    tree: ChartSource, chart_dir: str, meta: Mapping[str, Any], ref_label: str
) -> list[dict[str, Any]]:
    deps = meta.get("dependencies")
    if deps is None and meta.get("apiVersion", "v1") == "v1":
        req = posixpath.join(chart_dir, "requirements.yaml")
        try:
            text = tree.read_text(req)
        except KeyError:
            return []
        requirements = load_one(text, source=f"{req} at {ref_label}")
        if requirements is not None and not isinstance(requirements, dict):
            raise MalformedInputError(
                "requirements.yaml is not a mapping",
                where=f"{req} at {ref_label}",
                hint="fix the chart metadata",
            )
        deps = (requirements or {}).get("dependencies")
    if deps is None:
        return []
    if not isinstance(deps, list) or not all(isinstance(d, dict) for d in deps):
        raise MalformedInputError(
            "dependencies must be a list of mappings",
            where=f"{posixpath.join(chart_dir, 'Chart.yaml')} at {ref_label}",
            hint="fix the chart metadata",
        )
    return deps


def _dependencies(
    tree: ChartSource,
    chart_dir: str,
    meta: Mapping[str, Any],
    paths: list[str],
    links: Mapping[str, str],
    chart_dirs: set[str],
    ref_label: str,
) -> tuple[ChartDependency, ...]:
    vendored = _vendored(chart_dir, paths, links, chart_dirs)
    result: dict[str, ChartDependency] = {}
    declared: set[str] = set()
    for dep in _declared(tree, chart_dir, meta, ref_label):
        name = _text(dep.get("name", ""))
        declared.add(name)
        # keyed by what the chart's values call it: one chart taken under two aliases is two dependencies
        key = _text(dep.get("alias") or name)
        result[key] = _declared_dependency(chart_dir, dep, vendored.get(name), chart_dirs)
    for name, found in vendored.items():
        if name not in declared:
            result.setdefault(name, found)
    return tuple(result[key] for key in sorted(result))


def _declared_dependency(
    chart_dir: str, dep: Mapping[str, Any], vendored: ChartDependency | None, chart_dirs: set[str]
) -> ChartDependency:
    name = _text(dep.get("name", ""))
    repository = _text(dep.get("repository") or "")
    source, resolved = DependencySource.REMOTE, None
    if vendored is not None:
        source, resolved = vendored.source, vendored.resolved_path
    elif repository.startswith("file://"):
        candidate = posixpath.normpath(posixpath.join(chart_dir, repository[len("file://") :]))
        source = DependencySource.FILE
        resolved = candidate if candidate in chart_dirs else None
    alias, condition = dep.get("alias"), dep.get("condition")
    return ChartDependency(
        name=name,
        version=_text(dep.get("version", "")),
        repository=repository,
        source=source,
        alias=None if alias is None else str(alias),
        condition=None if condition is None else str(condition),
        resolved_path=resolved,
    )


def _vendored(
    chart_dir: str, paths: list[str], links: Mapping[str, str], chart_dirs: set[str]
) -> dict[str, ChartDependency]:
    """Subcharts Helm loads from `<chart>/charts/`: folders, symlinked folders and archives.
    `paths` is sorted, so the entries under the prefix are one slice of it."""
    prefix = posixpath.join(chart_dir, "charts") + "/"
    found: dict[str, ChartDependency] = {}
    start = bisect.bisect_left(paths, prefix)
    for path in itertools.takewhile(
        lambda p: p.startswith(prefix), itertools.islice(paths, start, None)
    ):
        first = path[len(prefix) :].split("/", 1)[0]
        entry = prefix + first
        dep = _vendored_entry(first, entry, path, links, chart_dirs)
        if dep is not None:
            found.setdefault(dep.name, dep)
    return found


def _vendored_entry(
    first: str, entry: str, path: str, links: Mapping[str, str], chart_dirs: set[str]
) -> ChartDependency | None:
    if entry in chart_dirs:
        return ChartDependency(first, "", "", DependencySource.EMBEDDED, resolved_path=entry)
    if path == entry and entry in links and links[entry] in chart_dirs:
        return ChartDependency(first, "", "", DependencySource.SYMLINK, resolved_path=links[entry])
    if path == entry and first.endswith(".tgz"):
        return ChartDependency(
            first[: -len(".tgz")].rsplit("-", 1)[0], "", "", DependencySource.ARCHIVE
        )
    return None
