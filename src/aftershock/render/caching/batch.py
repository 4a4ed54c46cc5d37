"""Render inputs as keys, and rendering each distinct input of a batch once (pure but for the renders).

`input_keys` names each request's inputs: the chart folder as Helm loads it (`render.caching.digest`), the
canonical JSON of the values and every other request field (a cluster snapshot by its digest). Equal keys mean equal inputs; whether
equal inputs give equal renders is the caller's to judge (`InputKey.volatile`). `render_each_once`
renders one request per key and gives its outcome to the others, which the render cache and the
review's test step both do.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aftershock.render.caching.digest import DigestMemo, chart_digest
from aftershock.render.interface import ProgressCallback, Renderer, RenderOutcome, RenderRequest
from aftershock.render.limits import Deadline
from aftershock.render.plan import may_be_nondeterministic

# Part of every key: a change of what a key covers changes every key. 3: a file counts by the
# sha256 of its bytes (read once per batch), not by the bytes themselves.
KEY_FORMAT = 3


@dataclass(frozen=True)
class InputKey:
    key: str
    volatile: (
        bool  # the chart, or a values string `tpl` may render, calls random or clock functions
    )


def _canonical_json(value: Any) -> str:
    def as_json_type(item: Any) -> Any:
        if isinstance(item, Mapping):
            return dict(item)
        raise TypeError(f"{type(item).__name__} is not JSON-serializable")

    return json.dumps(
        value,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
        default=as_json_type,
    )


def values_text(values: Mapping[str, Any]) -> str | None:
    """The canonical JSON of a request's values; None when they are not JSON (Helm refuses them too)."""
    try:
        return _canonical_json(values)
    except (TypeError, ValueError):
        return None


def request_key(request: RenderRequest, chart: str, values: str, renderer_identity: str) -> str:
    """The key of a request, given its chart digest and canonical values."""
    options = {
        f.name: getattr(request, f.name)
        for f in dataclasses.fields(request)
        if f.name not in ("chart_dir", "values", "cluster", "private")
    }
    if (
        request.cluster is not None
    ):  # absent otherwise, so keys without a snapshot stay as they were
        options["cluster"] = request.cluster.digest
    text = json.dumps(
        [KEY_FORMAT, renderer_identity, chart, values, options], sort_keys=True, default=str
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def input_keys(
    requests: Sequence[RenderRequest],
    renderer_identity: str,
    *,
    values_by_content: bool = False,
) -> list[InputKey | None]:
    """Each request's input key; None when its chart folder or its values cannot be keyed. The
    batch's chart folders are read once each: none is written while the batch renders."""
    memo = DigestMemo()
    charts: dict[str, tuple[str, bool] | None] = {}
    keys: list[InputKey | None] = []
    for request in requests:
        if request.chart_dir not in charts:
            charts[request.chart_dir] = chart_digest(
                request.chart_dir, memo, values_by_content=values_by_content
            )
        chart, values = charts[request.chart_dir], values_text(request.values)
        if chart is None or values is None:
            keys.append(None)
            continue
        volatile = chart[1] or may_be_nondeterministic([values])
        keys.append(InputKey(request_key(request, chart[0], values, renderer_identity), volatile))
    return keys


def render_each_once(
    inner: Renderer,
    requests: Sequence[RenderRequest],
    keys: Sequence[str | None],
    progress: ProgressCallback | None,
    deadline: Deadline | None = None,
) -> tuple[list[RenderOutcome], list[int]]:
    """The outcome of every request, in order, rendering one request per key (and each unkeyed one);
    the others get that outcome with their own request. Also the indexes that were rendered."""
    first: dict[str, int] = {}
    rendered_at: list[int] = []
    for index, key in enumerate(keys):
        if key is None or key not in first:
            rendered_at.append(index)
            if key is not None:
                first[key] = index
    rendered = dict(
        zip(rendered_at, inner.render_many([requests[i] for i in rendered_at], progress, deadline))
    )
    outcomes = []
    for index, key in enumerate(keys):
        outcome = rendered.get(index)
        if outcome is None:
            assert key is not None
            outcome = dataclasses.replace(
                rendered[first[key]], request=requests[index], seconds=0.0
            )
            if progress is not None:
                progress(outcome)
        outcomes.append(outcome)
    return outcomes, rendered_at
