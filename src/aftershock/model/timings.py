"""Where a review's time went: one entry per stage the pipeline ran, in the order it ran them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StageTiming:
    stage: str  # the pipeline's name for it: "open", "charts", "render", "tests", …
    wall_seconds: float
    # CPU of the reviewing process and of every process it ran: git, kustomize, the render workers
    cpu_seconds: float
