"""Which repository files the source-reading rules need, so the pipeline can read them (it owns I/O).

Rules with `needs_sources` read, at base and at head, the text files under each affected chart's
folder and under docs/ whose names end in one of SOURCE_SUFFIXES. `source_folders` names those
folders for a review and `source_files` the single files read besides them (every chart's
values.yaml, so a rule can tell whether any chart defines a values path, and the READMEs the change
touches elsewhere); the pipeline reads the matching files into a `SourceTexts`.
"""

from __future__ import annotations

from aftershock.model.change import FileStatus
from aftershock.model.review import Review

# `.snap`: helm-unittest snapshots, read for the Secrets they hold (`safety.secret_taint`)
SOURCE_SUFFIXES = (".yaml", ".yml", ".json", ".tpl", ".txt", ".md", ".gotmpl", ".rst", ".snap")
DOC_FOLDERS = ("docs",)


def source_folders(review: Review) -> tuple[str, ...]:
    """Folders of the affected charts (and the library charts they include), then docs/, sorted."""
    by_path = {chart.path: chart for chart in review.charts}
    folders = {affected.chart for affected in review.affected}
    for path in list(folders):
        chart = by_path.get(path)
        folders.update(
            dep.resolved_path for dep in (chart.dependencies if chart else ()) if dep.resolved_path
        )
    return tuple(sorted(folders)) + DOC_FOLDERS


def is_source(path: str) -> bool:
    """Whether a file's name makes it a source some rule may read."""
    return path.endswith(SOURCE_SUFFIXES)


def wanted(path: str, folders: tuple[str, ...]) -> bool:
    """Whether `path` is a source file some rule may read."""
    if not is_source(path):
        return False
    return any(folder == "" or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def source_files(review: Review) -> tuple[str, ...]:
    """Every chart's values.yaml, then the changed READMEs outside the source folders, sorted."""
    values = {
        f"{chart.path}/values.yaml" if chart.path else "values.yaml" for chart in review.charts
    }
    readmes = {
        f.path for f in review.files if f.status is not FileStatus.DELETED and is_readme(f.path)
    }
    return tuple(sorted(values | readmes))


def is_readme(path: str) -> bool:
    return path.rsplit("/", 1)[-1].upper().startswith("README")
