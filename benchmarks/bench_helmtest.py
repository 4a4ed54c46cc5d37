"""Benchmark of `aftershock test` on the traefik chart corpus: renders per test and wall time.

Clones ../shared/corpus/traefik-helm-chart.bundle into a temporary folder and runs every
helm-unittest suite of `traefik/` at each ref (default `master`). For each ref it prints the
suite and test counts, the number of Helm renders against one render per test (helm-unittest's
way), and the wall time; `--naive` also times a run that renders once per test.

    .venv/bin/python benchmarks/bench_helmtest.py [--ref master --ref v39.0.0] [--naive] [--review COMMIT ...]

`--review COMMIT` also times the test step of a review of COMMIT against its parent: the suites run
at both refs, and a test whose inputs are equal at both refs is rendered once.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aftershock.model.test_results import JobStatus, RunResult
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.testing.tests import collect_test_evidence_for_refs
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.testrun.runner import run_suites

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
BUNDLE = CORPUS / "traefik-helm-chart.bundle"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "advice.detachedHead=false", *args],
        check=True,
        capture_output=True,
    )


def _figures(result: RunResult) -> str:
    suites = result.suites()
    tests = [test for suite in suites for test in suite.tests]
    suite_text = (
        f"suites {sum(s.passed and not s.skipped for s in suites)} passed, "
        f"{sum(not s.passed and not s.skipped for s in suites)} failed, "
        f"{sum(s.skipped for s in suites)} skipped"
    )
    counts = {status: sum(test.status == status for test in tests) for status in JobStatus}
    test_text = (
        f"tests {counts[JobStatus.PASSED]} passed, "
        f"{counts[JobStatus.FAILED] + counts[JobStatus.ERRORED]} failed, "
        f"{counts[JobStatus.SKIPPED]} skipped"
    )
    return f"{suite_text}; {test_text}"


def _run(chart: Path, workers: int, share: bool) -> tuple[RunResult, float]:
    started = time.monotonic()
    with SdkRenderer(workers=workers) as renderer:
        result = run_suites([str(chart)], renderer, share_renders=share)
    return result, time.monotonic() - started


def bench_ref(repo: Path, ref: str, workers: int, naive: bool) -> None:
    _git(repo, "checkout", "--force", ref)
    chart = repo / "traefik"
    result, wall = _run(chart, workers, share=True)
    stats = result.stats
    print(f"{ref}: {_figures(result)}")
    print(
        f"  renders {stats.renders} for {stats.tests_rendered} rendered tests "
        f"= {stats.renders_per_test:.3f} renders per test "
        f"(one render per test: {stats.tests_rendered}); chart copies {stats.chart_copies}"
    )
    print(
        f"  distinct inputs were every template selection ignored: {stats.inputs_any_selection} "
        f"= {stats.inputs_any_selection / max(stats.tests_rendered, 1):.3f} per test (no sharing of equal "
        f"inputs goes below it)"
    )
    print(f"  wall {wall:.1f} s, render time summed over workers {stats.render_seconds:.1f} s")
    if naive:
        naive_result, naive_wall = _run(chart, workers, share=False)
        print(
            f"  one render per test: {naive_result.stats.renders} renders, wall {naive_wall:.1f} s "
            f"({naive_wall / wall:.2f}x the shared run)"
        )


def bench_review_tests(repo: Path, commit: str, workers: int) -> None:
    """The test step of a review of `commit` (its parent as base): test runs at both refs, the Helm
    renders they took (equal inputs at both refs share one), and the wall time."""
    subject = subprocess.run(
        ["git", "-C", str(repo), "log", "-1", "--format=%s", commit],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with SdkRenderer(workers=workers, parse_documents=False) as renderer:
        request = ReviewRequest(repo=repo, base=f"{commit}^", head=commit, run_tests=False)
        reviews = run_review(request, renderer).chart_reviews
        started = time.monotonic()
        evidence = collect_test_evidence_for_refs(repo, f"{commit}^", commit, reviews, renderer)
        wall = time.monotonic() - started
    runs = evidence.tests_rendered
    print(
        f"review of {commit} ({subject}): {runs} test runs at base and head, {evidence.renders} renders "
        f"= {evidence.renders / max(runs, 1):.3f} per test run, wall {wall:.1f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", action="append", help="git ref to test (repeatable)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--naive", action="store_true", help="also time one render per test")
    parser.add_argument(
        "--review",
        action="append",
        default=[],
        metavar="COMMIT",
        help="also time the test step of a review of COMMIT against its parent (repeatable)",
    )
    args = parser.parse_args()
    if not BUNDLE.is_file():
        print(f"corpus not found: {BUNDLE}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-helmtest-") as folder:
        repo = Path(folder) / "traefik-helm-chart"
        subprocess.run(["git", "clone", "--quiet", str(BUNDLE), str(repo)], check=True)
        for ref in args.ref or ["master"]:
            bench_ref(repo, ref, args.workers, args.naive)
        for commit in args.review:
            bench_review_tests(repo, commit, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
