"""Scenarios that add what a chart's own `fail`/`required` demands of a scenario it rejected.

A guard scenario opens one toggle; the chart may reject it unless another holds too (`fail
"ingress.tls needs ingress.enabled"`, `required "a.b is required" .Values.a.b`). When a scenario that
opens guards (a toggle, a guard, `guards:edited`) is rejected at both refs, the keys Helm's error
names (render/schemas/missing_values.py) that the chart's values.yaml documents and leaves empty are opened
too (a value of their type), once: the refill round renders that scenario in the rejected one's
place, named `<scenario>+<keys>`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from aftershock.diff.values_keys import chart_defaults
from aftershock.model.contexts import RenderInputs
from aftershock.model.review import ChartReview
from aftershock.pipeline.rendering.chart_jobs import SideInput
from aftershock.releases.values import merge_maps, value_at
from aftershock.render.plan import ChartPlan
from aftershock.render.range_shapes import opened_value
from aftershock.render.scenarios import GUARDS_OPENED
from aftershock.render.schemas.missing_values import missing_values

_OPENING = ("toggle:", "guard:", GUARDS_OPENED)
_ABSENT = object()


def demanded_plans(
    invalid: Sequence[ChartReview], plans: Mapping[str, ChartPlan], head: SideInput
) -> list[ChartPlan]:
    """For each rejected scenario that opens guards, its plan with the keys its error demands opened."""
    found = []
    for review in invalid:
        plan = plans.get(review.chart)
        if plan is None or not review.scenario.startswith(_OPENING) or "+" in review.scenario:
            continue
        extra = _demanded(review, _defaults(plan, head))
        if extra:
            name = f"{review.scenario}+{','.join(sorted(extra))}"
            found.append(
                replace(
                    plan,
                    scenario=name,
                    base_inputs=_with(review.base_inputs, extra),
                    head_inputs=_with(review.head_inputs, extra),
                )
            )
    return found


def _demanded(review: ChartReview, defaults: Mapping[str, Any]) -> dict[str, Any]:
    error = review.head.error or review.base.error or ""
    given = review.head_inputs.values
    extra: dict[str, Any] = {}
    for need in missing_values(error):
        for key in need.keys:
            default = value_at(defaults, list(key), _ABSENT)
            if default is _ABSENT or default or value_at(given, list(key), None):
                continue  # undocumented, already open, or set by the scenario
            opened = opened_value(default)
            if opened is not None:
                extra[".".join(key)] = opened
                break
    return extra


def _with(inputs: RenderInputs, extra: Mapping[str, Any]) -> RenderInputs:
    values: dict[str, Any] = dict(inputs.values)
    for path, value in extra.items():
        nested: Any = value
        for segment in reversed(path.split(".")):
            nested = {segment: nested}
        values = merge_maps(values, nested)
    return replace(inputs, values=values)


def _defaults(plan: ChartPlan, head: SideInput) -> Mapping[str, Any]:
    return {} if plan.head is None else chart_defaults(head[0].text_or_none, plan.head.path)
