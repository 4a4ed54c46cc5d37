#!/usr/bin/env python3
"""Conformance of aftershock's rules with kube-linter's per-check fixtures: recall and precision per check.

Usage: python benchmarks/bench_kubelinter.py [--bundle PATH] [--json FILE]

Clones the kube-linter bundle of the shared corpus into a temporary folder, reviews its
`tests/checks` fixtures as one chart each (see tests/kubelinter.py) with the embedded Helm, and
prints, for every kube-linter check with an aftershock counterpart, the objects expected, found and
wrongly flagged, then the totals. Targets: recall >= 0.97 and precision >= 0.95 over the mapped
checks, and a counterpart for >= 40 of kube-linter's checks.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import kubelinter
from aftershock.render.helm.sdk import SdkRenderer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=kubelinter.BUNDLE)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not args.bundle.is_file():
        print(
            f"bench_kubelinter: {args.bundle} not found; the shared corpus is needed",
            file=sys.stderr,
        )
        return 2
    kubelinter.BUNDLE = args.bundle
    with (
        tempfile.TemporaryDirectory(prefix="bench-kubelinter-") as tmp,
        SdkRenderer(workers=2, timeout_seconds=60.0) as renderer,
    ):
        clone = kubelinter.clone_bundle(Path(tmp) / "kube-linter")
        started = time.perf_counter()
        scores, wanted = kubelinter.run_conformance(clone, Path(tmp) / "repo", renderer)
        seconds = time.perf_counter() - started
        published = kubelinter.published_checks(clone)
    print(f"{'check':42} {'rules':48} expected found wrong")
    for score in scores:
        mark = "" if score.rendered else "  (not rendered)"
        print(
            f"{score.check:42} {','.join(score.rules)[:48]:48} {len(score.expected):8} {score.true_positives:5} "
            f"{score.false_positives:5}{mark}"
        )
    recall, precision = kubelinter.totals(scores)
    mapped = {s.check for s in scores}
    print(f"\ncounterparts: {len(mapped)} of {len(published)} kube-linter checks")
    print(
        f"recall {recall:.3f}, precision {precision:.3f} over {sum(len(s.expected) for s in scores)} expected objects"
        f" (review of {len(scores)} charts: {seconds:.1f} s)"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "checks": [
                        {
                            "check": s.check,
                            "rules": s.rules,
                            "expected": sorted(s.expected),
                            "flagged": sorted(s.flagged),
                        }
                        for s in scores
                    ],
                    "recall": recall,
                    "precision": precision,
                    "counterparts": len(mapped),
                    "published": len(published),
                    "unmapped": wanted["unmapped"],
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
