"""In-repo dependencies on a version of a chart this repository held earlier.

A chart often pins a remote dependency (`common 4.1.0` from `https://…`) that this repository
publishes itself, and which it has already moved past (`charts/library/common` is 4.1.1 now):
Helm would download 4.1.0, which is that chart folder as it was at the last commit whose
Chart.yaml carried a version in the range (exactly the version its Chart.lock pins, when it has one:
that is what `helm dependency build` puts under charts/). Such a dependency resolves to that folder at that
commit (inferred, like any in-repo dependency), under the workspace path
`.aftershock-history/<commit>/<chart path>`; nothing is downloaded. Only the first-parent history
of the reviewed commit is searched, newest first, at most `HISTORY_LIMIT` changes of each Chart.yaml;
a version older than that (a chart bumped on every image update) is looked for in the whole history
of the charts still wanted, in one more walk: by a review, only for the charts it reaches.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Iterable
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from aftershock.gocompat.yamlio import load_one
from aftershock.ingest.blobs import BlobReader
from aftershock.ingest.git import GitRepository
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.ingest.tree import EntryKind
from aftershock.model.errors import AftershockError
from aftershock.model.units import Chart, ChartDependency, DependencySource
from aftershock.render.kubeversion import satisfies

HISTORY_PREFIX = ".aftershock-history"
HISTORY_LIMIT = 200


def history_path(commit: str, chart_path: str) -> str:
    return posixpath.join(HISTORY_PREFIX, commit, chart_path)


def resolve_from_history(
    git: GitRepository,
    sha: str,
    charts: tuple[Chart, ...],
    blobs: BlobReader | None = None,
    *,
    deep: bool = True,
) -> tuple[Chart, ...]:
    """The charts, with each remote dependency that names a chart of this tree but not its version
    resolved to that chart at the newest earlier commit whose version is in the range: in the last
    `HISTORY_LIMIT` changes of its Chart.yaml, then (`deep`) in its whole history."""
    wanted = sorted(_still_wanted(charts))
    if not wanted:
        return charts
    histories, cut = _chart_histories(git, sha, wanted, blobs, HISTORY_LIMIT)
    out = _resolved(charts, histories)
    return deepen_from_history(git, sha, out, None, blobs, cut) if deep else out


def deepen_from_history(
    git: GitRepository,
    sha: str,
    charts: tuple[Chart, ...],
    needed_by: Collection[str] | None,
    blobs: BlobReader | None = None,
    cut: set[str] | None = None,
) -> tuple[Chart, ...]:
    """The charts, with the dependencies still unresolved of `needed_by` (chart paths; None: all) and
    of the charts they include looked for in the whole history of the charts they name: a version
    older than the window (a chart bumped on every image update). One walk of the history, which a
    review pays only for the charts it renders. `cut`: the charts whose window was cut, when known."""
    wanted = _still_wanted(charts, None if needed_by is None else _closure(charts, needed_by))
    deeper = sorted(wanted if cut is None else wanted & cut)
    if not deeper:
        return charts
    return _resolved(charts, _chart_histories(git, sha, deeper, blobs, None)[0])


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


def _resolved(
    charts: tuple[Chart, ...], histories: dict[str, list[tuple[str, str, str]]]
) -> tuple[Chart, ...]:
    out = []
    for chart in charts:
        deps = tuple(_from_history(chart, dep, charts, histories) for dep in chart.dependencies)
        out.append(chart if deps == chart.dependencies else replace(chart, dependencies=deps))
    return tuple(out)


def _still_wanted(charts: tuple[Chart, ...], of: set[str] | None = None) -> set[str]:
    """Paths of the charts here named by a dependency (of the charts `of`, None: all) that history
    has not resolved yet."""
    return {
        same.path
        for chart in charts
        if of is None or chart.path in of
        for dep in chart.dependencies
        if _searched(dep)
        for same in charts
        if same.name == dep.name and same.path != chart.path
    }


def _searched(dep: ChartDependency) -> bool:
    return (
        dep.source is DependencySource.REMOTE
        and dep.repository.startswith(("https://", "oci://"))
        and bool(dep.locked or dep.version)
    )


def _from_history(
    chart: Chart,
    dep: ChartDependency,
    charts: tuple[Chart, ...],
    histories: dict[str, list[tuple[str, str, str]]],
) -> ChartDependency:
    if not _searched(dep):
        return dep
    wanted = f"={dep.locked.removeprefix('v')}" if dep.locked else dep.version
    for same in (c for c in charts if c.name == dep.name and c.path != chart.path):
        commit = _commit_with_version(histories.get(same.path, []), dep.name, wanted)
        if commit is not None:
            return replace(
                dep,
                # the folder at the exact version the lock pins is what Helm installs: observed
                source=DependencySource.IN_REPO_LOCKED
                if dep.locked
                else DependencySource.IN_REPO_INFERRED,
                resolved_path=history_path(commit, same.path),
            )
    return dep


def _chart_histories(
    git: GitRepository,
    sha: str,
    chart_paths: list[str],
    reader: BlobReader | None,
    limit: int | None,
) -> tuple[dict[str, list[tuple[str, str, str]]], set[str]]:
    """Chart path -> (commit, name, version) of each change of its Chart.yaml, newest first, at most
    `limit` each (all of them for None): one walk of the history and one batch of blob reads for all
    of them. Also the paths whose history the limit cut."""
    files = {posixpath.join(p, "Chart.yaml"): p for p in chart_paths}
    most = [f"-{limit * len(files)}"] if limit else []
    try:
        log = git.run(
            "log",
            "--first-parent",
            *most,
            "--format=%H",
            "--raw",
            "--no-abbrev",
            sha,
            "--",
            *files,
        ).decode()
    except AftershockError:
        return {}, set()
    changes, cut = _changes(log, files, limit)
    found: dict[str, list[tuple[str, str, str]]] = {}
    with ExitStack() as stack:
        blobs = reader or stack.enter_context(BlobReader(git))
        for (chart_path, commit, _), (_, data) in zip(
            changes, blobs.read_many(b for _, _, b in changes)
        ):
            try:
                meta = load_one(data.decode("utf-8", "replace"), source=f"{chart_path}/Chart.yaml")
            except AftershockError:
                continue
            if isinstance(meta, dict):
                entry = (commit, str(meta.get("name")), str(meta.get("version", "")))
                found.setdefault(chart_path, []).append(entry)
    return found, cut


def _changes(
    log: str, files: dict[str, str], limit: int | None
) -> tuple[list[tuple[str, str, str]], set[str]]:
    """(chart path, commit, blob of its Chart.yaml) of each change `git log --raw` lists, at most
    `limit` per chart; and the charts whose list the limit (per chart, or of commits) may have cut."""
    changes: list[tuple[str, str, str]] = []
    counts: dict[str, int] = {}
    commits = 0
    commit = ""
    for line in log.splitlines():
        if line.startswith(":"):
            fields, _, path = line.partition("\t")
            blob, chart_path = fields.split()[3], files.get(path)
            if chart_path is None or set(blob) == {"0"}:
                continue
            counts[chart_path] = counts.get(chart_path, 0) + 1
            if limit is None or counts[chart_path] <= limit:
                changes.append((chart_path, commit, blob))
        elif line.strip():
            commit, commits = line.strip(), commits + 1
    if limit is None:
        return changes, set()
    if commits >= limit * len(files):
        return changes, set(files.values())
    return changes, {p for p, n in counts.items() if n > limit}


def _commit_with_version(
    history: list[tuple[str, str, str]], name: str, version_range: str
) -> str | None:
    for commit, chart_name, version in history:
        if chart_name != name:
            continue
        try:
            if satisfies(version, version_range):
                return commit
        except ValueError:
            return None
    return None


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
    folder); each chart workspace hard-links what it needs from there (pipeline.chart_jobs)."""
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
