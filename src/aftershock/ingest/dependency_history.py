"""In-repo dependencies on a version of a chart this repository held earlier.

A chart often pins a remote dependency (`common 4.1.0` from `https://…`) that this repository
publishes itself, and which it has already moved past (`charts/library/common` is 4.1.1 now):
Helm would download 4.1.0, which is that chart folder as it was at the last commit whose
Chart.yaml carried a version in the range. Such a dependency resolves to that folder at that
commit (inferred, like any in-repo dependency), under the workspace path
`.aftershock-history/<commit>/<chart path>`; nothing is downloaded. Only the first-parent history
of the reviewed commit is searched, newest first, at most `HISTORY_LIMIT` changes of the Chart.yaml.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from aftershock.errors import AftershockError
from aftershock.ingest.blobs import BlobReader
from aftershock.ingest.git import GitRepository
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.ingest.tree import EntryKind
from aftershock.model.units import Chart, ChartDependency, DependencySource
from aftershock.render.kubeversion import satisfies
from aftershock.yamlio import load_one

HISTORY_PREFIX = ".aftershock-history"
HISTORY_LIMIT = 200


def history_path(commit: str, chart_path: str) -> str:
    return posixpath.join(HISTORY_PREFIX, commit, chart_path)


def resolve_from_history(
    git: GitRepository, sha: str, charts: tuple[Chart, ...], blobs: BlobReader | None = None
) -> tuple[Chart, ...]:
    """The charts, with each remote dependency that names a chart of this tree but not its version
    resolved to that chart at the newest earlier commit whose version is in the range."""
    wanted = {
        same.path
        for chart in charts
        for dep in chart.dependencies
        if _from_remote(dep)
        for same in charts
        if same.name == dep.name and same.path != chart.path
    }
    if not wanted:
        return charts
    history = _ChartHistory(git, blobs, _chart_file_changes(git, sha, sorted(wanted)))
    out = []
    for chart in charts:
        deps = tuple(_from_history(history, chart, dep, charts) for dep in chart.dependencies)
        out.append(chart if deps == chart.dependencies else replace(chart, dependencies=deps))
    return tuple(out)


def _from_remote(dep: ChartDependency) -> bool:
    return (
        dep.source is DependencySource.REMOTE
        and dep.repository.startswith(("https://", "oci://"))
        and bool(dep.version)
    )


def _from_history(
    history: _ChartHistory, chart: Chart, dep: ChartDependency, charts: tuple[Chart, ...]
) -> ChartDependency:
    if not _from_remote(dep):
        return dep
    for same in (c for c in charts if c.name == dep.name and c.path != chart.path):
        commit = history.commit_with_version(same.path, dep.name, dep.version)
        if commit is not None:
            return replace(
                dep,
                source=DependencySource.IN_REPO_INFERRED,
                resolved_path=history_path(commit, same.path),
            )
    return dep


class _ChartHistory:
    """The earlier versions of some charts' Chart.yaml, read once for every dependency that asks."""

    def __init__(
        self,
        git: GitRepository,
        blobs: BlobReader | None,
        changes: dict[str, list[tuple[str, str]]],
    ) -> None:
        self._git, self._blobs, self._changes = git, blobs, changes
        self._texts: dict[str, str] | None = None
        self._found: dict[tuple[str, str, str], str | None] = {}

    def commit_with_version(self, chart_path: str, name: str, version_range: str) -> str | None:
        key = (chart_path, name, version_range)
        if key not in self._found:
            self._found[key] = self._search(chart_path, name, version_range)
        return self._found[key]

    def _search(self, chart_path: str, name: str, version_range: str) -> str | None:
        chart_file = posixpath.join(chart_path, "Chart.yaml")
        texts = self._all_texts()
        for commit, blob in self._changes.get(chart_file, []):
            try:
                meta = load_one(texts[blob], source=chart_file)
            except AftershockError:
                continue
            if not isinstance(meta, dict) or meta.get("name") != name:
                continue
            try:
                if satisfies(str(meta.get("version", "")), version_range):
                    return commit
            except ValueError:
                return None
        return None

    def _all_texts(self) -> dict[str, str]:
        if self._texts is None:
            shas = [blob for changes in self._changes.values() for _, blob in changes]
            try:
                self._texts = _blob_texts(self._git, self._blobs, shas)
            except AftershockError:
                self._texts = {}
        return self._texts


def _chart_file_changes(
    git: GitRepository, sha: str, chart_paths: list[str]
) -> dict[str, list[tuple[str, str]]]:
    """Chart.yaml path -> (commit, blob there) for its newest `HISTORY_LIMIT` first-parent changes,
    from one `git log --raw` over all of them (one walk of the history, not one per chart); a commit
    that deletes the file has no blob and is left out."""
    files = [posixpath.join(p, "Chart.yaml") for p in chart_paths]
    try:
        log = git.run(
            "log", "--first-parent", "--diff-merges=first-parent", "--format=%H", "--raw",
            "--no-abbrev", "--no-renames", sha, "--", *files,
        )  # fmt: skip
    except AftershockError:
        return {}
    changes: dict[str, list[tuple[str, str]]] = {}
    commit = ""
    for line in log.decode("utf-8", "replace").splitlines():
        if line.startswith(":"):
            fields, _, path = line.partition("\t")
            parts = fields.split()
            kept = changes.setdefault(path, [])
            if len(parts) >= 4 and commit and set(parts[3]) != {"0"} and len(kept) < HISTORY_LIMIT:
                kept.append((commit, parts[3]))
        elif line.strip():
            commit = line.strip()
    return changes


def _blob_texts(git: GitRepository, blobs: BlobReader | None, shas: list[str]) -> dict[str, str]:
    """The texts of the blobs, through the review's blob reader (one process) when it has one."""
    unique = list(dict.fromkeys(shas))
    if blobs is not None:
        return {s: data.decode("utf-8", "replace") for s, data in blobs.read_many(unique)}
    with BlobReader(git) as reader:
        return {s: data.decode("utf-8", "replace") for s, data in reader.read_many(unique)}


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
        with RefSnapshot.open(
            git, commit, f"{commit[:7]}", max_file_bytes, only=[chart_path]
        ) as tree:
            if not any(e.kind is EntryKind.SYMLINK for e in tree.tree.entries.values()):
                tree.check_safe()
                tree.materialize([chart_path], dest / commit)
                continue
        with RefSnapshot.open(git, commit, f"{commit[:7]}", max_file_bytes) as tree:
            tree.check_safe()
            tree.materialize([chart_path], dest / commit)
