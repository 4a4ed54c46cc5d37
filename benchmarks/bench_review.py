#!/usr/bin/env python3
"""Benchmark of a review on a synthetic monorepo: review vs naive rendering, overhead, memory.

Usage: python benchmarks/bench_review.py [--charts N] [--templates K] [--repeat R] [--workers W] [--json FILE]
                                         [--cprofile FILE]

Builds the monorepo of `monorepo.py` (N application charts on one library chart) in a temporary
folder, then, with one SdkRenderer (same settings throughout, workers started before timing):

(a) one-chart change: `run_review` vs the naive path (materialise both trees with
    `git archive | tar -x` and render all 2N charts, no diff). Target: naive/review >= 20.
(b) library change: `run_review` (2N renders) vs the same 2N renders alone through `render_many`
    on trees materialised beforehand. Target: review/renders <= 1.25.

Each timing runs `--repeat` times, interleaved, and the median is kept; ratios come from the
medians of the same run. One more review of each gives the stage timings the pipeline records (stages.py).
Peak RSS: VmHWM of this process and of each render worker (read before the workers stop).
Each review's result is checked (the expected charts, all changed, the expected renders planned).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from aftershock.model.review import ChartOutcome, Review
from aftershock.pipeline import RenderCallbacks, ReviewRequest, open_renderer, run_review
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.interface import Renderer, RenderRequest
from monorepo import LIBRARY, Monorepo, MonorepoSpec, build_monorepo
from stages import TimedRenderer, stage_breakdown

NAIVE_TARGET = 20.0  # naive / review (a), at least
OVERHEAD_TARGET = 1.25  # review (b) / its renders alone, at most
RSS_TARGET_MIB = 1024.0
RENDER_TIMEOUT_SECONDS = 60.0


class BenchError(Exception):
    """A check of the benchmark failed: a render error or a review that is not what was expected."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark aftershock reviews on a synthetic Helm monorepo."
    )
    parser.add_argument("--charts", type=int, default=200, help="application charts (default 200)")
    parser.add_argument("--templates", type=int, default=4, help="templates per chart (default 4)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs of each measurement (default 3)"
    )
    parser.add_argument(
        "--workers", type=int, default=None, help="render workers (default: the renderer's)"
    )
    parser.add_argument(
        "--json", type=Path, default=None, help="write the results to this JSON file"
    )
    parser.add_argument(
        "--cprofile", type=Path, default=None, help="write a cProfile of review (b) here"
    )
    args = parser.parse_args(argv)
    if args.charts < 1 or args.templates < 1 or args.repeat < 1:
        parser.error("--charts, --templates and --repeat must be at least 1")
    return args


# -- materialisation and renders ----------------------------------------------------------------


def export_tree(repo: Path, sha: str, dest: Path) -> None:
    """Write the tree of `sha` into `dest` with `git archive | tar -x` (symlinks kept)."""
    dest.mkdir(parents=True)
    archive = subprocess.Popen(
        ["git", "-C", str(repo), "archive", "--format=tar", sha], stdout=subprocess.PIPE
    )
    assert archive.stdout is not None
    extracted = subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout, check=False)
    archive.stdout.close()
    if archive.wait() != 0 or extracted.returncode != 0:
        raise BenchError(f"cannot export {sha} of {repo} into {dest}")


def chart_requests(root: Path, chart_paths: Sequence[str]) -> list[RenderRequest]:
    """One request per chart with the settings `run_review` uses by default."""
    return [
        RenderRequest(
            chart_dir=str(root / path), values={}, release_name="release", namespace="default"
        )
        for path in chart_paths
    ]


def render_all(renderer: Renderer, requests: Sequence[RenderRequest]) -> None:
    outcomes = renderer.render_many(requests)
    failed = [o for o in outcomes if not o.ok]
    if len(outcomes) != len(requests) or failed:
        detail = failed[0].error if failed else "missing outcomes"
        raise BenchError(f"{len(failed)} of {len(requests)} renders failed: {detail}")


def naive_path(renderer: Renderer, repo: Monorepo, head: str) -> None:
    """Materialise both trees and render every chart at both refs; no diff."""
    with tempfile.TemporaryDirectory(prefix="bench-naive-") as work:
        export_tree(repo.path, repo.base, Path(work) / "base")
        export_tree(repo.path, head, Path(work) / "head")
        render_all(
            renderer,
            chart_requests(Path(work) / "base", repo.chart_paths)
            + chart_requests(Path(work) / "head", repo.chart_paths),
        )


