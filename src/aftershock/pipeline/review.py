"""The wiring of one review: ingest -> render -> diff -> judge, one way, as a list of named stages
(`pipeline.review_stages`), each timed (`ReviewResult.timings`), with side effects kept at the edges.

Every render of a review is held to its budget (`render.budget`): the deadline for the whole review
and the count of renders it may schedule; what they cut is *not reviewed*, and the review still ends.

An incremental review (`ReviewRequest.since`) renders only the charts since..head affects;
`ReviewResult.scope` says what it examined again (the rest is carried: `pipeline.incremental`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace

from aftershock.judgement.result import ReviewResult
from aftershock.model.errors import ConfigError
from aftershock.model.review import Review
from aftershock.pipeline.collector import review_collector
from aftershock.pipeline.request import ReviewRequest
from aftershock.pipeline.review_stages import (
    base_ref,
    chart_cache,
    find_reach,
    gitops_inputs,
    judged,
    observe_late,
    observed_review,
    open_change,
    render_change,
)
from aftershock.pipeline.stage_clock import StageClock, process_cpu, process_tree_cpu
from aftershock.render.budget import BudgetedRenderer, RenderBudget
from aftershock.render.caching.cache import (
    CachingRenderer,
    MemoryRenderCache,
    RenderCacheStore,
)
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.limits import DEFAULT_MAX_MEMORY_MIB

__all__ = [
    "RenderCallbacks",
    "ReviewRequest",
    "base_ref",
    "chart_cache",
    "open_renderer",
    "review_change",
    "run_review",
]


@dataclass(frozen=True)
class RenderCallbacks:
    """Progress hooks: the number of renders planned, then each outcome as it finishes."""

    planned: Callable[[int], None]
    rendered: Callable[[RenderOutcome], None]


@contextmanager
def open_renderer(
    kind: str,
    *,
    helm_binary: str = "helm",
    timeout_seconds: float = 60.0,
    workers: int | None = None,
    cache: RenderCacheStore | None = None,
    max_memory_mib: int = DEFAULT_MAX_MEMORY_MIB,
) -> Iterator[Renderer]:
    """The embedded SDK renderer by default; a helm binary only when asked for; behind `cache` when given."""
    if kind == "sdk":
        from aftershock.render.helm.sdk import SdkRenderer

        renderer: Renderer = SdkRenderer(
            workers=workers, timeout_seconds=timeout_seconds, max_memory_mib=max_memory_mib
        )
    elif kind == "helm":
        from aftershock.render.helm.binary import HelmBinaryRenderer

        renderer = HelmBinaryRenderer(
            helm_path=helm_binary, timeout_seconds=timeout_seconds, max_memory_mib=max_memory_mib
        )
    else:
        raise ConfigError(
            f"unknown renderer {kind!r}", hint="use --renderer sdk or --renderer helm"
        )
    if cache is not None:
        renderer = CachingRenderer(renderer, cache)
    try:
        yield renderer
    finally:
        renderer.close()


def run_review(
    request: ReviewRequest, renderer: Renderer, callbacks: RenderCallbacks | None = None
) -> Review:
    """Review base..head of the repository: every layer, linked, with what could not be reviewed."""
    return review_change(request, renderer, callbacks).review


def review_change(
    request: ReviewRequest,
    renderer: Renderer,
    callbacks: RenderCallbacks | None = None,
    clock: StageClock | None = None,
    beside_judge: Callable[[Review], None] | None = None,
) -> ReviewResult:
    """Observe base..head layer by layer, then judge it: findings and verdicts. The garbage collector
    keeps the review's thresholds meanwhile (`collector`). `beside_judge` is work on the review as
    judged that a large review does while a child process judges it (the document's observed
    layers): a small one never calls it."""
    clock = clock or StageClock(cpu=process_tree_cpu if request.profile else process_cpu)
    with review_collector():
        result = _review_change(request, renderer, callbacks, clock, beside_judge)
    return replace(result, timings=clock.timings())


def _review_change(
    request: ReviewRequest,
    renderer: Renderer,
    callbacks: RenderCallbacks | None,
    clock: StageClock,
    beside_judge: Callable[[Review], None] | None,
) -> ReviewResult:
    budget = RenderBudget.starting_now(request.deadline_seconds, request.max_renders)
    renderer = BudgetedRenderer(_each_input_once(renderer), budget)
    progress = (callbacks.rendered, callbacks.planned) if callbacks else (None, None)
    with ExitStack() as stack:
        with clock.stage("open"):
            opened = open_change(request, stack)
        with clock.stage("charts"):
            reach = find_reach(request, opened)
        with clock.stage("gitops"):
            gitops = gitops_inputs(request, opened, reach)
        with clock.stage("render"):
            stage = render_change(request, opened, reach, gitops, renderer, progress)
            review = observed_review(request, opened, reach, gitops, stage, renderer)
        review = observe_late(request, opened, reach, review, stage, renderer, budget, clock)
        with clock.stage("judge"):
            return judged(opened, reach, review, budget, beside_judge)


def _each_input_once(renderer: Renderer) -> Renderer:
    """The renderer, behind a cache in memory for this review alone when it has none: equal inputs
    (a context's trial render and a scenario's, base and head of an unchanged chart) render once."""
    if isinstance(renderer, CachingRenderer):
        return renderer
    return CachingRenderer(renderer, MemoryRenderCache())
