"""Scenarios that set keys the change adds: at base, rendered without them.

A toggle or a test's `set` of a key new at head is rejected at base by a values schema that does not
know it yet (`additionalProperties: false`), where a chart without a schema would ignore the key: the
scenario would be *not reviewed* at base for a key that did not exist there. When a scenario's head
renders and its base fails with nothing but such keys of the chart (render/schemas/schema_errors.py), set by
the scenario, its base is rendered once more without them, so that its diff is what the new keys do;
the review says which keys its base left out. Only non-default scenarios: a context's own values are
each side's. The renders go through the review's renderer (they count against its budget).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from aftershock.model.change import Side
from aftershock.pipeline.context.partial_renders import Entry, Failure, Key
from aftershock.render.interface import Renderer, RenderOutcome, RenderRequest
from aftershock.render.plan import ChartPlan
from aftershock.render.schemas.schema_errors import KeyPath, sets_every, unknown_keys, without_keys


def base_without_new_keys(
    plans: Sequence[ChartPlan],
    by_job: Mapping[Key, Entry],
    failure: Failure,
    renderer: Renderer,
    rendered: Callable[[RenderOutcome], None] | None = None,
) -> tuple[list[ChartPlan], dict[Key, Entry], dict[str, tuple[str, ...]]]:
    """(the plans, their renders, per plan id the dotted keys its base left out): each scenario whose
    base failed only for keys new at head rendered again at base without them, where that renders."""
    retries: list[tuple[ChartPlan, Entry, tuple[KeyPath, ...]]] = []
    for plan in plans:
        paths = _new_keys(plan, by_job, failure)
        if paths is not None:
            retries.append((_without(plan, paths), by_job[(plan.id, Side.BASE)], paths))
    entries = dict(by_job)
    if not retries:
        return list(plans), entries, {}
    jobs = [
        replace(entry[0], plan=plan, requests=_requests(plan, entry)) for plan, entry, _ in retries
    ]
    outcomes = iter(renderer.render_many([r for job in jobs for r in job.requests], rendered))
    replaced: dict[str, ChartPlan] = {}
    left_out: dict[str, tuple[str, ...]] = {}
    for job, (plan, _, paths) in zip(jobs, retries, strict=True):
        entry = (job, [next(outcomes) for _ in job.requests])
        if failure(entry) is None:
            entries[(plan.id, Side.BASE)] = entry
            replaced[plan.id] = plan
            left_out[plan.id] = tuple(".".join(path) for path in paths)
    return [replaced.get(plan.id, plan) for plan in plans], entries, left_out


def _new_keys(
    plan: ChartPlan, by_job: Mapping[Key, Entry], failure: Failure
) -> tuple[KeyPath, ...] | None:
    """The keys the plan's base failed for, when they are all it failed for and its head rendered."""
    base, head = by_job.get((plan.id, Side.BASE)), by_job.get((plan.id, Side.HEAD))
    if plan.scenario == "default" or base is None or head is None or plan.base is None:
        return None
    if base[0].blocked or head[0].blocked or failure(head) is not None:
        return None
    error = failure(base)
    paths = unknown_keys(error, plan.base.name) if error else None
    return paths if paths and sets_every(plan.base_inputs.values, paths) else None


def _without(plan: ChartPlan, paths: tuple[KeyPath, ...]) -> ChartPlan:
    values = without_keys(plan.base_inputs.values, paths)
    return replace(plan, base_inputs=replace(plan.base_inputs, values=values))


def _requests(plan: ChartPlan, entry: Entry) -> tuple[RenderRequest, ...]:
    return tuple(replace(r, values=plan.base_inputs.values) for r in entry[0].requests)
