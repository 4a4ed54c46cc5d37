"""The pipeline: the one place where the stages of a review are wired together."""

from aftershock.pipeline.review import (
    RenderCallbacks,
    ReviewRequest,
    open_renderer,
    review_change,
    run_review,
)

__all__ = [
    "RenderCallbacks",
    "ReviewRequest",
    "open_renderer",
    "review_change",
    "run_review",
]
