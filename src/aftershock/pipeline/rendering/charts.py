"""Wiring of the render and diff stages for the affected charts: render, parse, diff.

What each chart renders at each ref (its workspace, requests and crds/ files) is
`pipeline.rendering.chart_jobs`; this module renders those jobs and diffs what they rendered.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from aftershock.diff.normalize import reordered_paths
from aftershock.diff.objects import diff_objects
from aftershock.model.change import Side
from aftershock.model.errors import AftershockError
from aftershock.model.objects import RenderedObject
from aftershock.model.review import (
    PROBE_PREFIXES,
    ChartOutcome,
    ChartReview,
    NotReviewed,
    RenderStatus,
    TemplateFailure,
    is_deterministic_error,
)
from aftershock.model.units import AffectedChart, Chart
from aftershock.pipeline.context.missing_dependencies import (
    apart_from_change,
    apart_templates,
    failed_without,
    joined_gaps,
    rendered_without,
)
from aftershock.pipeline.context.new_keys import base_without_new_keys
from aftershock.pipeline.context.partial_renders import PartialPlan, render_by_template
from aftershock.pipeline.rendering.chart_jobs import (
    RenderSettings,
    SideInput,
    SideJob,
    reads_cluster,
    same_dependencies,
    side_jobs,
)
from aftershock.pipeline.rendering.line_traces import Entry, WantedLines, trace_reviews
from aftershock.pipeline.rendering.side_results import (
    CrdObjects,
    SideResult,
    SideResults,
    rendered_objects,
)
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan, RenderInputs, template_repo_path
from aftershock.render.schemas.schema_errors import unknown_keys
from aftershock.render.workspaces.partial_charts import every_named_template
from aftershock.safety.secret_taint import rendered_secret_texts

# Said of a failure in a template that calls `lookup` (ChartRender.reads_cluster).
READS_CLUSTER = (
    " (the template calls lookup: offline it reads a snapshot of the repository's objects, "
    "so this may be the snapshot's failure, not the chart's; not judged a break)"
)


def review_charts(
    plans: Sequence[ChartPlan],
    base: SideInput,
    head: SideInput,
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    *,
    planned: Callable[[int], None] | None = None,
    rendered: Callable[[RenderOutcome], None] | None = None,
    trace: WantedLines | None = None,
    changed: Collection[str] = (),
    crds: CrdObjects | None = None,
) -> tuple[tuple[ChartReview, ...], tuple[NotReviewed, ...]]:
    """Render each planned chart at base and head, diff what it rendered, and say what was not reviewed
    (a dependency no `changed` path reaches as context); with `trace`, the changed template lines are
    traced through the renders (pipeline/rendering/line_traces.py); `crds`: the review's crds/ files."""
    by_job = _render_jobs(plans, base, head, renderer, settings, work, planned, rendered)
    results = SideResults(crds)
    plans, by_job, new_keys = base_without_new_keys(
        plans, by_job, results.failure, renderer, rendered
    )
    partial = render_by_template(plans, by_job, results.failure, renderer, rendered)
    reviews, missing = [], []
    entries: list[Mapping[Side, Entry]] = []
    # (part, side, reason) of a template left out -> the scenarios it failed in, said once
    left_out: dict[tuple[str, Side | None, str], list[str]] = {}
    charts, context = {c.path: c for c in head[1]}, set()  # context: parts no changed file reaches
    for plan in plans:
        jobs = [e[0] for side in Side if (e := by_job.get((plan.id, side))) and not e[0].blocked]
        without = joined_gaps(j.dependencies_left_out for j in jobs)  # at either ref, each once
        by_template = partial.get(plan.id)
        review_by_template = _partial_review(plan, by_template, results) if by_template else None
        part = _part(replace(plan, scenario="default"))
        apart = apart_from_change(plan.head or plan.base, charts, changed)
        if review_by_template is not None:
            review, gaps = review_by_template
            # a template a probe's made-up values break is no part of the change left unreviewed
            for gap in gaps if not review.probe else ():
                left_out.setdefault((gap.part, gap.side, gap.reason), []).append(plan.scenario)
            context.update(apart_templates(review, part, apart))
        else:
            review, gaps = _review_chart(
                plan,
                results.result(by_job.get((plan.id, Side.BASE)), Side.BASE),
                results.result(by_job.get((plan.id, Side.HEAD)), Side.HEAD),
            )
            missing.extend(failed_without(gaps, without))
        if plan.id in new_keys:
            review = replace(review, keys_left_out_at_base=new_keys[plan.id])
        review, dependency_gaps = rendered_without(review, without, part, apart)
        missing.extend(g for g in dependency_gaps if g not in missing)
        reviews.append(review)
        entries.append(
            by_template.entries
            if by_template
            else {side: by_job[(plan.id, side)] for side in Side if (plan.id, side) in by_job}
        )
    if trace:
        reviews = trace_reviews(reviews, entries, trace, renderer, work / "traced")
    for (part, side, reason), scenarios in left_out.items():
        said = part if "default" in scenarios else f"{part} in scenario(s) {', '.join(scenarios)}"
        missing.append(NotReviewed(said, reason, side, context=part in context))
    return tuple(reviews), tuple(missing)