def review(renderer: Renderer, repo: Monorepo, head: str) -> tuple[Review, int]:
    """Run the review of base..head; also return how many renders it planned."""
    planned: list[int] = []
    callbacks = RenderCallbacks(planned=planned.append, rendered=lambda outcome: None)
    result = run_review(
        ReviewRequest(repo=repo.path, base=repo.base, head=head), renderer, callbacks
    )
    return result, sum(planned)


# -- checks -------------------------------------------------------------------------------------


def check_review(result: Review, planned: int, expected_charts: Sequence[str]) -> None:
    """Every expected chart, and only those, reviewed as changed with one render per side."""
    if result.not_reviewed:
        raise BenchError(f"review left parts not reviewed: {result.not_reviewed[0]}")
    reviewed = [r.chart for r in result.chart_reviews]
    if sorted(reviewed) != sorted(expected_charts):
        raise BenchError(
            f"review covered {len(reviewed)} charts, expected {len(expected_charts)}: {reviewed[:3]}..."
        )
    unchanged = [r.chart for r in result.chart_reviews if r.outcome is not ChartOutcome.CHANGED]
    if unchanged:
        raise BenchError(f"review found no change in {len(unchanged)} charts, e.g. {unchanged[0]}")
    if planned != 2 * len(expected_charts):
        raise BenchError(
            f"review planned {planned} renders, expected {2 * len(expected_charts)} (one per chart and side)"
        )


def check_one_chart(result: Review, planned: int, repo: Monorepo) -> None:
    check_review(result, planned, [repo.changed_chart])
    fields = {f.path for r in result.chart_reviews for c in r.changes for f in c.fields}
    if fields != {"spec.replicas"}:
        raise BenchError(f"one-chart review changed {sorted(fields)}, expected spec.replicas only")


def check_library(result: Review, planned: int, repo: Monorepo) -> None:
    check_review(result, planned, repo.chart_paths)
    if not any(a.chart == LIBRARY for a in result.affected):
        raise BenchError("library review does not list the library chart as affected")


# -- timing and memory --------------------------------------------------------------------------


