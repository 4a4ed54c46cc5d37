"""In-repo dependencies on a version of a chart this repository held earlier.

A chart often pins a remote dependency (`common 4.1.0` from `https://…`) that this repository
publishes itself, and which it has already moved past (`charts/library/common` is 4.1.1 now):
Helm would download 4.1.0, which is that chart folder as it was at the last commit whose
Chart.yaml carried a version in the range (exactly the version its Chart.lock pins, when it has one:
that is what `helm dependency build` puts under charts/). Such a dependency resolves to that folder at that
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
from aftershock.ingest.git import GitRepository
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.model.units import Chart, ChartDependency, DependencySource
from aftershock.render.kubeversion import satisfies
from aftershock.yamlio import load_one

HISTORY_PREFIX = ".aftershock-history"
HISTORY_LIMIT = 200


def history_path(commit: str, chart_path: str) -> str:
    return posixpath.join(HISTORY_PREFIX, commit, chart_path)


def resolve_from_history(
    git: GitRepository, sha: str, charts: tuple[Chart, ...]
) -> tuple[Chart, ...]:
    """The charts, with each remote dependency that names a chart of this tree but not its version
    resolved to that chart at the newest earlier commit whose version is in the range."""
    found: dict[tuple[str, str, str], str | None] = {}
    out = []
    for chart in charts:
        deps = tuple(
            _from_history(git, sha, chart, dep, charts, found) for dep in chart.dependencies
        )
        out.append(chart if deps == chart.dependencies else replace(chart, dependencies=deps))
    return tuple(out)


def _from_history(
    git: GitRepository,
    sha: str,
    chart: Chart,
    dep: ChartDependency,
    charts: tuple[Chart, ...],
    found: dict[tuple[str, str, str], str | None],
) -> ChartDependency:
    if dep.source is not DependencySource.REMOTE or not dep.repository.startswith(
        ("https://", "oci://")
    ):
        return dep
    wanted = f"={dep.locked.removeprefix('v')}" if dep.locked else dep.version
    if not wanted:
        return dep
    for same in (c for c in charts if c.name == dep.name and c.path != chart.path):
        key = (same.path, dep.name, wanted)
        if key not in found:
            found[key] = _commit_with_version(git, sha, same.path, dep.name, wanted)
        commit = found[key]
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


def _commit_with_version(
    git: GitRepository, sha: str, chart_path: str, name: str, version_range: str
) -> str | None:
    chart_file = posixpath.join(chart_path, "Chart.yaml")
    try:
        log = git.run(
            "log", "--first-parent", f"-{HISTORY_LIMIT}", "--format=%H", sha, "--", chart_file
        )
    except AftershockError:
        return None
    for commit in log.decode().split():
        try:
            meta = load_one(
                git.run("show", f"{commit}:{chart_file}").decode("utf-8", "replace"),
                source=chart_file,
            )
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
        with RefSnapshot.open(git, commit, f"{commit[:7]}", max_file_bytes) as tree:
            tree.check_safe()
            tree.materialize([chart_path], dest / commit)
