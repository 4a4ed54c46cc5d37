"""The review index's changed files of a chart: its folder's, found by a slice of the sorted paths."""

from __future__ import annotations

from aftershock.rules.support.globs import paths_in_folder
from aftershock.rules.support.index import ReviewIndex
from rulecases import CHART, build_review


def test_a_charts_files_are_its_folders_not_a_sibling_whose_name_it_prefixes(tmp_path):
    files = {
        f"{CHART}/values.yaml": "replicas: 2\n",
        f"{CHART}/templates/deploy.yaml": "kind: Deployment\n",
        f"{CHART}-extra/values.yaml": "replicas: 1\n",  # sorts inside the slice, outside the folder
        f"{CHART}x/values.yaml": "replicas: 1\n",
        f"{CHART}.md": "notes\n",
        "other/values.yaml": "a: 1\n",
    }
    review = build_review(None, None, tmp_path=tmp_path, head_files=files)
    assert ReviewIndex(review)._files_of_chart(CHART) == (
        f"{CHART}/values.yaml",  # values files first
        f"{CHART}/templates/deploy.yaml",
    )


def test_the_paths_in_a_folder_are_a_slice_of_the_sorted_paths():
    paths = sorted(["a", "a-b/x", "a.md", "a/b/c", "a/x", "a0/y", "ab/z", "b/a/x"])
    assert paths_in_folder(paths, "a") == ["a", "a/b/c", "a/x"]
    assert paths_in_folder(paths, "a/b") == ["a/b/c"]
    assert paths_in_folder(paths, "") == paths
    assert paths_in_folder(paths, "c") == []
