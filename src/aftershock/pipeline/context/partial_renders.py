"""Render by template: a plan whose chart fails as a whole is rendered without the templates that fail.

helm-unittest renders only the templates a suite lists, so one template that needs a live cluster or
a value no context gives fails no test; a review renders the whole chart, and the same template
would leave all of it *not reviewed*. So when a plan fails as a whole at a ref with Helm's own error
(one the same input reproduces), at each failing side the template the error names is left out and
the chart rendered again (partials and subcharts kept), in rounds shared by every such plan (one
batch of renders per round), up to `MAX_LEFT_OUT` templates per side: k failing templates cost k+1
renders. A side whose error names no template (a values schema, a missing dependency) or only one
already left out stays failed, and so does its plan. A scenario the chart rejects at both refs alike
is not rendered by template, unless the chart's default scenario fails too (then it fails as the
chart does). Then each side renders with the union of what failed at either side, unless it already
did: the same templates are left out at both refs, or the objects of a template that fails at one
side only would show as added or removed. Except a template that fails at base only while the head
renders it: the change fixes it, so the head keeps it and its objects show as added (leaving it out
at head too would hide the fix unreviewed). A chart that renders at base and fails at head is
rendered by template too (then again whole if the values its error names let the head render:
pipeline/context/head_values.py): the templates that fail at head are left out at both refs, each a finding
(chart-render-broken names it), and what the others render is diffed and judged, so that the rest of
the change is still reviewed; except in an upgrade scenario, whose rejection at head is the finding
(upgrade-values-rejected). The renders go through the review's renderer, so they count against
its render budget.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from aftershock.model.change import Side
from aftershock.model.errors import AftershockError
from aftershock.model.review import UPGRADE_PREFIX, is_deterministic_error
from aftershock.pipeline.rendering.chart_jobs import SideJob, template_aliases, without_templates
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan
from aftershock.render.workspaces.partial_charts import named_templates

MAX_LEFT_OUT = 16  # templates left out per side before the chart counts as failing as a whole

Entry = tuple[SideJob, list[RenderOutcome]]
Key = tuple[str, Side]  # (plan id, side)
# Why one side's renders failed (Helm's error, or a rendered document that is not YAML), None when fine.
Failure = Callable[[Entry], str | None]


@dataclass(frozen=True)
class PartialPlan:
    """A plan rendered by template: each side's renders without `left_out`, the same at both refs."""

    entries: Mapping[Side, Entry]
    # Helm template name -> its error at each side it failed at
    left_out: Mapping[str, Mapping[Side, str]] = field(default_factory=dict)
    # of those, the templates that failed at base only and render at head: left out at base only
    fixed_at_head: frozenset[str] = frozenset()


@dataclass
class _Discovery:
    """One side's search for the templates that fail (mutable while its rounds run)."""

    entry: Entry
    error: str | None
    left_out: dict[str, str] = field(default_factory=dict)
    resolved: bool = False


def render_by_template(
    plans: Sequence[ChartPlan],
    entries: Mapping[Key, Entry],
    failure: Failure,
    renderer: Renderer,
    rendered: Callable[[RenderOutcome], None] | None = None,
) -> dict[str, PartialPlan]:
    """Plan id -> its render by template, for the plans a side of which fails as a whole and whose
    failing templates were all found; the other plans are not in it."""
    searches = _searches(plans, entries, failure)
    for _ in range(MAX_LEFT_OUT):
        active = [s for s in searches.values() if not s.resolved and s.error is not None]
        if not active:
            break
        _round(active, failure, renderer, rendered)
    result: dict[str, PartialPlan] = {}
    wanted: list[tuple[str, Side, frozenset[str]]] = []
    for plan in plans:
        own = {side: searches[(plan.id, side)] for side in Side if (plan.id, side) in searches}
        if not own or not all(s.resolved for s in own.values()):
            continue
        union = frozenset(name for s in own.values() for name in s.left_out)
        errors: dict[str, dict[Side, str]] = {}
        for side, search in own.items():
            for name, error in search.left_out.items():
                errors.setdefault(name, {})[side] = error
        fixed = _fixed_at_head(own, (plan.id, Side.HEAD) in entries)
        result[plan.id] = PartialPlan({}, errors, fixed)
        for side in Side:
            key = (plan.id, side)
            wants = union - fixed if side is Side.HEAD else union
            if key in entries and frozenset(own[side].left_out if side in own else ()) != wants:
                wanted.append((plan.id, side, wants))
    return _with_union(result, searches, entries, wanted, failure, renderer, rendered)


