"""Prepares a materialised chart for Helm: local `file://` dependencies are linked in as `helm dependency build` would
(one inside the chart it depends on gets that chart less itself, as the archive Helm packs holds no copy of
itself), and values schemas split over files are inlined (`schema_refs`), as charts' CI does before testing or
packaging."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from aftershock.ingest.dependency_history import HISTORY_PREFIX
from aftershock.model.units import Chart, DependencySource
from aftershock.render.plan import dependency_closure
from aftershock.render.schemas.schema_refs import inline_schema_refs, raw_repository_path

# Where a chart packed for a dependency inside it (less that dependency) is laid out in the workspace.
PACKED_PREFIX = ".aftershock-packed"
# Dependencies Helm finds under charts/ only after `helm dependency build`: local ones, and those
# of a remote repository that resolve to a chart of this repository.
_LINKED = (
    DependencySource.FILE,
    DependencySource.IN_REPO_INFERRED,
    DependencySource.IN_REPO_CONFIGURED,
    DependencySource.IN_REPO_LOCKED,
)


def link_local_dependencies(chart: Chart, charts: Mapping[str, Chart], root: Path) -> None:
    """Link each `file://` dependency missing from `charts/` to its materialised folder under `root`.

    Helm only loads subcharts present under `charts/`; users run `helm dependency build` to copy local
    ones there. A relative symlink inside the workspace gives Helm the same tree without copying.
    Each chart's schema references are read from the workspace only (`root`), never downloaded.
    """
    inward: list[tuple[Path, Path]] = []
    for path in dependency_closure(chart, charts):
        inline_schema_refs(root / path, root, remote=lambda url: repository_file(url, root))
        current = charts.get(path)
        if current is None:
            continue
        for dep in current.dependencies:
            if dep.source in _LINKED and dep.resolved_path is not None:
                link, target = root / current.path / "charts" / dep.name, root / dep.resolved_path
                if link.is_relative_to(target):
                    inward.append((link, target))
                else:
                    _link(link, target)
    # last, so that the copy holds the links made above
    for link, target in inward:
        _link(link, _outside_copy(root, target, link))


def repository_file(url: str, root: Path) -> Path | None:
    """The workspace file a raw GitHub address names by its path (`…/<owner>/<repo>/<ref>/<path>`),
    when the workspace holds it: inferred to be this repository's file at the reviewed ref."""
    path = raw_repository_path(url)
    if path is None:
        return None
    candidate = root / path
    if candidate.is_file():
        return candidate
    # else that chart as an earlier commit held it, when a dependency resolved to it (dependency_history)
    earlier = sorted((root / HISTORY_PREFIX).glob(f"*/{path}"))
    return earlier[0] if len(earlier) == 1 else None


def _outside_copy(root: Path, target: Path, link: Path) -> Path:
    """`target` as Helm would package it for `link`, a dependency link inside it (a test chart under
    `tests/chart` that depends on `file://../..`): a tree of links to its entries less `link`.

    A link to its own ancestor is a loop Helm's loader walks until the path is too long; `helm
    dependency build` packs the folder as it is, which does not hold the archive it is building."""
    inside = link.relative_to(target).parts
    copy = root / PACKED_PREFIX / "--".join((*target.relative_to(root).parts, *inside))
    if not copy.exists():
        _link_entries(target, copy, inside)
    return copy


def _link_entries(source: Path, dest: Path, skipped: tuple[str, ...]) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for entry in sorted(source.iterdir()):
        if entry.name != skipped[0]:
            _link(dest / entry.name, entry)
        elif len(skipped) > 1 and entry.is_dir():
            _link_entries(entry, dest / entry.name, skipped[1:])


def _link(link: Path, target: Path) -> None:
    if link.exists() or link.is_symlink():
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(target, link.parent), target_is_directory=True)
