"""Benchmark on the bjw-s helm-charts corpus: renders over its history, and a test-chart review's cost.

Clones ../shared/corpus/bjw-s-helm-charts.bundle into a temporary folder, then, in one run with
one renderer (2 render workers, no render cache):

1. reviews each of the last N first-parent commits as `C^..C` (no tests, as `--no-tests`) and
   prints the share of affected charts rendered at both refs (target >= 95%). Library charts are
   not rendered by themselves (Helm cannot), so they count through the charts that include them.
2. commits a one-chart change to the test chart (`--change comment`: a comment in its values.yaml;
   `--change template`: a line its template renders into every test's output; `--change label`:
   the library's helm.sh/chart label removed from every object, which the test chart and
   app-template include) and times its review with the tests (every suite at head, at base those
   the evidence needs, or all with `--base-tests all`) against `aftershock test -f
   "unittests/**/*_test.yaml"` of the same chart alone (target <= 1.5x), in wall time and in CPU
   time (this process and the render workers; much less stretched by a busy machine).
3. prints peak RSS: this process plus every render worker (VmHWM; target <= 1 GiB).

    .venv/bin/python benchmarks/bench_bjws.py [--commits 20] [--skip-timing]
        [--change comment|template|label] [--base-tests needed|all]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aftershock.model.review import RenderStatus
from aftershock.model.tests import BaseTests
from aftershock.model.units import ChartType
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.review import open_renderer
from aftershock.testrun.runner import run_suites

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_review import memory_figures, worker_pids

CORPUS = Path(
    os.environ.get("AFTERSHOCK_CORPUS")
    or Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
)
BUNDLE = CORPUS / "bjw-s-helm-charts.bundle"
TEST_CHART = "charts/library/common/test-chart"
PATTERN = "unittests/**/*_test.yaml"
LABELS = "charts/library/common/templates/lib/metadata/_allLabels.tpl"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.invalid",
            *args,
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def rendered_share(repo: Path, renderer, commits: int) -> tuple[int, int, list[str]]:
    """(charts rendered at both refs, affected charts that should render, the ones that did not)."""
    good, total, missed = 0, 0, []
    for sha in _git(repo, "rev-list", "--first-parent", f"-{commits}", "HEAD").split():
        review = run_review(
            ReviewRequest(repo=repo, base=f"{sha}^", head=sha, run_tests=False), renderer
        )
        libraries = {c.path for c in review.charts if c.type is ChartType.LIBRARY}
        for affected in review.affected:
            if affected.chart in libraries:
                continue
            total += 1
            gaps = [g for g in review.not_reviewed if g.part.startswith(f"chart {affected.chart}")]
            sides = (
                {
                    r.chart
                    for r in review.chart_reviews
                    if {r.base.status, r.head.status} <= {RenderStatus.OK, RenderStatus.ABSENT}
                }
                if not gaps
                else set()
            )
            if affected.chart in sides:
                good += 1
            else:
                missed.append(
                    f"{sha[:7]} {affected.chart}: {gaps[0].reason[:160] if gaps else 'no render'}"
                )
    return good, total, missed


def cpu_seconds(renderer) -> float:
    """CPU seconds used so far by this process and the renderer's live workers: a busy machine
    stretches wall time, much less the CPU time the work itself takes."""
    total = time.process_time()
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in worker_pids(renderer):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def commit_change(repo: Path, change: str) -> None:
    """A comment no render can see, a template line every test's render holds, or a label the
    library puts on every object removed (a field removal the guard map reads at base)."""
    if change == "label":
        path = repo / LABELS
        text = path.read_text(encoding="utf-8")
        removed = 'helm.sh/chart: {{ include "bjw-s.common.lib.chart.names.chart" . }}\n'
        assert removed in text, f"{LABELS} no longer holds the helm.sh/chart label"
        path.write_text(text.replace(removed, ""), encoding="utf-8")
        _git(repo, "commit", "-qam", "chore(common): drop the helm.sh/chart label")
        return
    if change == "comment":
        path, addition = repo / TEST_CHART / "values.yaml", "# a comment\n"
    else:
        path, addition = (
            repo / TEST_CHART / "templates" / "common.yaml",
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-bench\n",
        )
    path.write_text(path.read_text(encoding="utf-8") + addition, encoding="utf-8")
    _git(repo, "commit", "-qam", f"chore(test-chart): {change}")


def review_against_test(
    repo: Path, renderer, change: str, base_tests: BaseTests
) -> tuple[tuple[float, float], tuple[float, float], int]:
    """((review seconds, CPU seconds), (`aftershock test` seconds, CPU seconds), tests) for a
    one-chart change to the test chart."""
    commit_change(repo, change)
    started, cpu = time.perf_counter(), cpu_seconds(renderer)
    request = ReviewRequest(repo=repo, base="HEAD^", head="HEAD", base_tests=base_tests)
    review = run_review(request, renderer)
    review_seconds = (time.perf_counter() - started, cpu_seconds(renderer) - cpu)
    started, cpu = time.perf_counter(), cpu_seconds(renderer)
    alone = run_suites([str(repo / TEST_CHART)], renderer, test_files=(PATTERN,))
    test_seconds = (time.perf_counter() - started, cpu_seconds(renderer) - cpu)
    assert review.tests is not None and review.tests.charts, "the review ran no suite"
    not_run = sum(c.base.not_run for c in review.tests.charts)
    print(
        f"  renders: review's test step {review.tests.renders} for {review.tests.tests_rendered} test runs, "
        f"aftershock test {alone.stats.renders}; base tests not run (not needed): {not_run}"
    )
    return review_seconds, test_seconds, sum(len(s.tests) for s in alone.suites())


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--commits", type=int, default=20)
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--change", choices=("comment", "template", "label"), default="comment")
    parser.add_argument("--base-tests", choices=("needed", "all"), default="needed")
    args = parser.parse_args()
    if not BUNDLE.is_file():
        print(f"corpus bundle {BUNDLE} is absent", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-bjws-") as work:
        repo = Path(work) / "helm-charts"
        subprocess.run(["git", "clone", "-q", str(BUNDLE), str(repo)], check=True)
        with open_renderer("sdk", workers=2) as renderer:
            good, total, missed = rendered_share(repo, renderer, args.commits)
            print(
                f"affected charts rendered at both refs over {args.commits} commits: {good}/{total} "
                f"= {good / max(total, 1):.0%} (target >= 95%)"
            )
            for line in missed:
                print(f"  not rendered: {line}")
            if not args.skip_timing:
                (review_wall, review_cpu), (test_wall, test_cpu), tests = review_against_test(
                    repo, renderer, args.change, args.base_tests
                )
                print(
                    f"change ({args.change}, base tests {args.base_tests}) reaching {TEST_CHART} ({tests} tests): review {review_wall:.1f} s, "
                    f"aftershock test alone {test_wall:.1f} s = {review_wall / test_wall:.2f}x (target <= 1.5x); "
                    f"CPU (this process and the workers) {review_cpu:.1f} s / {test_cpu:.1f} s = "
                    f"{review_cpu / test_cpu:.2f}x"
                )
            memory = memory_figures(renderer)
        bound = memory["main_peak_mib"] + sum(memory["worker_peaks_mib"])
        print(
            f"peak RSS: main {memory['main_peak_mib']:.0f} MiB + workers "
            f"{' + '.join(f'{m:.0f}' for m in memory['worker_peaks_mib'])} MiB = {bound:.0f} MiB (target <= 1024 MiB)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
