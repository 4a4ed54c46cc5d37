"""A Renderer that renders equal inputs of one batch once, even for charts that render differently
each time (random or clock functions), for callers that want one draw shared.

The helm-unittest suites of a review run at base and at head: where a test's inputs are the same on
both sides (a change that leaves the templates its suite selects, the values and Chart.yaml alone),
one render serves both, and a random value cannot show as a difference between them. Inputs are
equal when the chart folders' content as Helm loads it (see `render.digest.chart_digest`), the values
and every other request field are. Nothing is kept between batches.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from aftershock.render.cache import request_key, values_text
from aftershock.render.digest import FolderDigests, chart_digest
from aftershock.render.interface import ProgressCallback, Renderer, RenderOutcome, RenderRequest


class SharedDrawRenderer:
    """Wraps `inner`: each batch's distinct inputs are rendered once and their outcome given to every
    request with those inputs (the request of each outcome is its own)."""

    def __init__(self, inner: Renderer) -> None:
        self.inner = inner
        self.name = inner.name
        self.merged = 0  # requests answered by another request's render, over all batches

    @property
    def version(self) -> str:
        return self.inner.version

    def close(self) -> None:
        self.inner.close()

    def render_many(self, requests: Sequence[RenderRequest], progress: ProgressCallback | None = None) -> list[RenderOutcome]:
        keys = _input_keys(requests)
        first: dict[str, int] = {}
        distinct: list[int] = []
        for index, key in enumerate(keys):
            if key is None or key not in first:
                distinct.append(index)
                if key is not None:
                    first[key] = index
        rendered = dict(zip(distinct, self.inner.render_many([requests[i] for i in distinct], progress)))
        outcomes = []
        for index, key in enumerate(keys):
            if index in rendered:
                outcomes.append(rendered[index])
                continue
            twin = dataclasses.replace(rendered[first[key]], request=requests[index], seconds=0.0)  # type: ignore[index]
            outcomes.append(twin)
            self.merged += 1
            if progress is not None:
                progress(twin)
        return outcomes


def _input_keys(requests: Sequence[RenderRequest]) -> list[str | None]:
    """Each request's input key; None when its chart or values cannot be keyed (rendered alone)."""
    folders: FolderDigests = {}
    charts: dict[str, tuple[str, bool] | None] = {}
    keys: list[str | None] = []
    for request in requests:
        if request.chart_dir not in charts:
            charts[request.chart_dir] = chart_digest(request.chart_dir, folders, values_by_content=True)
        chart, values = charts[request.chart_dir], values_text(request.values)
        keys.append(None if chart is None or values is None else request_key(request, chart[0], values, ""))
    return keys
