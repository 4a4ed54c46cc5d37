"""Rendering the affected charts in the contexts chosen for them: each with its scenarios at both refs,
the refill round for scenarios a chart rejects alike, and replacing one render's results of a chart
with another's."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from aftershock.diff.edited_templates import changed_fields_by_file, failure_messages
from aftershock.diff.exercise import line_coverage
from aftershock.helmtest.suite_values import edited_test_names
from aftershock.model.contexts import ChartContext
from aftershock.model.review import ChartOutcome, ChartReview, NotReviewed, ScenarioSummary
from aftershock.model.units import dependency_closure
from aftershock.pipeline.context.contexts import suite_paths_of
from aftershock.pipeline.context.demanded import demanded_plans
from aftershock.pipeline.context.head_values import HeadRun, head_failures, values_required_at_head
from aftershock.pipeline.context.scenarios import ChartEdits, expand_scenarios, unrun_scenarios
from aftershock.pipeline.context.templated_files import reading_templates, templated_files
from aftershock.pipeline.rendering.chart_jobs import RenderSettings
from aftershock.pipeline.rendering.charts import review_charts
from aftershock.pipeline.rendering.stage_input import StageInput
from aftershock.render.contexts import ChartFiles
from aftershock.render.edited_guards import edited_guard_paths, enclosing_fields
from aftershock.render.interface import Renderer
from aftershock.render.plan import ChartPlan
from aftershock.render.value_probes import reexpressed_reads


def gap_chart(gap: NotReviewed) -> str:
    """The chart a gap of a chart render names (its scenarios' gaps included)."""
    return gap.part.removeprefix("chart ").split(" in scenario ")[0]


Rendered = tuple[tuple[ChartReview, ...], tuple[NotReviewed, ...], tuple[ScenarioSummary, ...]]


def render_chosen(
    given: StageInput,
    chosen: Sequence[ChartPlan],
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    planned: Callable[[int], None] | None = None,
) -> Rendered:
    """The plans in their contexts, each with its scenarios, rendered at both refs."""
    changed = list(given.changed_paths)
    edits = _chart_edits(given, chosen, changed)
    expanded, scenarios = expand_scenarios(
        chosen, *given.sides, changed, given.max_scenarios, given.config.scenarios, edits
    )
    rounds = _Rounds(given, chosen, changed, edits, renderer, settings, work)
    reviews, gaps = rounds.review(expanded, work, planned)
    return _refill_unrun(rounds, _refill(rounds, (reviews, gaps, scenarios)))


@dataclass(frozen=True)
class _Rounds:
    """What every round of a review's chosen renders shares: the input, the chosen plans, the
    changed paths, what the change edits of each chart, and how to render."""

    given: StageInput
    plans: Sequence[ChartPlan]
    changed: list[str]
    edits: dict[str, ChartEdits]
    renderer: Renderer
    settings: RenderSettings
    work: Path

    def review(
        self,
        plans: Sequence[ChartPlan],
        work: Path,
        planned: Callable[[int], None] | None = None,
    ) -> tuple[tuple[ChartReview, ...], tuple[NotReviewed, ...]]:
        """The plans rendered at both refs, their changed lines traced."""
        given = self.given
        return review_charts(
            plans,
            *given.sides,
            self.renderer,
            self.settings,
            work,
            planned=planned,
            rendered=given.rendered,
            trace=given.changed_lines,
            changed=given.changed_paths,
            crds=given.crds,
        )


def _chart_edits(
    given: StageInput, plans: Sequence[ChartPlan], changed: list[str]
) -> dict[str, ChartEdits]:
    """What the change edits of each planned chart besides its templates, found once per chart (as
    its head has it; its base for a chart the head removes)."""
    (base_tree, _), (head_tree, _) = given.sides
    edits: dict[str, ChartEdits] = {}
    for plan in plans:
        if plan.path not in edits:
            tree = head_tree if plan.head is not None else base_tree
            templated = templated_files(tree, plan.path, changed)
            readers = reading_templates(tree, plan.path, templated)
            suites = _suite_files(given, plan)
            edits[plan.path] = ChartEdits(
                (*templated, *readers),
                _changed_fields(given, plan, templated),
                reexpressed_reads(given.files, plan.path),
                failure_messages(given.files, plan.path),
                edited_guard_paths(given.files, plan.path, tree.text_or_none),
                edited_test_names(given.files, plan.path, tree.text_or_none, suites),
                suites,
            )
    return edits


def _suite_files(given: StageInput, plan: ChartPlan) -> frozenset[str]:
    """The chart's suite files at either ref, as its helm-unittest patterns name them."""
    suite_paths = suite_paths_of(given.suite_patterns)
    return frozenset(
        path
        for (tree, _), chart in zip(given.sides, (plan.base, plan.head), strict=True)
        if chart is not None
        for path in suite_paths(
            ChartFiles(chart.path, tree.tree.paths_under(chart.path), tree.text_or_none, tree.label)
        )
    )


def _changed_fields(
    given: StageInput, plan: ChartPlan, templated: Sequence[str]
) -> dict[str, frozenset[str]]:
    """The fields the changed lines read, by file, with those the blocks around the added lines read:
    the chart's templates and those of the local dependencies it reaches (a library's named
    templates run in its render)."""
    fields = changed_fields_by_file(given.files, plan.path, templated)
    side = given.sides[1] if plan.head is not None else given.sides[0]
    charts = {c.path: c for c in side[1]}
    chart = charts.get(plan.path)
    for folder in dependency_closure(chart, charts) if chart is not None else ():
        if folder != plan.path:
            fields.update(changed_fields_by_file(given.files, folder))
    around = enclosing_fields(given.files, fields, given.sides[1][0].text_or_none)
    return {path: read | around.get(path, frozenset()) for path, read in fields.items()}


def with_head_values(
    given: StageInput,
    chosen: Sequence[ChartPlan],
    contexts: tuple[ChartContext, ...],
    done: Rendered,
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
) -> tuple[Rendered, tuple[ChartContext, ...]]:
    """The charts whose context renders their base and not their head rendered again with the values
    the head needs (pipeline/context/head_values.py), when it renders whole with them."""
    failures = head_failures(done[0])
    if not failures:
        return done, contexts
    suite_paths = suite_paths_of(given.suite_patterns)
    run = HeadRun(
        given.sides[1], suite_paths, renderer, settings, work / "head-values", given.rendered
    )
    again, contexts = values_required_at_head(failures, chosen, contexts, run)
    if not again:
        return done, contexts
    more = render_chosen(given, list(again.values()), renderer, settings, work / "again")
    return replaced(done, more, set(again)), contexts


def replaced(done: Rendered, again: Rendered, charts: set[str]) -> Rendered:
    """`done` with the default renders (no release) of `charts`, their scenarios' and their gaps
    from `again`, each chart's where its first render was."""
    reviews: list[ChartReview] = []
    placed: set[str] = set()
    for review in done[0]:
        if review.release is not None or review.chart not in charts:
            reviews.append(review)
        elif review.chart not in placed:
            placed.add(review.chart)
            reviews += [r for r in again[0] if r.chart == review.chart]
    gaps = [g for g in done[1] if not any(_gap_of(g, chart) for chart in charts)]
    summaries = [next((a for a in again[2] if a.chart == s.chart), s) for s in done[2]]
    return tuple(reviews), tuple(gaps) + again[1], tuple(summaries)


def _gap_of(gap: NotReviewed, chart: str) -> bool:
    """Whether a gap is of the chart's own renders (no release's): the chart or one of its scenarios
    (`gap_chart`), or a template or dependency `of chart <path>` in them."""
    inside = gap.part.partition(" of chart ")[2].split(" in scenario")[0]
    return chart in (gap_chart(gap), inside)


def _demanded(
    given: StageInput,
    plans: Sequence[ChartPlan],
    reviews: tuple[ChartReview, ...],
    ran: set[tuple[str, str | None, str]],
) -> list[ChartPlan]:
    """The rejected scenarios that open guards, with what the chart's error demands (pipeline/context/demanded.py)."""
    own = {p.path: p for p in plans if p.release is None}
    rejected = [
        r for r in reviews if r.outcome is ChartOutcome.SCENARIO_INVALID and r.release is None
    ]
    return [
        p
        for p in demanded_plans(rejected, own, given.sides[1])
        if (p.path, p.release, p.scenario) not in ran
    ]


def _refill(rounds: _Rounds, done: Rendered) -> Rendered:
    """A scenario the chart rejects at base and head alike uses no budget: the next scenarios over the
    cap render in its place, and so does the rejected one with what the chart's error demands of it
    (one round)."""
    given, changed, edits = rounds.given, rounds.changed, rounds.edits
    reviews, gaps, summaries = done
    invalid = Counter(
        r.chart for r in reviews if r.outcome is ChartOutcome.SCENARIO_INVALID and r.release is None
    )
    if not invalid:
        return done
    ran = {(r.chart, r.release, r.scenario) for r in reviews}
    more: list[ChartPlan] = []
    replaced: dict[str, ScenarioSummary] = {}
    for plan in rounds.plans:
        if plan.path in invalid and plan.release is None:
            cap = given.max_scenarios + invalid[plan.path]
            found, summary = expand_scenarios(
                [plan], *given.sides, changed, cap, given.config.scenarios, edits
            )
            more += [p for p in found if (p.path, p.release, p.scenario) not in ran]
            replaced[plan.path] = summary[0]
    demanded = _demanded(given, rounds.plans, reviews, ran)
    more += demanded
    for plan in demanded:
        before = replaced.get(plan.path) or next(s for s in summaries if s.chart == plan.path)
        replaced[plan.path] = replace(before, ran=(*before.ran, plan.scenario))
    if not more:
        return done
    extra, extra_gaps = rounds.review(more, rounds.work / "refill")
    return (
        reviews + extra,
        _joined(gaps, extra_gaps),
        tuple(replaced.get(s.chart, s) for s in summaries),
    )


def _refill_unrun(rounds: _Rounds, done: Rendered) -> Rendered:
    """One more round for the changed lines no scenario ran, where the cap cut scenarios: the cap
    ranks scenarios by the fields they set that the changed lines read, a guess that Helm's traces
    then check. As many more of a chart's scenarios as the cap gave it beside its defaults render
    (none with a cap of 1: the defaults alone were asked for), each setting more of the fields read
    in the files of the unrun lines (a library change reaching twenty templates is exercised by the
    tests of the suites rendering them, not by the first few alone)."""
    given, changed, edits = rounds.given, rounds.changed, rounds.edits
    reviews, gaps, summaries = done
    if given.max_scenarios <= 1:
        return done
    unrun = {c.path for c in line_coverage(given.changed_runs, reviews) if not c.exercised}
    by_chart = {s.chart: s for s in summaries}
    more: list[ChartPlan] = []
    for plan in rounds.plans:
        summary, edited = by_chart.get(plan.path), edits.get(plan.path)
        if plan.release is not None or summary is None or not summary.cut or edited is None:
            continue
        fields = {path: read for path, read in edited.fields.items() if path in unrun}
        if fields:
            narrowed = replace(edited, fields=fields)
            more += unrun_scenarios(
                plan, *given.sides, changed, narrowed, summary.ran, given.max_scenarios - 1
            )
    if not more:
        return done
    extra, extra_gaps = rounds.review(more, rounds.work / "unrun")
    added: dict[str, list[str]] = {}
    for plan in more:
        added.setdefault(plan.path, []).append(plan.scenario)
    grown = tuple(
        replace(
            s,
            ran=(*s.ran, *added.get(s.chart, ())),
            cut=tuple(c for c in s.cut if c not in added.get(s.chart, ())),
        )
        for s in summaries
    )
    return reviews + extra, _joined(gaps, extra_gaps), grown


def _joined(
    gaps: tuple[NotReviewed, ...], more: tuple[NotReviewed, ...]
) -> tuple[NotReviewed, ...]:
    """A later round's gaps after the first's, each said once: a dependency a chart renders without
    is a gap of every round that renders the chart."""
    return gaps + tuple(dict.fromkeys(g for g in more if g not in gaps))
