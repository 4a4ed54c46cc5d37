"""The changed lines a review traces: which changed files count as a chart's templates."""

from __future__ import annotations

from aftershock.diff.exercise import changed_runs
from aftershock.model.change import FileChange, FileStatus, Hunk


def added(path: str) -> FileChange:
    hunk = Hunk(0, 0, 1, 1, "@@ -0,0 +1 @@", ("+kind: ConfigMap",))
    return FileChange(path, FileStatus.ADDED, additions=1, hunks=(hunk,))


def traced(paths: list[str], folders: list[str]) -> list[str]:
    runs = changed_runs([added(p) for p in paths], folders, lambda side, path: "")
    return sorted({run.path for run in runs})


PATHS = [
    "templates/root.yaml",
    "apps/web/templates/deploy.yaml",
    "apps/web/templates/NOTES.txt",
    "apps/web/templates/_helpers.tpl",
    "apps/web/files/templates/x.yaml",  # under templates/ of no chart folder
    "apps/web/charts/db/templates/sts.yml",
    "apps/web/templates/templates/nested.yaml",
    "apps/webby/templates/other.yaml",
]


def test_a_template_is_a_file_under_templates_of_a_chart_folder():
    assert traced(PATHS, ["apps/web"]) == [
        "apps/web/templates/_helpers.tpl",
        "apps/web/templates/deploy.yaml",
        "apps/web/templates/templates/nested.yaml",
    ]


def test_subchart_and_root_folders_count_as_charts_of_their_own():
    assert traced(PATHS, ["", "apps/web", "apps/web/charts/db"]) == [
        "apps/web/charts/db/templates/sts.yml",
        "apps/web/templates/_helpers.tpl",
        "apps/web/templates/deploy.yaml",
        "apps/web/templates/templates/nested.yaml",
        "templates/root.yaml",
    ]
    assert traced(PATHS, []) == []
