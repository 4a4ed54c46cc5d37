"""Values the head newly requires: a chart that renders at base in its context and fails at head
because the change makes a template need a value that context does not give (a `required` on a value
only the platform sets, a map its CI values hold).

Contexts are chosen at base, so the values inference (pipeline/context/inferred_values.py) never sees such a
chart: its head would be rendered by template, the templates needing the value left out and never
reviewed, though they are often what the change adds. Here the chart's default render's head error
goes through the same inference, at head, from the chosen context: the keys it names are taken from
the repository's CI and tests values files, else (a text a `required` or `fail` names) given a
placeholder. When the head then renders whole, the chart is rendered again in its context with those
values at both refs (a key the base also reads takes the same value there, so the value itself
shows no change), and its context records them with the head's error: the failure stays a finding
(chart-render-broken), the objects it hid are diffed and judged. A head that still fails keeps its
render by template.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from aftershock.ingest.platform_values import platform_values
from aftershock.model.change import Side
from aftershock.model.contexts import ChartContext, HeadNeed
from aftershock.model.review import ChartReview, RenderStatus, is_deterministic_error
from aftershock.pipeline.context.inferred_values import InferenceRun, indexed_charts, infer_contexts
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, SideInput
from aftershock.render.contexts import ChartFiles, ContextCandidate
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan, RenderInputs
from aftershock.render.schemas.missing_values import error_position, missing_values


@dataclass(frozen=True)
class HeadRun:
    """What the inference at head renders with."""

    head: SideInput
    suite_paths: Callable[[ChartFiles], Sequence[str]]
    renderer: Renderer
    settings: RenderSettings
    work: Path
    rendered: Callable[[RenderOutcome], None] | None = None


def head_failures(reviews: Sequence[ChartReview]) -> dict[str, str]:
    """Chart path -> Helm's error at head, for the default renders of charts (no release's values)
    that render at base and fail at head, whole or by template, naming a value they miss."""
    found: dict[str, str] = {}
    for review in reviews:
        if review.release is not None or review.scenario != "default":
            continue
        if review.base.status is not RenderStatus.OK:
            continue
        error = review.head.error if review.head.status is RenderStatus.FAILED else None
        if error is None:
            error = next(
                (
                    f.head_error
                    for f in review.templates_not_rendered
                    if f.base_error is None and f.head_error
                ),
                None,
            )
        if error and is_deterministic_error(error) and missing_values(error):
            found[review.chart] = error
    return found


def values_required_at_head(
    failures: Mapping[str, str],
    plans: Sequence[ChartPlan],
    contexts: Sequence[ChartContext],
    run: HeadRun,
) -> tuple[dict[str, ChartPlan], tuple[ChartContext, ...]]:
    """The plans (by chart path) that render whole at head with the values their head error names,
    those values layered at both refs; and the contexts, theirs recording the values and the error."""
    by_path = {p.path: p for p in plans if p.release is None and p.path in failures}
    chosen = {c.chart: c for c in contexts if c.chart in by_path and c.kind is not None}
    tried = {
        path: [(_candidate(chosen[path], plan), failures[path])]
        for path, plan in by_path.items()
        if path in chosen and plan.base is not None and plan.head is not None
    }
    if not tried:
        return {}, tuple(contexts)
    tree, _ = run.head
    index = platform_values(indexed_charts(run.head, run.suite_paths), tree.text_or_none)
    inference = InferenceRun(
        Side.HEAD, run.head, index, run.renderer, run.settings, run.work, run.rendered
    )
    found = {p: i for p, i in infer_contexts(tried, by_path, inference).items() if i.whole}
    again = {
        path: replace(
            by_path[path],
            base_inputs=found[path].candidate.base or RenderInputs(),
            head_inputs=found[path].candidate.head or RenderInputs(),
        )
        for path in found
    }
    updated = tuple(
        replace(
            c,
            head_need=HeadNeed(
                found[c.chart].inferred, failures[c.chart], _template(c.chart, failures[c.chart])
            ),
        )
        if c.chart in found
        else c
        for c in contexts
    )
    return again, updated


def _template(chart: str, error: str) -> str | None:
    """The repository path of the template Helm's error names (`app/templates/x.yaml` of chart
    folder `c/app` is `c/app/templates/x.yaml`)."""
    position = error_position(error)
    if position is None:
        return None
    _, _, inside = position[0].partition("/")
    return f"{chart}/{inside}" if chart else inside


def _candidate(context: ChartContext, plan: ChartPlan) -> ContextCandidate:
    assert context.kind is not None and context.name is not None
    return ContextCandidate(
        context.kind, context.name, context.reason, plan.base_inputs, plan.head_inputs
    )
