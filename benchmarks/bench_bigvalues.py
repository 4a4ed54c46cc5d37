#!/usr/bin/env python3
"""Benchmark of a review of a big values file: no step may be quadratic in values keys or objects.

Usage: python benchmarks/bench_bigvalues.py [--megabytes M] [--json FILE] [--cprofile FILE]

Builds a real git repository in a temporary folder with one chart whose head commit replaces a small
`values.yaml` by one of about M MB (default 5: just under the default --max-file-size), `sections`
maps of 100 string keys each; a template renders every key of every section into a ConfigMap, so the
values diff, the object diff, the provenance and the blast radius all see every key. It then times
one review and its JSON report (no tests: the chart has none) at M and at M/4 in the same run and reports both times
and their ratio against the ratio of the sizes: a linear review gives about 4, a quadratic one 16.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from aftershock.pipeline import ReviewRequest, open_renderer, review_change
from aftershock.report.canonical import review_document
from gitrepo import commit, make_repo

KEYS_PER_SECTION = 100
CONFIGMAP = """\
{{- range $name, $section := .Values.sections }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $.Release.Name }}-{{ $name }}
data:
  {{- range $key, $value := $section }}
  {{ $key }}: {{ $value | quote }}
  {{- end }}
{{- end }}
"""


def values_text(megabytes: float) -> str:
    """A values.yaml of about `megabytes` MB: sections of KEYS_PER_SECTION string keys."""
    lines = ["replicas: 2", "sections:"]
    size, section = 0, 0
    while size < megabytes * 1e6:
        lines.append(f"  s{section:05d}:")
        for key in range(KEYS_PER_SECTION):
            line = f"    key{key:03d}: value-{section:05d}-{key:03d}-abcdefghijklmnop"
            lines.append(line)
            size += len(line) + 1
        section += 1
    return "\n".join(lines) + "\n"


def build_repo(root: Path, megabytes: float) -> tuple[Path, str]:
    repo = make_repo(root, f"repo-{megabytes:g}")
    files = {
        "charts/big/Chart.yaml": "apiVersion: v2\nname: big\nversion: 0.1.0\n",
        "charts/big/values.yaml": "replicas: 2\nsections: {}\n",
        "charts/big/templates/configmaps.yaml": CONFIGMAP,
    }
    base = commit(repo, files, "feat: chart")
    commit(repo, {"charts/big/values.yaml": values_text(megabytes)}, "feat: big values")
    return repo, base


def time_review(repo: Path, base: str, profile: str | None) -> float:
    with open_renderer("sdk", workers=2) as renderer:
        renderer.version  # workers started before timing
        request = ReviewRequest(repo=repo, base=base, run_tests=False)
        profiler = cProfile.Profile() if profile else None
        started = time.perf_counter()
        if profiler:
            profiler.enable()
        result = review_change(request, renderer)
        json.dumps(
            review_document(result.review, result.judgement, None)
        )  # the report, graph and radius included
        seconds = time.perf_counter() - started
        if profiler:
            profiler.disable()
            profiler.dump_stats(profile)
    reviews = result.review.chart_reviews
    # Objects reading thousands of keys are named as not traced by provenance; nothing else may be missing.
    missing = [
        gap for gap in result.review.not_reviewed if not gap.part.startswith("provenance of ")
    ]
    if not reviews or missing or any(r.outcome.value != "changed" for r in reviews):
        raise SystemExit(f"bench_bigvalues: the review is incomplete: {result.review.not_reviewed}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=5.0)
    parser.add_argument("--json", default=None)
    parser.add_argument(
        "--cprofile", default=None, help="write a cProfile (pstats) of the big review"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-bigvalues-") as folder:
        small_repo, small_base = build_repo(Path(folder), args.megabytes / 4)
        big_repo, big_base = build_repo(Path(folder), args.megabytes)
        big_bytes = (big_repo / "charts/big/values.yaml").stat().st_size
        small = time_review(small_repo, small_base, None)
        big = time_review(big_repo, big_base, args.cprofile)
    result = {
        "values_bytes": big_bytes,
        "big_seconds": round(big, 3),
        "quarter_seconds": round(small, 3),
        "ratio": round(big / small, 2),
        "linear_ratio": 4,
        "quadratic_ratio": 16,
    }
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
