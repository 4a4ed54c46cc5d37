"""In-repo dependencies on a version of a chart this repository held earlier.

A chart often pins a remote dependency (`common 4.1.0` from `https://…`) that this repository
publishes itself, and which it has already moved past (`charts/library/common` is 4.1.1 now):
Helm would download 4.1.0, which is that chart folder as it was at the last commit whose
Chart.yaml carried a version in the range (exactly the version its Chart.lock pins, when it has one:
that is what `helm dependency build` puts under charts/). Such a dependency resolves to that folder at that
commit (inferred, like any in-repo dependency), under the workspace path
`.aftershock-history/<commit>/<chart path>`; nothing is downloaded.

Only the first-parent history of the reviewed commit is searched, newest first, in one walk over the
Chart.yaml files of the charts wanted, which ends as soon as every wanted version is found (a pinned
version is most often a few bumps back): a version found nowhere costs the whole history of those
files, once. A review asks only for the charts it renders (`needed_by`), and again for each chart it
comes to render later (`pipeline.rendering.chart_history`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from aftershock.gocompat.semver import satisfies
from aftershock.gocompat.yamlio import load_one
from aftershock.ingest.repository.blobs import BlobReader
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.tree import EntryKind
from aftershock.model.errors import AftershockError
from aftershock.model.units import Chart, ChartDependency, DependencySource

HISTORY_PREFIX = ".aftershock-history"


def history_path(commit: str, chart_path: str) -> str:
    return posixpath.join(HISTORY_PREFIX, commit, chart_path)


@dataclass(frozen=True)
class _Want:
    """A version range of a chart name, looked for among the charts here of that name."""

    name: str
    version_range: str
    candidates: tuple[str, ...]  # chart paths of that name, in the charts' order


def resolve_from_history(
    git: GitRepository,
    sha: str,
    charts: tuple[Chart, ...],
    blobs: BlobReader | None = None,
    needed_by: Collection[str] | None = None,
) -> tuple[Chart, ...]:
    """The charts, with each remote dependency of `needed_by` (chart paths, and the charts they
    include; None: every chart) that names a chart of this tree but not its version resolved to that
    chart at the newest earlier commit whose version is in the range."""
    of = None if needed_by is None else _closure(charts, needed_by)
    wants = _wants(charts, of)
    if not wants:
        return charts
    with ExitStack() as stack:
        reader = blobs or stack.enter_context(BlobReader(git))
        found = _walk(git, sha, wants, reader)
    out = []
    for chart in charts:
        if of is not None and chart.path not in of:
            out.append(chart)
            continue
        deps = tuple(_from_history(chart, dep, charts, found) for dep in chart.dependencies)
        out.append(chart if deps == chart.dependencies else replace(chart, dependencies=deps))
    return tuple(out)


def _closure(charts: tuple[Chart, ...], paths: Collection[str]) -> set[str]:
    """`paths` and every chart of `charts` they include, transitively."""
    by_path = {c.path: c for c in charts}
    found, queue = set(paths), list(paths)
    while queue:
        chart = by_path.get(queue.pop())
        for dep in chart.dependencies if chart else ():
            if dep.resolved_path in by_path and dep.resolved_path not in found:
                found.add(dep.resolved_path)
                queue.append(dep.resolved_path)
    return found


def _wants(charts: tuple[Chart, ...], of: set[str] | None) -> set[_Want]:
    """What the dependencies of the charts `of` (None: all) ask history for."""
    wants = set()
    for chart in charts:
        if of is not None and chart.path not in of:
            continue
        for dep in chart.dependencies:
            want = _want(chart, dep, charts)
            if want is not None:
                wants.add(want)
    return wants


def _want(chart: Chart, dep: ChartDependency, charts: tuple[Chart, ...]) -> _Want | None:
    if not (
        dep.source is DependencySource.REMOTE
        and dep.repository.startswith(("https://", "oci://"))
        and (dep.locked or dep.version)
    ):
        return None
    candidates = tuple(c.path for c in charts if c.name == dep.name and c.path != chart.path)
    if not candidates:
        return None
    wanted = f"={dep.locked.removeprefix('v')}" if dep.locked else dep.version
    return _Want(dep.name, wanted, candidates)


def _from_history(
    chart: Chart,
    dep: ChartDependency,
    charts: tuple[Chart, ...],
    found: dict[_Want, tuple[str, str]],
) -> ChartDependency:
    want = _want(chart, dep, charts)
    if want is None or want not in found:
        return dep
    commit, path = found[want]
    return replace(
        dep,
        # the folder at the exact version the lock pins is what Helm installs: observed
        source=DependencySource.IN_REPO_LOCKED if dep.locked else DependencySource.IN_REPO_INFERRED,
        resolved_path=history_path(commit, path),
    )


def _walk(
    git: GitRepository, sha: str, wants: set[_Want], blobs: BlobReader
) -> dict[_Want, tuple[str, str]]:
    """Each want -> (commit, chart path) of the newest change of a candidate's Chart.yaml whose name
    and version match: one walk of the first-parent history, ended when nothing is left to find."""
    files = {posixpath.join(p, "Chart.yaml"): p for w in wants for p in w.candidates}
    pending, found = set(wants), {}
    lines = git.stream_lines(
        "log", "--first-parent", "--format=%H", "--raw", "--no-abbrev", sha, "--", *sorted(files)
    )
    try:
        for commit, chart_path, blob in _changes(lines, files):
            meta = _name_and_version(blobs.read(blob), chart_path)
            for want in [w for w in pending if chart_path in w.candidates]:
                if meta is None or meta[0] != want.name:
                    continue
                try:
                    matches = satisfies(meta[1], want.version_range)
                except ValueError:
                    pending.discard(want)  # a range Helm cannot read: left unresolved
                    continue
                if matches:
                    found[want] = (commit, chart_path)
                    pending.discard(want)
            if not pending:
                break
    except AftershockError:
        return found
    finally:
        lines.close()  # stops git when the walk ends early
    return found


def _changes(lines: Iterator[bytes], files: dict[str, str]) -> Iterator[tuple[str, str, str]]:
    """(commit, chart path, blob of its Chart.yaml) of each change `git log --raw` lists, newest first."""
    commit = ""
    for raw in lines:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        if not line.startswith(":"):
            commit = line.strip() or commit
            continue
        fields, _, path = line.partition("\t")
        blob, chart_path = fields.split()[3], files.get(path)
        if chart_path is not None and set(blob) != {"0"}:
            yield commit, chart_path, blob


def _name_and_version(data: bytes, chart_path: str) -> tuple[str, str] | None:
    try:
        meta = load_one(data.decode("utf-8", "replace"), source=f"{chart_path}/Chart.yaml")
    except AftershockError:
        return None
    if not isinstance(meta, dict):
        return None
    return str(meta.get("name")), str(meta.get("version", ""))


def history_dependencies(charts: Iterable[Chart]) -> list[tuple[str, str]]:
    """(commit, chart path) of every dependency resolved from history."""
    pairs = set()
    for chart in charts:
        for dep in chart.dependencies:
            path = dep.resolved_path or ""
            if path.startswith(HISTORY_PREFIX + "/"):
                commit, chart_path = path[len(HISTORY_PREFIX) + 1 :].split("/", 1)
                pairs.add((commit, chart_path))
    return sorted(pairs)


def materialize_history(
    git: GitRepository, charts: Iterable[Chart], dest: Path, max_file_bytes: int
) -> None:
    """Write each chart folder resolved from history under `dest/<commit>/` (once per commit and
    folder); each chart workspace hard-links what it needs from there (pipeline.rendering.chart_jobs)."""
    for commit, chart_path in history_dependencies(charts):
        if (dest / commit / chart_path).is_dir():
            continue
        # The chart folder alone (one small listing, not the whole tree of an old commit), unless it
        # holds a symlink: its target may lie outside the folder, so the whole tree is read then.
        with RefSnapshot.open(git, commit, commit[:7], max_file_bytes, only=[chart_path]) as tree:
            if not any(e.kind is EntryKind.SYMLINK for e in tree.tree.entries.values()):
                tree.check_safe()
                tree.materialize([chart_path], dest / commit)
                continue
        with RefSnapshot.open(git, commit, f"{commit[:7]}", max_file_bytes) as tree:
            tree.check_safe()
            tree.materialize([chart_path], dest / commit)
