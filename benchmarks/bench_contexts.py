#!/usr/bin/env python3
"""Benchmark: the share of affected charts rendered at both refs, commit by commit, over real histories.

Usage: python benchmarks/bench_contexts.py [--bjws PATH] [--commits N] [--json FILE]

Reviews every commit of the bundled examples (examples/platform and examples/tenants, built with
scripts/build_example.py) and, when given (or found at ../shared/corpus), the last N first-parent
commits of the bjw-s helm-charts history, each as `C^..C` without tests. An affected chart counts as
rendered when its default-scenario review rendered at every ref where the chart exists (a chart added
or removed by the commit renders at one). The target is >= 95% over each history. Peak RSS of this
process and its render workers (ru_maxrss of self and children) is printed too.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aftershock.model.review import RenderStatus
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.helm.sdk import SdkRenderer

PROJECT = Path(__file__).resolve().parents[1]


def commits(repo: Path, count: int | None) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "--first-parent", "--reverse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    out = out[1:]  # the root commit has no parent to review against
    return out[-count:] if count else out


def share(repo: Path, shas: list[str], renderer: SdkRenderer) -> dict:
    affected = rendered = 0
    missing: list[str] = []
    started = time.monotonic()
    for sha in shas:
        review = review_change(
            ReviewRequest(repo=repo, base=f"{sha}^", head=sha, run_tests=False), renderer
        ).review
        for chart in {a.chart for a in review.affected}:
            defaults = [
                r
                for r in review.chart_reviews
                if r.chart == chart and r.scenario == "default" and r.release is None
            ]
            if not defaults:
                continue  # a library or embedded chart renders through the charts that include it
            affected += 1
            sides = [
                s for r in defaults for s in (r.base, r.head) if s.status is not RenderStatus.ABSENT
            ]
            if sides and all(s.status is RenderStatus.OK for s in sides):
                rendered += 1
            else:
                missing.append(f"{sha[:8]} {chart}")
    return {
        "commits": len(shas),
        "affected": affected,
        "rendered": rendered,
        "share": rendered / affected if affected else 1.0,
        "seconds": round(time.monotonic() - started, 1),
        "not_rendered": missing,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--bjws",
        type=Path,
        default=PROJECT.parent / "shared" / "corpus" / "bjw-s-helm-charts.bundle",
    )
    parser.add_argument("--commits", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        SdkRenderer(workers=2, timeout_seconds=60.0) as renderer,
    ):
        for example in ("platform", "tenants"):
            dest = Path(tmp) / example
            subprocess.run(
                [sys.executable, str(PROJECT / "scripts" / "build_example.py"), str(dest), example],
                check=True,
                capture_output=True,
            )
            results[f"examples/{example}"] = share(dest, commits(dest, None), renderer)
        if args.bjws.exists():
            dest = Path(tmp) / "bjws"
            subprocess.run(["git", "clone", "-q", str(args.bjws), str(dest)], check=True)
            results[f"bjw-s (last {args.commits})"] = share(
                dest, commits(dest, args.commits), renderer
            )
        else:
            print(f"bjw-s skipped: {args.bjws} not found", file=sys.stderr)
    peak = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    for name, result in results.items():
        print(
            f"{name}: {result['rendered']}/{result['affected']} affected charts rendered at both refs "
            f"({result['share']:.0%}, target >= 95%) over {result['commits']} commits in {result['seconds']} s"
        )
        for line in result["not_rendered"]:
            print(f"  not rendered: {line}")
    print(f"peak RSS (largest process): {peak / 1024:.0f} MiB (target <= 1024)")
    if args.json:
        args.json.write_text(
            json.dumps({"results": results, "peak_rss_mib": peak / 1024}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
