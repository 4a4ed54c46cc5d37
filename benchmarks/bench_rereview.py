#!/usr/bin/env python3
"""Benchmark of a re-review after a one-file push against the first review, measured in the same run.

Usage: python benchmarks/bench_rereview.py [--charts N] [--templates K] [--repeat R] [--workers W] [--json FILE]
                                           [--skip-example] [--skip-monorepo]

Two repositories, each given two one-file pushes on top of the first reviewed head (push 1 raises
`replicaCount` in one chart's values.yaml, push 2 in another chart's):
- the bundled example (scripts/build_example.py): first review demo-base..demo-head;
- the synthetic monorepo (monorepo.py, N charts on one library): first review main..change/library,
  which changes every object of every chart.

Each repetition starts from a fresh state database and a fresh render cache folder, with one
SdkRenderer whose workers start before any timing, and runs through `review_with_state` what
`aftershock review` runs:
1. the first review of base..head (cold cache), recorded as the target's baseline;
2. a full re-review of base..push1 (`aftershock review`): the render cache answers every render but
   push 1's chart;
3. an incremental re-review of base..push2 (`aftershock review --since-last`): only the chart push 2
   edits is rendered, the rest is carried forward;
4. the same again with no new commit: the fixed cost of any review (git, discovery, rules, state).
Each review opens the disk cache anew, as a new process would (its memory layer starts empty).
Ratios are re-review / first review from medians of the same run; the target is <= 0.20. The
pushed chart's share of the first review's render requests is reported beside the incremental ratio.
The stage timings the pipeline records (stages.py) of one more full re-review show where its time goes.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aftershock.judgement.stateful import StatefulReview
from aftershock.model.state_mode import RequestedMode
from aftershock.model.state_records import ReviewMode
from aftershock.pipeline import ReviewRequest
from aftershock.pipeline.state import StateOptions, review_with_state
from aftershock.render.caching.cache import CacheStats, CachingRenderer, open_render_cache
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.interface import ProgressCallback, Renderer, RenderOutcome, RenderRequest
from monorepo import BASE_BRANCH, LIBRARY_BRANCH, MonorepoSpec, _git, build_monorepo, chart_path
from stages import stage_breakdown

TARGET_RATIO = 0.20  # re-review / first review, at most
PROJECT = Path(__file__).resolve().parents[1]
TARGET = "pr:1"


class BenchError(Exception):
    """A review that is not what the benchmark expects (wrong mode, unexpected renders)."""


@dataclass(frozen=True)
class Scenario:
    """A repository, its first reviewed range, and two one-file pushes on top of its head."""

    name: str
    repo: Path
    base: str
    head: str
    push1: str
    push2: str
    push1_chart: str
    push2_chart: str


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark a re-review after a one-file push against the first review."
    )
    parser.add_argument(
        "--charts", type=int, default=200, help="application charts in the monorepo (default 200)"
    )
    parser.add_argument(
        "--templates", type=int, default=4, help="templates per monorepo chart (default 4)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions (default 3)")
    parser.add_argument(
        "--workers", type=int, default=None, help="render workers (default: the renderer's)"
    )
    parser.add_argument(
        "--json", type=Path, default=None, help="write the results to this JSON file"
    )
    parser.add_argument(
        "--skip-example", action="store_true", help="do not benchmark the example repository"
    )
    parser.add_argument(
        "--skip-monorepo", action="store_true", help="do not benchmark the synthetic monorepo"
    )
    args = parser.parse_args(argv)
    if args.charts < 2 or args.templates < 1 or args.repeat < 1:
        parser.error("--charts must be at least 2, --templates and --repeat at least 1")
    return args


# -- the repositories ---------------------------------------------------------------------------


def push_one_file(repo: Path, parent: str, path: str, message: str) -> str:
    """Commit on top of `parent` (as a new branch tip) a values.yaml with `replicaCount` raised by one."""
    _git(repo, "checkout", "-q", "--detach", parent)
    target = repo / path
    text = target.read_text(encoding="utf-8")
    edited, count = re.subn(
        r"^replicaCount: (\d+)$", lambda m: f"replicaCount: {int(m.group(1)) + 1}", text, flags=re.M
    )
    if count != 1:
        raise BenchError(f"{path} has no single top-level replicaCount to raise")
    target.write_text(edited, encoding="utf-8")
    _git(repo, "add", path)
    _git(repo, "commit", "-q", "--no-verify", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def example_scenario(root: Path) -> Scenario:
    repo = root / "example"
    subprocess.run(
        [sys.executable, str(PROJECT / "scripts" / "build_example.py"), str(repo)],
        check=True,
        capture_output=True,
    )
    base, head = _git(repo, "rev-parse", "demo-base"), _git(repo, "rev-parse", "demo-head")
    push1 = push_one_file(
        repo, head, "charts/apps/orders/values.yaml", "feat(orders): one more replica"
    )
    push2 = push_one_file(
        repo, push1, "charts/apps/payments/values.yaml", "feat(payments): one more replica"
    )
    return Scenario(
        "example", repo, base, head, push1, push2, "charts/apps/orders", "charts/apps/payments"
    )


def monorepo_scenario(root: Path, charts: int, templates: int) -> Scenario:
    mono = build_monorepo(root / "monorepo", MonorepoSpec(charts, templates))
    first, second = chart_path(0), chart_path(charts - 1)
    push1 = push_one_file(
        mono.path, mono.library_head, f"{first}/values.yaml", "feat(app): one more replica"
    )
    push2 = push_one_file(mono.path, push1, f"{second}/values.yaml", "feat(app): one more replica")
    _git(mono.path, "checkout", "-q", BASE_BRANCH)
    head = _git(mono.path, "rev-parse", LIBRARY_BRANCH)
    return Scenario("monorepo", mono.path, mono.base, head, push1, push2, first, second)


# -- the reviews --------------------------------------------------------------------------------


class RecordingRenderer:
    """Passes renders to the SDK renderer and keeps the chart folder of each: what the cache did not answer."""

    def __init__(self, inner: Renderer) -> None:
        self.name = inner.name
        self.inner = inner
        self.chart_dirs: list[str] = []

    @property
    def version(self) -> str:
        return self.inner.version

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline=None,
    ) -> list[RenderOutcome]:
        self.chart_dirs += [request.chart_dir for request in requests]
        return self.inner.render_many(requests, progress, deadline=deadline)

    def close(self) -> None:
        pass  # the SDK renderer is shared by every review of the run


@dataclass(frozen=True)
class Timed:
    seconds: float
    stateful: StatefulReview
    cache: CacheStats
    rendered: tuple[str, ...]  # chart folders the SDK rendered


def timed_review(
    scenario: Scenario,
    head: str,
    requested: RequestedMode,
    sdk: SdkRenderer,
    cache_dir: Path,
    state: Path,
) -> Timed:
    recording = RecordingRenderer(sdk)
    renderer = CachingRenderer(recording, open_render_cache(cache_dir))
    request = ReviewRequest(repo=scenario.repo, base=scenario.base, head=head)
    started = time.perf_counter()
    stateful = review_with_state(
        request, renderer, None, StateOptions(str(state), TARGET, requested)
    )
    return Timed(
        time.perf_counter() - started, stateful, renderer.stats, tuple(recording.chart_dirs)
    )


def one_repetition(scenario: Scenario, sdk: SdkRenderer, work: Path) -> dict[str, Timed]:
    cache_dir, state = work / "render-cache", work / "state.db"
    first = timed_review(scenario, scenario.head, RequestedMode.DEFAULT, sdk, cache_dir, state)
    full = timed_review(scenario, scenario.push1, RequestedMode.DEFAULT, sdk, cache_dir, state)
    incremental = timed_review(
        scenario, scenario.push2, RequestedMode.SINCE_LAST, sdk, cache_dir, state
    )
    nothing_new = timed_review(
        scenario, scenario.push2, RequestedMode.SINCE_LAST, sdk, cache_dir, state
    )
    check(scenario, first, full, incremental)
    if nothing_new.rendered or nothing_new.stateful.plan.since_sha != scenario.push2:
        raise BenchError(
            f"{scenario.name}: a re-review with no new commit rendered {len(nothing_new.rendered)} request(s)"
        )
    return {
        "first": first,
        "full_rereview": full,
        "incremental_rereview": incremental,
        "no_new_commit": nothing_new,
    }


def check(scenario: Scenario, first: Timed, full: Timed, incremental: Timed) -> None:
    """The reviews did what the benchmark claims: a cold first review, a cached full one, an incremental one."""
    # The cache folder starts empty; a hit in the first review is a render it repeats (e.g. a test's
    # render equal to the chart's own), so most of its renders must be misses.
    if first.cache.hits >= first.cache.misses:
        raise BenchError(
            f"{scenario.name}: the first review was not rendered from a cold cache: {first.cache}"
        )
    others = sorted({d for d in full.rendered if Path(d).name != Path(scenario.push1_chart).name})
    if full.stateful.plan.mode is not ReviewMode.FULL or not full.rendered or others:
        raise BenchError(
            f"{scenario.name}: the full re-review rendered {others or 'nothing'}; expected {scenario.push1_chart} only"
        )
    if incremental.stateful.plan.mode is not ReviewMode.INCREMENTAL:
        raise BenchError(
            f"{scenario.name}: --since-last ran a {incremental.stateful.plan.mode.value} review: {incremental.stateful.plan.reason}"
        )
    charts = {r.chart for r in incremental.stateful.result.review.chart_reviews}
    if (
        scenario.push2_chart not in charts
        or len({c for c in charts if not c.startswith("charts/releases")}) > 1
    ):
        raise BenchError(f"{scenario.name}: the incremental re-review rendered {sorted(charts)}")


def run_scenario(scenario: Scenario, sdk: SdkRenderer, repeat: int) -> dict[str, Any]:
    runs: dict[str, list[Timed]] = {
        "first": [],
        "full_rereview": [],
        "incremental_rereview": [],
        "no_new_commit": [],
    }
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="aftershock-rereview-") as work:
            for key, timed in one_repetition(scenario, sdk, Path(work)).items():
                runs[key].append(timed)
    medians = {key: statistics.median(t.seconds for t in timings) for key, timings in runs.items()}
    result: dict[str, Any] = {key: _entry(timings, medians[key]) for key, timings in runs.items()}
    for key in ("full_rereview", "incremental_rereview", "no_new_commit"):
        ratio = medians[key] / medians["first"]
        result[key]["ratio_to_first"] = ratio
        result[key]["met"] = ratio <= TARGET_RATIO
    incremental = result["incremental_rereview"]
    incremental["carried_forward"] = sum(
        e.carried_forward for e in runs["incremental_rereview"][-1].stateful.lifecycle.current
    )
    incremental["pushed_chart_share_of_first_renders"] = (
        incremental["render_requests"] / result["first"]["render_requests"]
    )
    return result


def _entry(timings: list[Timed], median: float) -> dict[str, Any]:
    last = timings[-1]
    review = last.stateful.result.review
    return {
        "runs_seconds": [t.seconds for t in timings],
        "median_seconds": median,
        "mode": last.stateful.plan.mode.value,
        "chart_reviews": len(review.chart_reviews),
        "render_requests": last.cache.hits
        + last.cache.misses
        + last.cache.merged
        + last.cache.uncacheable,
        "rendered": len(last.rendered),
        "cache": {
            "hits": last.cache.hits,
            "misses": last.cache.misses,
            "merged": last.cache.merged,
            "uncacheable": last.cache.uncacheable,
        },
        "findings": len(last.stateful.result.judgement.findings),
    }


def breakdown(scenario: Scenario, sdk: SdkRenderer) -> dict[str, Any]:
    """Where a full re-review's time goes, with a warm cache (one instrumented pass, not stateful)."""
    with tempfile.TemporaryDirectory(prefix="aftershock-rereview-") as work:
        cache = open_render_cache(Path(work))
        request = ReviewRequest(repo=scenario.repo, base=scenario.base, head=scenario.push1)
        stage_breakdown(CachingRenderer(sdk, cache), request)  # fills the cache
        found = stage_breakdown(CachingRenderer(sdk, open_render_cache(Path(work))), request)
    found["stages"] = dict(list(found["stages"].items())[:8])
    return found


