#!/usr/bin/env python3
"""The fuzzer at scale: the parsing edges of tests/fuzz with 10,000 inputs or more, plus end-to-end reviews.

Usage: python benchmarks/bench_fuzz.py [--seed S] [--per-target N] [--cli-runs R] [--json FILE]

Runs `tests/fuzz`'s targets (Chart.yaml, values, release manifests, object diff, helm-unittest
suites, configuration, webhook payloads) in-process, N inputs each (default 1,450: 10,150 in all),
then R reviews of fuzzed changes through the real CLI (default 40). Prints the figures (inputs,
tracebacks, hangs, seconds, per target) and the first failures; exits 1 when there is any.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path[:0] = [str(TESTS), str(TESTS / "fuzz")]

from cli_runs import cli_run  # noqa: E402 - found through the path set above
from harness import Tally  # noqa: E402
from targets import TARGET_NAMES, fuzz_target  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-target", type=int, default=1450)
    parser.add_argument("--cli-runs", type=int, default=40)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    started = time.monotonic()
    tally, per_target = Tally(), {}
    for index, name in enumerate(TARGET_NAMES):
        one = fuzz_target(name, args.seed * 1000 + index, args.per_target)
        per_target[name] = {
            "inputs": one.total,
            "tracebacks": len(one.failures),
            "hangs": len(one.hangs),
            "seconds": round(one.seconds, 2),
        }
        tally.merge(one)
    with tempfile.TemporaryDirectory(prefix="aftershock-fuzz-") as folder:
        for n in range(args.cli_runs):
            seed = args.seed * 100_000 + n
            tally.merge(cli_run(Path(folder) / f"run-{seed}", seed))
    seconds = time.monotonic() - started
    figures = {
        "inputs": tally.total,
        "in_process_inputs": tally.total - tally.inputs.get("cli", 0),
        "cli_runs": tally.inputs.get("cli", 0),
        "cli_exits": {str(k): v for k, v in sorted(tally.exits.items())},
        "tracebacks": len(tally.failures),
        "hangs": len(tally.hangs),
        "seconds": round(seconds, 1),
        "per_target": per_target,
    }
    print(
        f"inputs {figures['inputs']} ({figures['in_process_inputs']} in-process, {figures['cli_runs']} CLI reviews, "
        f"exits {figures['cli_exits']}), tracebacks {figures['tracebacks']}, hangs {figures['hangs']}, "
        f"seconds {figures['seconds']}"
    )
    for name, row in per_target.items():
        print(
            f"  {name:14} {row['inputs']:6} inputs  {row['tracebacks']} tracebacks  {row['hangs']} hangs  {row['seconds']} s"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    if tally.failures or tally.hangs:
        print(tally.report(limit=5))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
