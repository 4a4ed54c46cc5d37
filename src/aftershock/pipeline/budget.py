"""The review's steps after rendering (tests, provenance, probes) within the review's render budget:
a step whose renders the budget cut is reported as *not reviewed* with the bound's reason. A step is
run even after the deadline (its renders are refused at once), so that one with nothing to render
is not reported as cut."""

from __future__ import annotations

from typing import Callable, TypeVar

from aftershock.model.review import NotReviewed
from aftershock.render.budget import RenderBudget

Result = TypeVar("Result")

PROVENANCE_PART = "provenance perturbation renders"
PROBES_PART = "override-trap probe renders"


def run_within(budget: RenderBudget, part: str, step: Callable[[], Result]) -> tuple[Result, NotReviewed | None]:
    """`step`'s result and the gap it leaves, if the budget cut any of its renders."""
    before = budget.cuts
    result = step()
    if budget.cuts > before:
        return result, NotReviewed(part, budget.last_cut_reason)
    return result, None