def _render_jobs(
    plans: Sequence[ChartPlan],
    base: SideInput,
    head: SideInput,
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    planned: Callable[[int], None] | None,
    rendered: Callable[[RenderOutcome], None] | None,
) -> dict[tuple[str, Side], tuple[SideJob, list[RenderOutcome]]]:
    """Each plan's job at each side with its renders' outcomes, in one batch."""
    jobs = same_dependencies(
        side_jobs(plans, Side.BASE, base, settings, work / "base")
        + side_jobs(plans, Side.HEAD, head, settings, work / "head")
    )
    # A plan's two sides one after the other: a render count bound then cuts whole plans, the last ones.
    order = {plan.id: index for index, plan in enumerate(plans)}
    jobs = tuple(sorted(jobs, key=lambda job: order[job.plan.id]))
    requests = [r for job in jobs for r in job.requests]
    if planned:
        planned(len(requests))
    outcomes = iter(renderer.render_many(requests, rendered))
    return {(job.plan.id, job.side): (job, [next(outcomes) for _ in job.requests]) for job in jobs}


def render_side(
    plans: Sequence[ChartPlan],
    side: Side,
    side_input: SideInput,
    renderer: Renderer,
    settings: RenderSettings,
    dest: Path,
    rendered: Callable[[RenderOutcome], None] | None = None,
) -> list[tuple[RenderOutcome | None, str | None]]:
    """Render each plan once at one side only: (outcome, None) when it rendered, (outcome or None, why)
    when not, a rendered document that is not YAML included (an unset value can break one)."""
    jobs = side_jobs(plans, side, side_input, settings, dest)
    by_id = {job.plan.id: job for job in jobs}
    outcomes = iter(
        renderer.render_many([job.requests[0] for job in jobs if not job.blocked], rendered)
    )
    done = {job.plan.id: next(outcomes) for job in jobs if not job.blocked}
    results: list[tuple[RenderOutcome | None, str | None]] = []
    for plan in plans:
        job = by_id.get(plan.id)
        if job is None or job.blocked:
            results.append(
                (None, job.blocked if job else f"chart {plan.path} is absent at {side.value}")
            )
        else:
            outcome = done[plan.id]
            results.append((outcome, outcome.error or _unparsed(outcome, job)))
    return results


def _unparsed(outcome: RenderOutcome, job: SideJob) -> str | None:
    try:
        rendered_objects(outcome, job.chart, job.charts)
    except AftershockError as error:
        return error.line()
    return None


