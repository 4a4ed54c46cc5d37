"""Paths a review writes are checked before any work (issue 12, item 13: `--output /proc/nope/x.json` and
`--render-cache /etc/passwd` gave "internal error", exit 70, after the whole review had run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_review_cli import assert_one_line_error, run

from charts import app_chart
from gitrepo import commit, make_repo


@pytest.fixture
def change(tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("c", "c"), "feat: chart")
    commit(repo, {"c/values.yaml": "replicas: 2\nimage: nginx:1.27.0\nmode: fast\n"}, "fix: two")
    return repo, base


def _review(repo: Path, base: str, *args: str):
    return run("review", "--repo", str(repo), "--base", base, "--no-state", "--no-tests", *args)


def test_an_output_in_a_missing_folder_stops_before_rendering(change, tmp_path):
    repo, base = change
    cache = tmp_path / "cache"
    result = _review(repo, base, "--output", "/proc/nope/x.json", "--render-cache", str(cache))
    assert_one_line_error(result, "--output /proc/nope/x.json", "does not exist")
    assert not cache.exists()  # nothing was rendered
    folder = _review(repo, base, "--output", str(tmp_path))
    assert (
        folder.returncode == 2
        and "is a directory" in folder.stderr
        and "Traceback" not in folder.stderr
    )


def test_a_render_cache_that_is_a_file_stops_before_rendering(change, tmp_path):
    repo, base = change
    a_file, report = tmp_path / "passwd", tmp_path / "report.json"
    a_file.write_text("root:x:0:0::/root:/bin/sh\n")
    for given in (str(a_file), "/etc/passwd"):
        result = _review(repo, base, "--render-cache", given, "--output", str(report))
        assert_one_line_error(result, f"--render-cache {given} is not a folder")
    assert not report.exists()
    result = run("radius", "--repo", str(repo), "--base", base, "--render-cache", str(a_file))
    assert_one_line_error(result, "--render-cache")


def test_a_state_path_that_is_a_folder_stops_before_rendering(change, tmp_path):
    repo, base = change
    cache = tmp_path / "cache"
    result = run(
        "review",
        "--repo",
        str(repo),
        "--base",
        base,
        "--no-tests",
        "--state",
        str(tmp_path),
        "--render-cache",
        str(cache),
    )
    assert_one_line_error(result, f"--state {tmp_path} is not a file")
    assert not cache.exists()


def test_writable_paths_still_review(change, tmp_path):
    repo, base = change
    report = tmp_path / "out" / "report.json"
    report.parent.mkdir()
    result = _review(
        repo,
        base,
        "--format",
        "json",
        "--output",
        str(report),
        "--render-cache",
        str(tmp_path / "new" / "cache"),
    )
    assert result.returncode == 0, result.stderr
    assert report.read_text().startswith("{")
