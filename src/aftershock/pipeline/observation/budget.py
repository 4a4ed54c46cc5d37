"""The review's steps after rendering (tests, provenance, override probes) within the review's render
budget: a step whose renders the budget cut is reported as *not reviewed* with the bound's reason; a
test run missing renders is no evidence and is dropped, while the provenance and probes that did
render are kept. A step is run even after the deadline (its renders are refused at once), so that one
with nothing to render is not reported as cut."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from aftershock.ingest.suite_files import SuitePatterns
from aftershock.model.review import ChartReview, NotReviewed, Review
from aftershock.model.tests import TESTS_PART, BaseTests
from aftershock.pipeline.observation.override_trap import probe_override_traps
from aftershock.pipeline.observation.provenance import trace_provenance, unlinked_gap
from aftershock.pipeline.stage_clock import StageClock
from aftershock.pipeline.testing.tests import collect_test_evidence
from aftershock.render.budget import RenderBudget
from aftershock.render.interface import Renderer

Result = TypeVar("Result")

PROVENANCE_PART = "provenance perturbation renders"
PROBES_PART = "override-trap probe renders"


@dataclass(frozen=True)
class LateSteps:
    """What the review asked of the steps after rendering."""

    run_tests: bool
    max_provenance_renders: int
    max_override_renders: int
    suite_patterns: Mapping[str, SuitePatterns] = field(
        default_factory=dict
    )  # chart -> where its suites are
    base_tests: BaseTests = "needed"


def run_within(
    budget: RenderBudget, part: str, step: Callable[[], Result]
) -> tuple[Result, NotReviewed | None]:
    """`step`'s result and the gap it leaves, if the budget cut any of its renders."""
    before = budget.cuts
    result = step()
    if budget.cuts > before:
        return result, NotReviewed(part, budget.last_cut_reason)
    return result, None


def observe_within_budget(
    review: Review,
    tested: Sequence[ChartReview],
    steps: LateSteps,
    work: Path,
    renderer: Renderer,
    budget: RenderBudget,
    clock: StageClock | None = None,
) -> Review:
    """The tests (of the `tested` charts), provenance and override probes of `review`, each within `budget`,
    on the workspaces under `work`; with what they could not review."""
    base, head = work / "base", work / "head"
    clock = clock or StageClock()
    gaps: list[NotReviewed | None] = []
    if steps.run_tests:
        with clock.stage("tests"):
            tests, gap = run_within(
                budget,
                TESTS_PART,
                lambda: collect_test_evidence(
                    tested,
                    base,
                    head,
                    renderer,
                    patterns=steps.suite_patterns,
                    base_tests=steps.base_tests,
                ),
            )
        review = replace(review, tests=None if gap else tests)
        gaps.append(gap)
    with clock.stage("provenance"):
        provenance, gap = run_within(
            budget,
            PROVENANCE_PART,
            lambda: trace_provenance(
                review, base, head, renderer, max_renders=steps.max_provenance_renders
            ),
        )
    review = replace(review, provenance=provenance)
    gaps += [gap, unlinked_gap(provenance)]
    with clock.stage("probes"):
        probes, gap = run_within(
            budget,
            PROBES_PART,
            lambda: probe_override_traps(review, base, head, renderer, steps.max_override_renders),
        )
    review = replace(review, override_probes=probes)
    gaps.append(gap)
    return replace(
        review, not_reviewed=review.not_reviewed + tuple(g for g in gaps if g is not None)
    )