def one_side_plan(chart: Chart, side: Side, scenario: str) -> ChartPlan:
    """A plan rendering `chart` at one side only (for `render_side`), named by what it is for."""
    return ChartPlan(
        chart.path,
        chart.name,
        AffectedChart(chart.path, ()),
        chart if side is Side.BASE else None,
        chart if side is Side.HEAD else None,
        scenario=scenario,
    )


def side_objects(
    outcome: RenderOutcome, plan: ChartPlan, side: Side, charts: Sequence[Chart]
) -> tuple[RenderedObject, ...]:
    """The objects of a successful `render_side` outcome (none when its output is not YAML)."""
    chart = plan.base if side is Side.BASE else plan.head
    if chart is None:
        return ()
    try:
        return rendered_objects(outcome, chart, {c.path: c for c in charts})
    except AftershockError:
        return ()


def _part(plan: ChartPlan) -> str:
    part = f"chart {plan.path}" + (f" installed by {plan.release}" if plan.release else "")
    if plan.scenario != "default":  # say which, or failing scenarios read as one line repeated
        part += f" in scenario {plan.scenario}"
    return part


def _review_chart(
    plan: ChartPlan, base: SideResult, head: SideResult
) -> tuple[ChartReview, list[NotReviewed]]:
    failed = [s for s in (base, head) if s.render.status is RenderStatus.FAILED]
    part = _part(plan)
    if plan.scenario != "default" and _rejected(plan, base, head):
        return _undiffed(plan, base, head, ChartOutcome.SCENARIO_INVALID), []
    if _fixed(base, head):
        return _undiffed(plan, base, head, ChartOutcome.FIXED), []
    if failed:
        gaps = [
            NotReviewed(
                part,
                (s.render.error or "render failed")
                + (READS_CLUSTER if s.render.reads_cluster else ""),
                s.render.side,
            )
            for s in failed
        ]
        if len(failed) == 2 and base.render.error == head.render.error:  # said once, for both
            gaps = [NotReviewed(part, base.render.error or "render failed")]
        review = ChartReview(
            plan.path,
            plan.name,
            plan.affected,
            base.render,
            head.render,
            ChartOutcome.NOT_REVIEWED,
            release=plan.release,
            scenario=plan.scenario,
            cluster=plan.cluster,
            secret_texts=rendered_secret_texts((*base.objects, *head.objects)),
        )
        # observed: the head rejects values that render at base (a finding, no gap)
        return review, [] if review.rejects_upgrade else gaps
    return _diffed(plan, base, head), []


def _rejected(plan: ChartPlan, base: SideResult, head: SideResult) -> bool:
    """Whether the chart rejects the plan's values at both refs: by the same error of Helm's own (a
    timeout, a memory or deadline breach says nothing of the chart), or at base for keys new at head
    and at head by Helm's own error. A probe's made-up values (`guard:…`) the chart rejects by its
    own error at either ref are rejected too: no part of the change, and the refill round renders
    the next scenario in its place."""
    if plan.scenario.startswith(PROBE_PREFIXES):
        return any(
            side.render.status is RenderStatus.FAILED
            and is_deterministic_error(side.render.error or "")
            for side in (base, head)
        )
    return (
        base.render.status is RenderStatus.FAILED
        and head.render.status is RenderStatus.FAILED
        and is_deterministic_error(head.render.error or "")
        and (base.render.error == head.render.error or _new_keys_only(plan, base.render.error))
    )


def _undiffed(
    plan: ChartPlan, base: SideResult, head: SideResult, outcome: ChartOutcome
) -> ChartReview:
    """The review of a plan with what it was rendered with (a later round may add what a rejection
    demands), and nothing diffed: as it stands, that of a plan rejected at both refs or fixed at
    head."""
    return ChartReview(
        plan.path,
        plan.name,
        plan.affected,
        base.render,
        head.render,
        outcome,
        release=plan.release,
        scenario=plan.scenario,
        cluster=plan.cluster,
        base_inputs=plan.base_inputs,
        head_inputs=plan.head_inputs,
    )


