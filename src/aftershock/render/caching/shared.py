"""A Renderer that renders equal inputs of one batch once, even for charts that render differently
each time (random or clock functions), for callers that want one draw shared.

The helm-unittest suites of a review run at base and at head: where a test's inputs are the same on
both sides (a change that leaves the templates its suite selects, the values and Chart.yaml alone),
one render serves both, and a random value cannot show as a difference between them. Inputs are
equal when their keys are (`render.caching.batch.input_keys`: the chart folders' content as Helm loads it,
the values and every other request field). Outcomes are kept for the wrapper's life, so that a
later batch (the base tests a review runs after the head's) shares the draws of an earlier one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from aftershock.render.caching.batch import input_keys, render_each_once
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
        self._drawn: dict[str, RenderOutcome] = {}

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
        known = [self._drawn.get(key) if key is not None else None for key in keys]
        todo = [index for index, outcome in enumerate(known) if outcome is None]
        fresh, rendered_at = render_each_once(
            self.inner, [requests[i] for i in todo], [keys[i] for i in todo], progress, deadline
        )
        self.merged += len(requests) - len(rendered_at)
        outcomes = dict(zip(todo, fresh, strict=True))
        for index, key in zip(todo, (keys[i] for i in todo), strict=True):
            if key is not None:
                self._drawn.setdefault(key, outcomes[index])
        return [
            outcomes[index] if outcome is None else self._reused(outcome, requests[index], progress)
            for index, outcome in enumerate(known)
        ]

    @staticmethod
    def _reused(
        outcome: RenderOutcome, request: RenderRequest, progress: ProgressCallback | None
    ) -> RenderOutcome:
        reused = dataclasses.replace(outcome, request=request, seconds=0.0)
        if progress is not None:
            progress(reused)
        return reused
