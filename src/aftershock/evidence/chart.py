"""One chart's test evidence from its two runs and its review: outcomes, guard map, problems."""

from __future__ import annotations

from aftershock.evidence.guards import SideIndex, SideRun, build_guards, pair_changes
from aftershock.evidence.outcomes import compare_tests
from aftershock.evidence.problems import find_problems
from aftershock.model.objects import RenderedObject
from aftershock.model.review import ChartReview
from aftershock.model.tests import ChartTestEvidence, SideTests


def chart_evidence(
    review: ChartReview, base: SideRun, head: SideRun, base_tests: SideTests, head_tests: SideTests
) -> ChartTestEvidence:
    """Compare the runs test by test and map the head (and base) assertions onto the review's changes.

    `base_tests`/`head_tests` summarise each run (see `outcomes.summarize`), or say why a side has none.
    """
    pairings = pair_changes(review)
    changed: set[RenderedObject] = {o for p in pairings for o in (p.base, p.head) if o is not None}
    base_index, head_index = SideIndex(base, changed), SideIndex(head, changed)
    guards = build_guards(pairings, base_index, head_index)
    return ChartTestEvidence(
        chart=review.chart,
        base=base_tests,
        head=head_tests,
        tests=compare_tests(base.result, head.result),
        guards=guards,
        problems=find_problems(pairings, guards, base_index, head_index),
        unresolved=head_index.unresolved,
    )
