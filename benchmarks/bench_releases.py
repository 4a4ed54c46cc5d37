"""Release following, with and without the render cache, measured in one run.

A synthetic monorepo (benchmarks/monorepo.py: N application charts sharing a library chart) gains a
`charts/releases/platform-releases` chart that renders one Flux HelmRelease per application, with
values built as `mergeOverwrite (deepCopy .Values.defaults) (index .Values.overrides NAME)`. The change
under review edits one default of that chart, so every release passes new values and every application
chart is followed and rendered at base and head (1 + N charts per side). Timed, median of --repeat:

- the review with the bare SDK renderer (no cache);
- the same review through `CachingRenderer` with an empty cache (its cost: hashing chart folders);
- the same review again with the cache warm (a re-review of an unchanged range), the case the cache is for.

    python benchmarks/bench_releases.py [--charts 50] [--templates 4] [--repeat 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from aftershock.pipeline import ReviewRequest, run_review
from aftershock.render.caching.cache import CachingRenderer, open_render_cache
from aftershock.render.helm.sdk import SdkRenderer
from monorepo import (
    BASE_BRANCH,
    MonorepoSpec,
    _branch_commit,
    _commit,
    _git,
    _write,
    build_monorepo,
    chart_path,
)

RELEASES = "charts/releases/platform-releases"
RELEASE_TEMPLATE = """\
{{- range $name := .Values.apps }}
{{- $values := mergeOverwrite (deepCopy $.Values.defaults) (index $.Values.overrides $name | default dict) }}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: {{ $name }}
  namespace: flux-system
spec:
  targetNamespace: {{ $name }}
  chart:
    spec:
      chart: ./charts/apps/{{ $name }}
      sourceRef: {kind: GitRepository, name: platform}
  values:
    {{- toYaml $values | nindent 4 }}
{{- end }}
"""


def releases_files(apps: Sequence[str], team: str) -> dict[str, str]:
    values = (
        "apps:\n"
        + "".join(f"  - {a}\n" for a in apps)
        + f"defaults:\n  team: {team}\noverrides: {{}}\n"
    )
    return {
        f"{RELEASES}/Chart.yaml": "apiVersion: v2\nname: platform-releases\nversion: 1.0.0\n",
        f"{RELEASES}/values.yaml": values,
        f"{RELEASES}/templates/helmreleases.yaml": RELEASE_TEMPLATE,
    }


def build(work: Path, charts: int, templates: int) -> tuple[Path, str, str]:
    mono = build_monorepo(work / "monorepo", MonorepoSpec(charts, templates))
    apps = [chart_path(i).rsplit("/", 1)[1] for i in range(charts)]
    _git(mono.path, "checkout", "-q", BASE_BRANCH)
    _write(mono.path, releases_files(apps, "platform"), {})
    base = _commit(mono.path, "feat(releases): one HelmRelease per application")
    head = _branch_commit(
        mono.path,
        "change/release-default",
        releases_files(apps, "storefront"),
        "feat(releases): hand every application to the storefront team",
    )
    return mono.path, base, head


def timed(renderer: Any, repo: Path, base: str, head: str, expected: int) -> float:
    started = time.perf_counter()
    review = run_review(
        ReviewRequest(repo=repo, base=base, head=head, max_scenarios=1, run_tests=False), renderer
    )
    seconds = time.perf_counter() - started
    followed = [r for r in review.chart_reviews if r.release and r.outcome.value == "changed"]
    if len(followed) != expected:
        raise SystemExit(f"expected {expected} followed releases to change, got {len(followed)}")
    return seconds


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-releases-") as tmp:
        repo, base, head = build(Path(tmp), args.charts, args.templates)
        runs: dict[str, list[float]] = {"no_cache": [], "cache_cold": [], "cache_warm": []}
        with SdkRenderer(workers=args.workers) as sdk:
            timed(sdk, repo, base, head, args.charts)  # start the workers
            for index in range(args.repeat):
                runs["no_cache"].append(timed(sdk, repo, base, head, args.charts))
                cached = CachingRenderer(sdk, open_render_cache(Path(tmp) / f"cache-{index}"))
                runs["cache_cold"].append(timed(cached, repo, base, head, args.charts))
                runs["cache_warm"].append(timed(cached, repo, base, head, args.charts))
        medians = {k: statistics.median(v) for k, v in runs.items()}
    return {
        "charts": args.charts,
        "templates": args.templates,
        "renders_per_review": 2 * (args.charts + 1),
        "runs_seconds": runs,
        "median_seconds": medians,
        "cold_over_no_cache": medians["cache_cold"] / medians["no_cache"],
        "warm_over_no_cache": medians["cache_warm"] / medians["no_cache"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charts", type=int, default=50)
    parser.add_argument("--templates", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(args)
    m = result["median_seconds"]
    print(
        f"release following: {args.charts} releases, {result['renders_per_review']} renders per review, median of {args.repeat}"
    )
    print(f"  no cache          {m['no_cache']:.3f} s")
    print(
        f"  cache, cold       {m['cache_cold']:.3f} s  ({result['cold_over_no_cache']:.2f}x no cache)"
    )
    print(
        f"  cache, warm       {m['cache_warm']:.3f} s  ({result['warm_over_no_cache']:.2f}x no cache)"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
