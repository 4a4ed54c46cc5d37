"""A review as the review state recorded it: its result, target, plan, status, id and lifecycle
(made by `pipeline.state`, read by the formats)."""

from __future__ import annotations

from dataclasses import dataclass

from aftershock.judgement.result import ReviewResult
from aftershock.model.state_lifecycle import Lifecycle
from aftershock.model.state_mode import ReviewPlan
from aftershock.model.state_records import ReviewStatus, ReviewTarget


@dataclass(frozen=True)
class StatefulReview:
    """A recorded review. `result.judgement` holds what is raised at head (see the module docstring)."""

    result: ReviewResult
    target: ReviewTarget
    plan: ReviewPlan
    status: ReviewStatus
    review_id: int
    lifecycle: Lifecycle
