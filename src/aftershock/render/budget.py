"""What one review may spend on renders: a deadline for the whole review and a count of renders.

The pull request decides how many renders a review schedules (charts, scenarios, releases, tests,
probes) and how long each takes, so neither may be left to it. `BudgetedRenderer` wraps the review's
renderer: a render past the count bound, or not finished by the deadline, is an error outcome whose
text is the bound's reason, which the review reports as *not reviewed*. `RenderBudget.cuts` lets a
step see whether the budget cut any of its renders (a test run missing some renders is not evidence).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from aftershock.model.errors import ConfigError
from aftershock.render.interface import (
    ProgressCallback,
    Renderer,
    RenderOutcome,
    RenderRequest,
    WrappingRenderer,
)
from aftershock.render.limits import Deadline

DEFAULT_DEADLINE_SECONDS = 600.0
_RENDER_SHARE = 0.975  # of the deadline: at 600 s, 15 s are left for judging and writing the report
DEFAULT_MAX_REVIEW_RENDERS = (
    5000  # well above real reviews: traefik (57 suites) has 1,500 test runs over both refs
)


def render_count_error(max_renders: int) -> str:
    return f"render count bound of {max_renders} reached"


class RenderBudget:
    """The deadline and the renders left of one review; safe to share between threads."""

    def __init__(
        self,
        deadline: Deadline,
        max_renders: int = DEFAULT_MAX_REVIEW_RENDERS,
        review_deadline: Deadline | None = None,
    ) -> None:
        check_budget(deadline.seconds, max_renders)
        self.deadline = deadline
        self.review_deadline = review_deadline or deadline  # the whole review's: the rule pass's
        self.max_renders = max_renders
        self._granted = 0
        self._cuts = 0
        self.last_cut_reason = ""
        self._lock = threading.Lock()

    @classmethod
    def starting_now(cls, deadline_seconds: float, max_renders: int) -> RenderBudget:
        """Renders stop a little before the deadline itself, leaving the rest to judge and report."""
        check_budget(deadline_seconds, max_renders)
        now = time.monotonic()
        return cls(
            Deadline(now + deadline_seconds * _RENDER_SHARE, deadline_seconds),
            max_renders,
            Deadline(now + deadline_seconds, deadline_seconds),
        )

    @property
    def cuts(self) -> int:
        """Renders refused or stopped by the budget so far."""
        with self._lock:
            return self._cuts

    def grant(self, wanted: int) -> int:
        """How many of `wanted` more renders the count bound allows (they are counted as granted)."""
        with self._lock:
            granted = max(0, min(wanted, self.max_renders - self._granted))
            self._granted += granted
            return granted

    def count_cuts(self, count: int, reason: str) -> None:
        with self._lock:
            self._cuts += count
            if count:
                self.last_cut_reason = reason


def check_budget(deadline_seconds: float, max_renders: int) -> None:
    """Raise ConfigError unless both bounds are positive."""
    if not deadline_seconds > 0:
        raise ConfigError(
            f"review deadline must be positive, got {deadline_seconds!r}",
            hint="pass --deadline SECONDS above 0",
        )
    if max_renders < 1:
        raise ConfigError(
            f"render count bound must be at least 1, got {max_renders!r}",
            hint="pass --max-renders 1 or more",
        )


class BudgetedRenderer(WrappingRenderer):
    """Wraps `inner`: renders within `budget` go to it (stopped at the deadline), the others get
    the bound's reason as their error, in request order."""

    def __init__(self, inner: Renderer, budget: RenderBudget) -> None:
        super().__init__(inner)
        self.budget = budget

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline: Deadline | None = None,
    ) -> list[RenderOutcome]:
        """`deadline`, if any, is the review's own; the budget's is the one applied."""
        review_deadline = self.budget.deadline
        allowed = 0 if review_deadline.passed() else self.budget.grant(len(requests))
        rendered = (
            self.inner.render_many(requests[:allowed], progress, deadline=review_deadline)
            if allowed
            else []
        )
        reason = (
            review_deadline.reason
            if review_deadline.passed()
            else render_count_error(self.budget.max_renders)
        )
        refused = [RenderOutcome(request, error=reason) for request in requests[allowed:]]
        if progress is not None:
            for outcome in refused:
                progress(outcome)
        stopped = sum(1 for outcome in rendered if outcome.error == review_deadline.reason)
        self.budget.count_cuts(stopped, review_deadline.reason)
        self.budget.count_cuts(len(refused), reason)
        return [*rendered, *refused]
