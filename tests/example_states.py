"""The bundled example platform's history: its tagged states, the ranges reviewed, where their snapshots live."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots" / "example"
STATES = [
    "state-00-initial",
    "state-01-orders-replicas",
    "state-02-lib-part-of-label",
    "state-03-lib-security-context-helpers",
    "state-04-orders-release-tracing",
    "state-05-node-metrics-process-collector",
    "state-06-payments-webhook-key",
    "state-07-docs-release-overrides",
]
RANGES = list(pairwise(STATES)) + [("demo-base", "demo-head")]