# -- output -------------------------------------------------------------------------------------


def print_summary(name: str, result: dict[str, Any]) -> None:
    first = result["first"]
    print(f"{name}: first review {first['median_seconds']:.2f} s ({first['rendered']} renders)")
    labels = (
        ("full_rereview", "full re-review after push 1"),
        ("incremental_rereview", "--since-last after push 2"),
        ("no_new_commit", "--since-last with no new commit"),
    )
    for key, label in labels:
        entry = result[key]
        print(
            f"  {label}: {entry['median_seconds']:.2f} s, {entry['rendered']} rendered, {entry['cache']['hits']} from cache; "
            f"re-review / first = {entry['ratio_to_first']:.3f} (target <= {TARGET_RATIO}) {'met' if entry['met'] else 'NOT met'}"
        )
    share = result["incremental_rereview"]["pushed_chart_share_of_first_renders"]
    print(f"  push 2's chart accounts for {share:.1%} of the first review's render requests")
    stages = result.get("full_rereview_stages", {}).get("stages", {})
    if stages:
        top = ", ".join(
            f"{label} {stage['seconds']:.2f} s" for label, stage in list(stages.items())[:5]
        )
        print(f"  full re-review time goes to: {top}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    results: dict[str, Any] = {
        "config": {
            "charts": args.charts,
            "templates_per_chart": args.templates,
            "repeat": args.repeat,
            "workers": args.workers,
            "target_ratio": TARGET_RATIO,
        }
    }
    with (
        tempfile.TemporaryDirectory(prefix="aftershock-rereview-repos-") as root,
        SdkRenderer(workers=args.workers) as sdk,
    ):
        sdk.version  # start the workers before any timing
        scenarios = [] if args.skip_example else [example_scenario(Path(root))]
        if not args.skip_monorepo:
            scenarios.append(monorepo_scenario(Path(root), args.charts, args.templates))
        try:
            for scenario in scenarios:
                results[scenario.name] = run_scenario(scenario, sdk, args.repeat)
                results[scenario.name]["full_rereview_stages"] = breakdown(scenario, sdk)
                print_summary(scenario.name, results[scenario.name])
        except BenchError as error:
            print(f"bench_rereview: {error}", file=sys.stderr)
            return 1
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
