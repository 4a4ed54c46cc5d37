#!/usr/bin/env python3
"""The whole-repository fuzzer at scale: fuzzed charts, values schemas, helm-unittest suites, Flux
objects, kustomizations and plain manifests, each added by a head commit to a real git repository reviewed by the real CLI in a
child process (tests/fuzz/repo_runs.py), `--batch` inputs of one kind per review.

Usage: python benchmarks/bench_fuzz_repos.py [--seed S] [--per-kind N] [--batch B] [--json FILE]
                                             [--log FILE]

Prints inputs per kind, tracebacks, exit statuses, inputs/second; `--log` gets one JSON line per
batch as it ends (a run stopped early keeps what it saw). Exits 1 when any input crashed a review.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path[:0] = [str(TESTS), str(TESTS / "fuzz")]

from harness import Tally  # noqa: E402 - found through the path set above
from repo_inputs import KINDS  # noqa: E402
from repo_runs import REFUSED_ALONE, batch_run  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--per-kind",
        default="chart=1000,schema=1000,suite=2400,flux=5400,kustomization=1400,plain=1000",
    )
    parser.add_argument(
        "--batch", default="chart=50,schema=50,suite=50,flux=200,kustomization=50,plain=100"
    )
    parser.add_argument("--json", default=None)
    parser.add_argument("--log", default=None)
    args = parser.parse_args()
    per_kind, batch = _counts(args.per_kind), _counts(args.batch)
    kinds = [k for k in KINDS if per_kind.get(k)]
    started = time.monotonic()
    tallies = {kind: Tally() for kind in kinds}
    log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115 - kept open for the run
    with tempfile.TemporaryDirectory(prefix="aftershock-fuzz-repos-") as scratch:
        for kind, first, count in _schedule(kinds, per_kind, batch):
            folder = Path(scratch) / f"{kind}-{first}"
            one = batch_run(folder, kind, args.seed * 1000 + KINDS.index(kind), first, count)
            shutil.rmtree(folder, ignore_errors=True)
            tallies[kind].merge(one)
            if log:
                row = {"kind": kind, "first": first, "count": count, "exits": one.exits}
                row |= {
                    "failures": [f.input for f in one.failures],
                    "seconds": round(one.seconds, 1),
                }
                log.write(json.dumps(row) + "\n")
                log.flush()
    seconds = time.monotonic() - started
    figures = _figures(tallies, seconds)
    print(json.dumps(figures, indent=2))
    for tally in tallies.values():
        if tally.failures:
            print(tally.report(limit=5))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 1 if any(t.failures for t in tallies.values()) else 0


def _counts(text: str) -> dict[str, int]:
    """`chart=800,suite=2500` (or one number for every kind) as kind -> count."""
    if text.isdigit():
        return dict.fromkeys(KINDS, int(text))
    return {k: int(v) for k, v in (part.split("=") for part in text.split(",") if part)}


def _schedule(
    kinds: list[str], per_kind: dict[str, int], batch: dict[str, int]
) -> list[tuple[str, int, int]]:
    """(kind, first input, count) of every batch, the kinds interleaved in proportion to their counts,
    so a run stopped early has covered each."""
    batches = [
        (first / per_kind[k], k, first, min(batch[k], per_kind[k] - first))
        for k in kinds
        for first in range(0, per_kind[k], batch[k])
    ]
    return [(k, first, count) for _, k, first, count in sorted(batches)]


def _figures(tallies: dict[str, Tally], seconds: float) -> dict[str, object]:
    total = sum(t.total for t in tallies.values())
    return {
        "inputs": total,
        "tracebacks_or_exit_1": sum(len(t.failures) for t in tallies.values()),
        "seconds": round(seconds, 1),
        "inputs_per_second": round(total / seconds, 2) if seconds else None,
        "per_kind": {
            kind: {
                "inputs": t.total,
                "failures": len(t.failures),
                "reviews_by_exit": {
                    str(k): v for k, v in sorted(t.exits.items()) if k != REFUSED_ALONE
                },
                "inputs_refused_alone": t.exits.get(REFUSED_ALONE, 0),
                "seconds": round(t.seconds, 1),
            }
            for kind, t in tallies.items()
        },
    }


if __name__ == "__main__":
    sys.exit(main())
