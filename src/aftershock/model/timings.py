"""Where a review's time went: one entry per stage the pipeline ran, in the order it ran them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StageTiming:
    stage: str  # the pipeline's name for it: "open", "charts", "render", "tests", …
    wall_seconds: float
    # CPU of the reviewing process and of the processes it ran and waited for (git, kustomize); with
    # `ReviewRequest.profile`, of the render workers still running too
    cpu_seconds: float
