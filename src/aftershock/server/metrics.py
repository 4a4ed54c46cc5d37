"""Service metrics as counters, rendered in the Prometheus text format (version 0.0.4).

Counters live in memory for the embedded service, or in one Redis hash when reviews run on
`aftershock worker` processes, so `/metrics` of `serve` shows what every worker did. The review
duration is a histogram made of counters; the queue depth is a gauge read when scraped.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Protocol

from redis.exceptions import RedisError

DURATION_BUCKETS = (1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
REDIS_METRICS_KEY = "aftershock:metrics"
_log = logging.getLogger("aftershock.server")

_FAMILIES = {
    "aftershock_deliveries_total": (
        "counter",
        "Webhook deliveries accepted, by event and first outcome.",
    ),
    "aftershock_webhook_rejected_total": ("counter", "Webhook deliveries refused, by reason."),
    "aftershock_jobs_total": ("counter", "Jobs finished, by outcome."),
    "aftershock_reviews_total": ("counter", "Reviews run, by status."),
    "aftershock_review_duration_seconds": (
        "histogram",
        "Time from a review job's start to its report.",
    ),
    "aftershock_renders_total": ("counter", "Helm renders, by result."),
    "aftershock_failures_total": ("counter", "Failures, by stage."),
    "aftershock_job_failures_total": (
        "counter",
        "Jobs that failed, by kind (review, command) and cause (github, error, internal).",
    ),
}


class Metrics(Protocol):
    def increment(self, sample: str, amount: float = 1.0) -> None: ...

    def snapshot(self) -> Mapping[str, float]: ...


class MemoryMetrics:
    def __init__(self) -> None:
        self._values: dict[str, float] = {}
        self._guard = threading.Lock()

    def increment(self, sample: str, amount: float = 1.0) -> None:
        with self._guard:
            self._values[sample] = self._values.get(sample, 0.0) + amount

    def snapshot(self) -> Mapping[str, float]:
        with self._guard:
            return dict(self._values)


class RedisMetrics:
    """Counters in one Redis hash shared by the service and its workers. While Redis is down an
    increment is dropped (and logged), so a delivery is still recorded and answered."""

    def __init__(self, connection: object, queue_name: str) -> None:
        self._redis = connection
        self._key = f"{REDIS_METRICS_KEY}:{queue_name}"

    def increment(self, sample: str, amount: float = 1.0) -> None:
        try:
            self._redis.hincrbyfloat(self._key, sample, amount)  # type: ignore[attr-defined]
        except RedisError as error:
            _log.warning("metric %s not counted: %s", sample, error)

    def snapshot(self) -> Mapping[str, float]:
        raw = self._redis.hgetall(self._key)  # type: ignore[attr-defined]
        return {_text(k): float(_text(v)) for k, v in raw.items()}


def _text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def sample(family: str, **labels: str) -> str:
    """A sample name with its labels, e.g. `aftershock_renders_total{result="ok"}`."""
    if not labels:
        return family
    inner = ",".join(f'{key}="{_escape(value)}"' for key, value in sorted(labels.items()))
    return f"{family}{{{inner}}}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def observe_review(metrics: Metrics, seconds: float, status: str) -> None:
    metrics.increment(sample("aftershock_reviews_total", status=status))
    family = "aftershock_review_duration_seconds"
    for bound in DURATION_BUCKETS:
        if seconds <= bound:
            metrics.increment(sample(f"{family}_bucket", le=_number(bound)))
    metrics.increment(sample(f"{family}_bucket", le="+Inf"))
    metrics.increment(f"{family}_sum", seconds)
    metrics.increment(f"{family}_count")


def _number(value: float) -> str:
    return repr(float(value)) if value != int(value) else f"{int(value)}.0"


def prometheus_text(values: Mapping[str, float], queue_depth: int | None) -> str:
    """Every family with its HELP and TYPE lines, samples sorted; the queue depth gauge first."""
    lines = [
        "# HELP aftershock_queue_depth Jobs waiting in the queue or running.",
        "# TYPE aftershock_queue_depth gauge",
    ]
    if queue_depth is not None:
        lines.append(f"aftershock_queue_depth {queue_depth}")
    for family, (kind, help_text) in _FAMILIES.items():
        lines += [f"# HELP {family} {help_text}", f"# TYPE {family} {kind}"]
        names = (
            {family, f"{family}_bucket", f"{family}_sum", f"{family}_count"}
            if kind == "histogram"
            else {family}
        )
        for name in sorted(n for n in values if n.split("{", 1)[0] in names):
            lines.append(f"{name} {_format(values[name])}")
    return "\n".join(lines) + "\n"


def _format(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