def _fixed(base: SideResult, head: SideResult) -> bool:
    """Whether the base fails by Helm's own error, not in a template reading the cluster, and the
    head renders: the change fixes the scenario."""
    return (
        base.render.status is RenderStatus.FAILED
        and is_deterministic_error(base.render.error or "")
        and not base.render.reads_cluster
        and head.render.status is RenderStatus.OK
    )


def _new_keys_only(plan: ChartPlan, error: str | None) -> bool:
    return plan.base is not None and unknown_keys(error or "", plan.base.name) is not None


def _diffed(
    plan: ChartPlan,
    base: SideResult,
    head: SideResult,
    templates_not_rendered: tuple[TemplateFailure, ...] = (),
) -> ChartReview:
    """The review of a plan both of whose sides gave objects: what changed between them."""
    unstable = base.unstable | head.unstable
    if base.varies or head.varies:  # two renders of one input may agree by chance
        unstable |= reordered_paths(base.objects, head.objects)
    changes = diff_objects(base.objects, head.objects, unstable=unstable)
    outcome = ChartOutcome.CHANGED if changes else ChartOutcome.UNCHANGED
    return replace(
        _undiffed(plan, base, head, outcome),
        changes=changes,
        unstable=unstable,
        base_objects=base.objects,
        head_objects=head.objects,
        templates_not_rendered=templates_not_rendered,
    )


def _partial_review(
    plan: ChartPlan, partial: PartialPlan, results: SideResults
) -> tuple[ChartReview, list[NotReviewed]] | None:
    """The review of a plan rendered by template: what rendered is diffed; each template left out is
    *not reviewed*, with Helm's error at each ref it failed at (once when both say the same; the part
    names no scenario: `review_charts` says in which, once per template). None when
    no template rendered an object at either ref: then the chart failed as a whole."""
    base = results.result(partial.entries.get(Side.BASE), Side.BASE)
    head = results.result(partial.entries.get(Side.HEAD), Side.HEAD)
    job = next(iter(partial.entries.values()))[0]
    if not any(o.template not in job.crds for o in (*base.objects, *head.objects)):
        return None
    failures, fixed, gaps = [], [], []
    head_job = partial.entries[Side.HEAD][0] if Side.HEAD in partial.entries else job
    for name, errors in sorted(partial.left_out.items()):
        template = template_repo_path(name, job.chart, job.charts)
        named = (name, *every_named_template(errors.get(Side.HEAD) or ""))
        failure = TemplateFailure(
            template,
            errors.get(Side.BASE),
            errors.get(Side.HEAD),
            Side.HEAD in errors and reads_cluster(head_job, named),
        )
        if name in partial.fixed_at_head:  # its head objects are diffed and judged
            if failure not in fixed:  # one per template, not per alias of its subchart
                fixed.append(failure)
            continue
        failures.append(failure)
        part = f"template {template} of {_part(replace(plan, scenario='default'))}"
        if len(errors) == 2 and len(set(errors.values())) == 1:
            gaps.append(NotReviewed(part, errors[Side.BASE]))
        else:
            gaps += [
                NotReviewed(part, error + (READS_CLUSTER if failure.reads_cluster else ""), side)
                for side, error in sorted(errors.items())
            ]
    left_out = tuple(sorted(partial.left_out))
    plan = replace(
        plan,
        base_inputs=_leaving_out(plan.base_inputs, left_out),
        head_inputs=_leaving_out(
            plan.head_inputs, tuple(n for n in left_out if n not in partial.fixed_at_head)
        ),
    )
    review = _diffed(plan, base, head, tuple(failures))
    return replace(review, templates_fixed_at_head=tuple(fixed)), gaps


def _leaving_out(inputs: RenderInputs, left_out: tuple[str, ...]) -> RenderInputs:
    """The inputs with the templates left out, so later renders (provenance, probes) leave them out too."""
    selection = replace(
        inputs.templates, left_out=tuple(sorted({*inputs.templates.left_out, *left_out}))
    )
    return replace(inputs, templates=selection)
