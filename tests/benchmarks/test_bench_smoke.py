"""Smoke test of benchmarks/bench_review.py: a 3-chart run end to end, checking the result's structure only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
BENCH = PROJECT / "benchmarks" / "bench_review.py"
STAGE_KEYS = {"seconds", "cpu_seconds", "share"}


def run_bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env_tmp = tmp_path / "work"
    env_tmp.mkdir()
    return subprocess.run(
        [sys.executable, str(BENCH), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={
            **os.environ,
            "TMPDIR": str(env_tmp),
        },  # the review's own work folder lands in tmp_path too
    )


def assert_timing(entry: dict, runs: int) -> None:
    assert len(entry["runs_seconds"]) == runs
    assert all(seconds > 0 for seconds in entry["runs_seconds"])
    assert entry["median_seconds"] in entry["runs_seconds"]


def test_three_chart_run_writes_every_figure(tmp_path):
    out = tmp_path / "bench.json"
    completed = run_bench(
        tmp_path, "--charts", "3", "--repeat", "1", "--workers", "1", "--json", str(out)
    )
    assert completed.returncode == 0, completed.stderr
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["config"] == {
        "charts": 3,
        "templates_per_chart": 4,
        "repeat": 1,
        "render_timeout_seconds": 60.0,
        "workers": 1,
    }
    assert result["repository"]["charts"] == 3 and result["repository"]["files"] > 3 * 4
    one, lib = result["one_chart_change"], result["library_change"]
    for entry in (
        one["naive"],
        one["review"],
        lib["review"],
        lib["renders_alone"],
        lib["render_many_within_review"],
    ):
        assert_timing(entry, 1)
    assert (one["naive_renders"], one["review_renders"], lib["renders"]) == (6, 2, 6)
    assert (
        one["naive_over_review"] == one["naive"]["median_seconds"] / one["review"]["median_seconds"]
    )
    assert (
        lib["review_over_renders"]
        == lib["review"]["median_seconds"] / lib["renders_alone"]["median_seconds"]
    )
    assert isinstance(one["met"], bool) and isinstance(lib["met"], bool)
    memory = result["memory"]
    assert (
        memory["main_peak_mib"] > 0
        and len(memory["worker_peaks_mib"]) == 1
        and memory["max_worker_peak_mib"] > 0
    )
    for change in ("one_chart_change", "library_change"):
        stages = result["stages"][change]  # as the pipeline timed them (ReviewResult.timings)
        assert {"open", "charts", "render", "judge"} <= set(stages["stages"])
        assert all(set(stage) == STAGE_KEYS for stage in stages["stages"].values())
        assert stages["cpu_seconds"] > 0
    assert "naive / review" in completed.stdout and "review / renders" in completed.stdout


def test_bad_arguments_are_refused(tmp_path):
    completed = run_bench(tmp_path, "--charts", "0")
    assert completed.returncode == 2
    assert "--charts, --templates and --repeat must be at least 1" in completed.stderr


def test_release_following_benchmark_runs_small(tmp_path):
    """The release-following benchmark end to end at a tiny size (structure only, no timing assertions)."""
    out = tmp_path / "releases.json"
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_releases.py"
    subprocess.run(
        [
            sys.executable,
            str(script),
            "--charts",
            "2",
            "--repeat",
            "1",
            "--workers",
            "1",
            "--json",
            str(out),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    result = json.loads(out.read_text())
    assert result["renders_per_review"] == 6
    assert set(result["median_seconds"]) == {"no_cache", "cache_cold", "cache_warm"}