def _fixed_at_head(own: Mapping[Side, _Discovery], has_head: bool) -> frozenset[str]:
    """The templates left out at base that the head renders: the change fixes them, so the head keeps
    them (their objects show as added) rather than both refs leaving them out unreviewed."""
    if not has_head or Side.BASE not in own:
        return frozenset()
    at_head = own[Side.HEAD].left_out if Side.HEAD in own else {}
    return frozenset(name for name in own[Side.BASE].left_out if name not in at_head)


def _searches(
    plans: Sequence[ChartPlan], entries: Mapping[Key, Entry], failure: Failure
) -> dict[Key, _Discovery]:
    """A search for each failing side of the plans whose failure may lie in some templates only."""
    searches: dict[Key, _Discovery] = {}
    failing: set[tuple[str, str | None]] = (
        set()
    )  # charts (and releases) whose default fails at base
    for plan in plans:
        sides = {side: entries[(plan.id, side)] for side in Side if (plan.id, side) in entries}
        if any(job.blocked for job, _ in sides.values()):
            continue  # a dependency cannot be given to Helm: no template of it renders
        errors = {side: failure(entry) for side, entry in sides.items()}
        failed = {side: e for side, e in errors.items() if e is not None}
        if not failed or not all(is_deterministic_error(e) for e in failed.values()):
            continue
        if plan.scenario.startswith(UPGRADE_PREFIX) and Side.BASE not in failed:
            continue  # head rejecting the values installs pass at base: upgrade-values-rejected's
        if plan.scenario == "default":
            failing.add((plan.path, plan.release))
        elif (
            (plan.path, plan.release) not in failing
            and len(failed) == 2
            and len(set(failed.values())) == 1
        ):
            continue  # the chart rejects the scenario at both refs alike: not a gap in the review
        for side, error in failed.items():
            searches[(plan.id, side)] = _Discovery(sides[side], error)
    return searches


def _round(
    active: list[_Discovery],
    failure: Failure,
    renderer: Renderer,
    rendered: Callable[[RenderOutcome], None] | None,
) -> None:
    """Leave out the template each side's last error names, and render them all again, once."""
    trying: list[tuple[_Discovery, SideJob]] = []
    for search in active:
        names = [n for n in named_templates(search.error or "") if n not in search.left_out]
        if not names:
            search.error = None  # names no template left to leave out: failing as a whole
            continue
        for name in template_aliases(search.entry[0], names[0]):
            search.left_out.setdefault(name, search.error or "")
        try:
            trying.append((search, without_templates(search.entry[0], search.left_out)))
        except AftershockError:
            search.error = None
    for (search, job), outcomes in zip(trying, _render(trying, renderer, rendered)):
        error = failure((job, outcomes))
        search.entry = (job, outcomes)
        if error is None:
            search.resolved = True
        search.error = error if error is not None and is_deterministic_error(error) else None


def _render(
    jobs: Sequence[tuple[object, SideJob]],
    renderer: Renderer,
    rendered: Callable[[RenderOutcome], None] | None,
) -> list[list[RenderOutcome]]:
    """The outcomes of every job's requests, rendered in one batch."""
    outcomes = iter(renderer.render_many([r for _, job in jobs for r in job.requests], rendered))
    return [[next(outcomes) for _ in job.requests] for _, job in jobs]


def _with_union(
    result: dict[str, PartialPlan],
    searches: Mapping[Key, _Discovery],
    entries: Mapping[Key, Entry],
    wanted: list[tuple[str, Side, frozenset[str]]],
    failure: Failure,
    renderer: Renderer,
    rendered: Callable[[RenderOutcome], None] | None,
) -> dict[str, PartialPlan]:
    """Each side of the plans in `result` rendered without the union of both sides' failing templates;
    a plan one of whose sides then fails is left out of the result (its whole renders stand)."""
    jobs: list[tuple[Key, SideJob]] = []
    failed: set[str] = set()
    for plan_id, side, union in wanted:
        try:
            jobs.append(((plan_id, side), without_templates(entries[(plan_id, side)][0], union)))
        except AftershockError:
            failed.add(plan_id)
    redone = {
        key: (job, outcomes)
        for (key, job), outcomes in zip(jobs, _render(jobs, renderer, rendered))
    }
    final: dict[str, PartialPlan] = {}
    for plan_id, partial in result.items():
        sides: dict[Side, Entry] = {}
        for side in Side:
            key = (plan_id, side)
            entry = redone.get(key) or (
                searches[key].entry if key in searches else entries.get(key)
            )
            if entry is not None:
                sides[side] = entry
                if key in redone and failure(entry) is not None:
                    failed.add(plan_id)
        if plan_id not in failed:
            final[plan_id] = PartialPlan(sides, partial.left_out, partial.fixed_at_head)
    return final
