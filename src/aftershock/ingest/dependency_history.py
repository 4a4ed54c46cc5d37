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
comes to render later (`pipeline.rendering.chart_history`); when base lies on head's first-parent
line, one walk from head answers both refs (base's search skips the commits above it).
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Iterable, Iterator, Sequence
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
    return _resolved(charts, of, found)


def resolve_sides_from_history(
    git: GitRepository,
    shas: tuple[str, str],
    sides: tuple[tuple[Chart, ...], tuple[Chart, ...]],
    blobs: BlobReader,
    needed_by: Collection[str],
) -> tuple[tuple[Chart, ...], tuple[Chart, ...]]:
    """`resolve_from_history` at base and at head. When base lies on head's first-parent line (a
    branch on its target, a commit on its parent), one walk from head serves both: base's history is
    the rest of head's after the commits between them."""
    (base_sha, head_sha), (base, head) = shas, sides
    ofs = (_closure(base, needed_by), _closure(head, needed_by))
    wants = (_wants(base, ofs[0]), _wants(head, ofs[1]))
    if not any(wants):
        return base, head  # no git asked: most reviews pin nothing history holds
    above = _commits_above(git, base_sha, head_sha)
    if above is None:
        found = [_walk(git, sha, w, blobs) if w else {} for sha, w in zip(shas, wants, strict=True)]
    else:
        found = _walk_searches(git, head_sha, [(wants[0], above), (wants[1], frozenset())], blobs)
    return _resolved(base, ofs[0], found[0]), _resolved(head, ofs[1], found[1])


def _commits_above(git: GitRepository, base: str, head: str) -> frozenset[str] | None:
    """The commits of head's first-parent line above base; None when base is not on that line."""
    try:
        above = git.run("rev-list", "--first-parent", f"{base}..{head}").decode().split()
        if not above:
            return frozenset() if git.resolve(base) == git.resolve(head) else None
        parent = git.resolve(f"{above[-1]}^1")
    except AftershockError:  # the line ends in a root commit: base is not on it
        return None
    return frozenset(above) if parent == git.resolve(base) else None


def _resolved(
    charts: tuple[Chart, ...], of: set[str] | None, found: dict[_Want, tuple[str, str]]
) -> tuple[Chart, ...]:
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
    return _walk_searches(git, sha, [(wants, frozenset())], blobs)[0]


def _walk_searches(
    git: GitRepository,
    sha: str,
    searches: Sequence[tuple[set[_Want], frozenset[str]]],
    blobs: BlobReader,
) -> list[dict[_Want, tuple[str, str]]]:
    """`_walk` of several searches in one walk from `sha`: each its wants, and the commits it skips
    (those above the ref it searches from, on the same first-parent line)."""
    files = {
        posixpath.join(p, "Chart.yaml"): p
        for wants, _ in searches
        for w in wants
        for p in w.candidates
    }
    pending = [set(wants) for wants, _ in searches]
    found: list[dict[_Want, tuple[str, str]]] = [{} for _ in searches]
    lines = git.stream_lines(
        "log", "--first-parent", "--format=%H", "--raw", "--no-abbrev", sha, "--", *sorted(files)
    )
    try:
        for commit, chart_path, blob in _changes(lines, files):
            meta = _name_and_version(blobs.read(blob), chart_path)
            for (_, skipped), left, done in zip(searches, pending, found, strict=True):
                if commit not in skipped:
                    _match(meta, chart_path, commit, left, done)
            if not any(pending):
                break
    except AftershockError:
        return found
    finally:
        lines.close()  # stops git when the walk ends early
    return found


def _match(
    meta: tuple[str, str] | None,
    chart_path: str,
    commit: str,
    pending: set[_Want],
    found: dict[_Want, tuple[str, str]],
) -> None:
    """The wants of `pending` this Chart.yaml change satisfies, moved to `found`."""
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
