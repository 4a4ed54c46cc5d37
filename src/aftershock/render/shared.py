"""A Renderer that renders equal inputs of one batch once, even for charts that render differently
each time (random or clock functions), for callers that want one draw shared.

The helm-unittest suites of a review run at base and at head: where a test's inputs are the same on
both sides (a change that leaves the templates its suite selects, the values and Chart.yaml alone),
one render serves both, and a random value cannot show as a difference between them. Inputs are
equal when their keys are (`render.batch.input_keys`: the chart folders' content as Helm loads it,
the values and every other request field). Nothing is kept between batches.
"""

from __future__ import annotations

from collections.abc import Sequence

from aftershock.render.batch import input_keys, render_each_once
from aftershock.render.interface import (
    ProgressCallback,
    Renderer,
    RenderOutcome,
    RenderRequest,
    WrappingRenderer,
)
from aftershock.render.limits import Deadline


class SharedDrawRenderer(WrappingRenderer):
    """Wraps `inner`: each batch's distinct inputs are rendered once and their outcome given to every
    request with those inputs (the request of each outcome is its own)."""

    def __init__(self, inner: Renderer) -> None:
        super().__init__(inner)
        self.merged = 0  # requests answered by another request's render, over all batches

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline: Deadline | None = None,
    ) -> list[RenderOutcome]:
        keys = [
            k.key if k is not None else None
            for k in input_keys(requests, "", values_by_content=True)
        ]
        outcomes, rendered_at = render_each_once(self.inner, requests, keys, progress, deadline)
        self.merged += len(requests) - len(rendered_at)
        return outcomes