def timed(action: Callable[[], Any]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def summary(runs: Sequence[float]) -> dict[str, Any]:
    return {"median_seconds": statistics.median(runs), "runs_seconds": list(runs)}


def vm_hwm_mib(pid: int) -> float | None:
    """Peak resident set size of a live process, from /proc/<pid>/status (None if unreadable)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def filesystem_type(path: str) -> str:
    """The type of the filesystem holding `path` (its longest mount point in /proc/mounts)."""
    real, best, kind = os.path.realpath(path), "", "unknown"
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                fields = line.split()
                point = fields[1]
                inside = real == point or real.startswith(point.rstrip("/") + "/")
                if len(fields) > 2 and inside and len(point) > len(best):
                    best, kind = point, fields[2]
    except OSError:
        pass
    return kind


def worker_pids(renderer: Renderer) -> list[int]:
    """Pids of the SdkRenderer's live worker processes (its internals: there is no public accessor)."""
    pids = []
    for worker in getattr(renderer, "_processes", ()):
        process = getattr(worker, "_process", None)
        if process is not None and process.poll() is None:
            pids.append(process.pid)
    return pids


def memory_figures(renderer: Renderer) -> dict[str, Any]:
    main = vm_hwm_mib(os.getpid()) or 0.0
    workers = [m for m in (vm_hwm_mib(pid) for pid in worker_pids(renderer)) if m is not None]
    return {
        "main_peak_mib": main,
        "worker_peaks_mib": workers,
        "max_worker_peak_mib": max(workers, default=0.0),
        "tree_peak_upper_bound_mib": main + sum(workers),  # the peaks may not coincide
        "target_mib": RSS_TARGET_MIB,
    }


def timed_review(
    renderer: Renderer, repo: Monorepo, head: str, check: Callable[[Review, int, Monorepo], None]
) -> tuple[float, float]:
    """Seconds of one review and of its `render_many` calls; the result is checked after the clock stops."""
    timed = TimedRenderer(renderer)
    started = time.perf_counter()
    result, planned = review(timed, repo, head)
    seconds = time.perf_counter() - started
    check(result, planned, repo)
    return seconds, timed.seconds


def warm_up(renderer: Renderer, repo: Monorepo, requests: Sequence[RenderRequest]) -> None:
    """Start every worker (all renders once) and run one review untimed, so no measurement pays for a start-up."""
    render_all(renderer, requests)
    timed_review(renderer, repo, repo.one_chart_head, check_one_chart)


def timings(
    renderer: Renderer, bare: Renderer, repo: Monorepo, repeat: int
) -> dict[str, list[float]]:
    """The measurements, interleaved `repeat` times so drifts of a noisy machine hit them alike.
    The baselines render with `bare`, whose workers only render (they do not parse what they render)."""
    runs: dict[str, list[float]] = {
        "naive": [],
        "review_a": [],
        "review_b": [],
        "review_b_render": [],
        "renders_b": [],
        "renders_parsed_b": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench-trees-") as trees:
        export_tree(repo.path, repo.base, Path(trees) / "base")
        export_tree(repo.path, repo.library_head, Path(trees) / "head")
        renders_b = chart_requests(Path(trees) / "base", repo.chart_paths) + chart_requests(
            Path(trees) / "head", repo.chart_paths
        )
        warm_up(renderer, repo, renders_b)
        render_all(bare, renders_b)
        for _ in range(repeat):
            runs["naive"].append(timed(lambda: naive_path(bare, repo, repo.one_chart_head)))
            runs["review_a"].append(
                timed_review(renderer, repo, repo.one_chart_head, check_one_chart)[0]
            )
            review_b, render_b = timed_review(renderer, repo, repo.library_head, check_library)
            runs["review_b"].append(review_b)
            runs["review_b_render"].append(render_b)
            runs["renders_b"].append(timed(lambda: render_all(bare, renders_b)))
            # The floor of any review that observes every object: the renders, each output parsed.
            runs["renders_parsed_b"].append(timed(lambda: render_all(renderer, renders_b)))
    return runs


def profile_review(renderer: Renderer, repo: Monorepo, dest: Path) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    review(renderer, repo, repo.library_head)
    profiler.disable()
    profiler.dump_stats(str(dest))


# -- the run ------------------------------------------------------------------------------------


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    started = time.perf_counter()
    spec = MonorepoSpec(charts=args.charts, templates_per_chart=args.templates)
    repo = build_monorepo(work / "monorepo", spec)
    built = time.perf_counter() - started
    bare = SdkRenderer(
        workers=args.workers, timeout_seconds=RENDER_TIMEOUT_SECONDS, parse_documents=False
    )
    with (
        bare,
        open_renderer(
            "sdk", workers=args.workers, timeout_seconds=RENDER_TIMEOUT_SECONDS
        ) as renderer,
    ):
        runs = timings(renderer, bare, repo, args.repeat)
        stages = {
            "one_chart_change": stage_breakdown(
                renderer, ReviewRequest(repo=repo.path, base=repo.base, head=repo.one_chart_head)
            ),
            "library_change": stage_breakdown(
                renderer, ReviewRequest(repo=repo.path, base=repo.base, head=repo.library_head)
            ),
        }
        if args.cprofile:
            profile_review(renderer, repo, args.cprofile)
        memory = memory_figures(renderer)
        workers, version = len(worker_pids(renderer)), renderer.version
    memory["largest_child_peak_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    result = results(args, repo, runs, stages, memory)
    result["config"]["workers"] = workers
    result["environment"]["renderer"] = version
    result["repository"]["build_seconds"] = built
    result["wall_seconds"] = time.perf_counter() - started
    return result


def results(
    args: argparse.Namespace,
    repo: Monorepo,
    runs: dict[str, list[float]],
    stages: dict[str, Any],
    memory: dict[str, Any],
) -> dict[str, Any]:
    naive, review_a = summary(runs["naive"]), summary(runs["review_a"])
    review_b, renders_b = summary(runs["review_b"]), summary(runs["renders_b"])
    speedup = naive["median_seconds"] / review_a["median_seconds"]
    overhead = review_b["median_seconds"] / renders_b["median_seconds"]
    parsed_b = summary(runs["renders_parsed_b"])
    floor = parsed_b["median_seconds"] / renders_b["median_seconds"]
    charts = len(repo.chart_paths)
    return {
        "config": {
            **asdict(repo.spec),
            "repeat": args.repeat,
            "render_timeout_seconds": RENDER_TIMEOUT_SECONDS,
        },
        "environment": {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "temp_dir": tempfile.gettempdir(),
            "temp_dir_filesystem": filesystem_type(tempfile.gettempdir()),
        },
        "repository": {"files": repo.file_count, "charts": charts},
        "one_chart_change": {
            "naive": naive,
            "review": review_a,
            "naive_renders": 2 * charts,
            "review_renders": 2,
            "naive_over_review": speedup,
            "target_min": NAIVE_TARGET,
            "met": speedup >= NAIVE_TARGET,
        },
        "library_change": {
            "review": review_b,
            "renders_alone": renders_b,
            "renders": 2 * charts,
            "render_many_within_review": summary(runs["review_b_render"]),
            "renders_parsed": parsed_b,
            "parsed_over_renders": floor,
            "review_over_renders": overhead,
            "target_max": OVERHEAD_TARGET,
            "met": overhead <= OVERHEAD_TARGET,
        },
        "stages": stages,
        "memory": {**memory, "met": memory["tree_peak_upper_bound_mib"] <= RSS_TARGET_MIB},
    }


def print_table(result: dict[str, Any]) -> None:
    config, one, lib, memory = (
        result["config"],
        result["one_chart_change"],
        result["library_change"],
        result["memory"],
    )
    verdict = {True: "met", False: "MISSED"}
    print(
        f"aftershock review benchmark: {config['charts']} charts x {config['templates_per_chart']} templates, "
        f"{config['workers']} render workers, median of {config['repeat']} ({result['environment']['renderer']})"
    )
    rows = [
        ("(a) one-chart change", "", ""),
        (
            f"  naive: archive + {one['naive_renders']} renders",
            f"{one['naive']['median_seconds']:.3f} s",
            "",
        ),
        (
            f"  review ({one['review_renders']} renders)",
            f"{one['review']['median_seconds']:.3f} s",
            "",
        ),
        (
            "  naive / review",
            f"{one['naive_over_review']:.1f}x",
            f">= {NAIVE_TARGET:g}x {verdict[one['met']]}",
        ),
        ("(b) library change", "", ""),
        (f"  review ({lib['renders']} renders)", f"{lib['review']['median_seconds']:.3f} s", ""),
        (
            "  of which its render_many",
            f"{lib['render_many_within_review']['median_seconds']:.3f} s",
            "",
        ),
        (
            f"  the {lib['renders']} renders alone",
            f"{lib['renders_alone']['median_seconds']:.3f} s",
            "",
        ),
        (
            "  review / renders",
            f"{lib['review_over_renders']:.3f}x",
            f"<= {OVERHEAD_TARGET:g}x {verdict[lib['met']]}",
        ),
        (
            "  the renders, each output parsed",
            f"{lib['renders_parsed']['median_seconds']:.3f} s",
            "",
        ),
        (
            "  parsed renders / renders (a floor)",
            f"{lib['parsed_over_renders']:.3f}x",
            "no review that reads the objects is below it",
        ),
        ("peak RSS", "", ""),
        ("  main process", f"{memory['main_peak_mib']:.0f} MiB", ""),
        ("  largest render worker", f"{memory['max_worker_peak_mib']:.0f} MiB", ""),
        (
            "  main + all workers (bound)",
            f"{memory['tree_peak_upper_bound_mib']:.0f} MiB",
            f"<= {RSS_TARGET_MIB:g} MiB {verdict[memory['met']]}",
        ),
    ]
    for label, value, note in rows:
        print(f"{label:<38}{value:>12}  {note}")
    for change, breakdown in result["stages"].items():
        print(
            f"stages of one more review, {change}: {breakdown['total_seconds']:.3f} s "
            f"(CPU {breakdown['cpu_seconds']:.3f} s, render workers included)"
        )
        for label, stage in breakdown["stages"].items():
            print(
                f"  {label:<36}{stage['seconds']:>10.3f} s {100 * stage['share']:5.1f}%"
                f"  CPU {stage['cpu_seconds']:8.3f} s"
            )
    print(
        f"work folders in {result['environment']['temp_dir']} ({result['environment']['temp_dir_filesystem']}; set TMPDIR to move them)"
    )
    print(
        f"wall time {result['wall_seconds']:.1f} s (repository built in {result['repository']['build_seconds']:.1f} s)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="aftershock-bench-") as work:
        try:
            result = run(args, Path(work))
        except BenchError as error:
            print(f"bench_review: {error}", file=sys.stderr)
            return 1
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print_table(result)
    if args.json:
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
