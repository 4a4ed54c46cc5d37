"""Smoke test of benchmarks/bench_bigvalues.py: a tiny run end to end, checking the result's structure only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


def test_a_tiny_big_values_run_writes_every_figure(tmp_path):
    out = tmp_path / "bench.json"
    completed = subprocess.run(
        [
            sys.executable,
            str(PROJECT / "benchmarks" / "bench_bigvalues.py"),
            "--megabytes",
            "0.02",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": str(PROJECT / "src"), "TMPDIR": str(tmp_path)},
    )
    assert completed.returncode == 0, completed.stderr
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result) == {
        "values_bytes",
        "big_seconds",
        "quarter_seconds",
        "ratio",
        "linear_ratio",
        "quadratic_ratio",
    }
    assert 20_000 <= result["values_bytes"] < 30_000
    assert result["big_seconds"] > 0 and result["quarter_seconds"] > 0
