"""Where a review's time goes: the timings the pipeline records of its own stages.

`stage_breakdown` runs one review and returns `ReviewResult.timings` (open, charts, gitops, render,
tests, provenance, probes, judge: wall and CPU seconds, the render workers' CPU
included), the same figures `aftershock review --profile` prints. Nothing here wraps the pipeline's
functions, so a renamed function cannot fall silently into "other".

`TimedRenderer` times the `render_many` calls of a review (wall, inclusive), for benchmarks that
compare a review with its renders alone.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.interface import ProgressCallback, Renderer, RenderOutcome, RenderRequest
from aftershock.render.limits import Deadline


class TimedRenderer:
    """A Renderer that adds the wall time of each `render_many` of the renderer it wraps to `seconds`."""

    def __init__(self, inner: Renderer) -> None:
        self.name = inner.name
        self._inner = inner
        self.seconds = 0.0

    @property
    def version(self) -> str:
        return self._inner.version

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline: Deadline | None = None,
    ) -> list[RenderOutcome]:
        started = time.perf_counter()
        try:
            return self._inner.render_many(requests, progress, deadline)
        finally:
            self.seconds += time.perf_counter() - started

    def close(self) -> None:
        self._inner.close()


def stage_breakdown(renderer: Renderer, request: ReviewRequest) -> dict[str, Any]:
    """One review's stages as the pipeline timed them: seconds, CPU seconds and share of the wall."""
    result = review_change(replace(request, profile=True), renderer)
    total = sum(t.wall_seconds for t in result.timings)
    stages = {
        t.stage: {
            "seconds": t.wall_seconds,
            "cpu_seconds": t.cpu_seconds,
            "share": t.wall_seconds / total if total else 0.0,
        }
        for t in result.timings
    }
    return {
        "total_seconds": total,
        "cpu_seconds": sum(t.cpu_seconds for t in result.timings),
        "stages": dict(sorted(stages.items(), key=lambda item: -item[1]["seconds"])),
    }
