"""The render stage of a review: the affected charts rendered in their contexts and scenarios, against
the review's cluster, then the charts a changed object reaches through `lookup`, then release following,
and the changed template lines no render exercised.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from aftershock.diff.exercise import line_coverage
from aftershock.ingest.gitops.manifests import PlainManifests, plain_manifests
from aftershock.ingest.lookups import ReleaseIdentity
from aftershock.model.change import Side
from aftershock.model.contexts import ChartContext, ContextKind
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.review import (
    ChangedLines,
    ChartOutcome,
    ChartReview,
    NotReviewed,
    RenderStatus,
    ScenarioSummary,
)
from aftershock.model.units import AffectedChart
from aftershock.pipeline.context.chosen_renders import gap_chart, render_chosen, with_head_values
from aftershock.pipeline.context.cluster import (
    declared_objects,
    lookup_dependents,
    review_clusters,
    with_rendered,
)
from aftershock.pipeline.context.contexts import choose_contexts, failed_contexts, suite_paths_of
from aftershock.pipeline.context.installers import find_installers
from aftershock.pipeline.context.placeholders import guarded_placeholders, inferred_reasons, served
from aftershock.pipeline.context.refused import split_refused
from aftershock.pipeline.following.releases import (
    ReleaseFollowing,
    chart_source,
    follow_releases,
    manifest_sources,
)
from aftershock.pipeline.following.values_sources import with_value_sources
from aftershock.pipeline.rendering.chart_jobs import RenderSettings
from aftershock.pipeline.rendering.stage_input import StageInput, with_history
from aftershock.render.interface import Renderer
from aftershock.render.lookup.cluster import ClusterSnapshot
from aftershock.render.plan import ChartPlan, moved_charts, plan_renders


@dataclass(frozen=True)
class RenderStage:
    reviews: tuple[ChartReview, ...]
    not_reviewed: tuple[NotReviewed, ...]
    scenarios: tuple[ScenarioSummary, ...]
    following: ReleaseFollowing
    contexts: tuple[ChartContext, ...]
    reached: tuple[
        AffectedChart, ...
    ] = ()  # charts the change reaches through an object they look up
    lines: tuple[
        ChangedLines, ...
    ] = ()  # the changed template lines and the scenarios that ran them


def render_stage(given: StageInput, renderer: Renderer) -> RenderStage:
    (base_tree, charts_base), (head_tree, charts_head) = given.sides
    ns = given.settings.namespace
    # each file's cluster as the Flux Kustomizations apply it (a release's id holds it)
    plain = (
        replace(plain_manifests(base_tree, charts_base, ns), clusters=given.built.clusters[0]),
        replace(plain_manifests(head_tree, charts_head, ns), clusters=given.built.clusters[1]),
    )
    plans = plan_renders(given.to_render, charts_base, charts_head, moved_charts(given.files))
    declared = declared_objects(given.config, base_tree)
    release = ReleaseIdentity(given.identity.release_name, given.identity.namespace)
    clusters = review_clusters(
        plans,
        *given.sides,
        plain,
        declared,
        renderer,
        given.settings,
        given.work,
        given.rendered,
        release,
    )
    settings = replace(given.settings, clusters={s.value: c for s, c in clusters.items()})
    first = _render_plans(given, plans, plain, settings, renderer, given.work, given.planned)
    first = _with_placeholders(given, plans, first, clusters, plain, settings, renderer)
    dependents = lookup_dependents(first.reviews, [p.path for p in plans], given.sides, release)
    if dependents:
        given = given.reaching([d.chart for d in dependents])
        (_, charts_base), (_, charts_head) = given.sides
        around = with_rendered(clusters, first.reviews, plain, declared, ns)
        settings = replace(settings, clusters={s.value: c for s, c in around.items()})
        # in the review's own workspace, so the test step and provenance find these charts as the others
        more = _render_plans(
            given,
            plan_renders(dependents, charts_base, charts_head),
            plain,
            settings,
            renderer,
            given.work,
            None,
        )
        first = RenderStage(
            first.reviews + more.reviews,
            first.not_reviewed + _context_gaps(more.not_reviewed, more.reviews),
            first.scenarios + more.scenarios,
            first.following,
            first.contexts + more.contexts,
        )
    covered = frozenset(
        (c.chart, c.name.removeprefix("release:"))
        for c in first.contexts
        if c.kind is ContextKind.RELEASE and c.name
    )
    following = _follow(
        given,
        first.reviews,
        plain,
        settings,
        renderer,
        covered,
        tuple(given.to_render) + tuple(dependents),
    )
    coverage = tuple(line_coverage(given.changed_runs, first.reviews + following.reviews))
    return replace(
        first,
        not_reviewed=first.not_reviewed + _not_exercised(coverage),
        lines=coverage,
        following=following,
        contexts=_with_lookups(first.contexts, first.reviews),
        reached=tuple(dependents),
    )


def _context_gaps(
    gaps: tuple[NotReviewed, ...], reviews: tuple[ChartReview, ...]
) -> tuple[NotReviewed, ...]:
    """The gaps of charts the change reaches only through `lookup`, marked as context where the
    chart fails the same way at both refs: the change did not make it fail."""
    same = {
        r.chart
        for r in reviews
        if r.base.status is RenderStatus.FAILED
        and r.head.status is RenderStatus.FAILED
        and r.base.error == r.head.error
    }
    return tuple(replace(g, context=True) if gap_chart(g) in same else g for g in gaps)


def _with_placeholders(
    given: StageInput,
    plans: Sequence[ChartPlan],
    first: RenderStage,
    clusters: Mapping[Side, ClusterSnapshot | None],
    plain: tuple[PlainManifests, PlainManifests],
    settings: RenderSettings,
    renderer: Renderer,
) -> RenderStage:
    """The charts a lookup that found nothing stopped, rendered again with empty placeholders of
    what they look up; a chart that then renders takes its new results and says they are inferred."""
    placeholders = guarded_placeholders(first.reviews, given.sides, clusters, given.settings)
    if not placeholders:
        return first
    around = served(clusters, placeholders, settings.namespace)
    retried = [p for p in plans if p.path in {ph.chart for ph in placeholders}]
    again = _render_plans(
        given,
        retried,
        plain,
        replace(settings, clusters={s.value: c for s, c in around.items()}),
        renderer,
        given.work,
        None,
    )
    rendered = {
        r.chart
        for r in again.reviews
        if r.scenario == "default" and r.outcome is not ChartOutcome.NOT_REVIEWED
    }
    reasons = {c: inferred_reasons(placeholders, c) for c in rendered}
    return RenderStage(
        tuple(r for r in first.reviews if r.chart not in rendered)
        + tuple(r for r in again.reviews if r.chart in rendered),
        tuple(n for n in first.not_reviewed if gap_chart(n) not in rendered)
        + tuple(n for n in again.not_reviewed if gap_chart(n) in rendered),
        tuple(s for s in first.scenarios if s.chart not in rendered)
        + tuple(s for s in again.scenarios if s.chart in rendered),
        first.following,
        tuple(c for c in first.contexts if c.chart not in rendered)
        + tuple(
            replace(c, inferred=reasons[c.chart]) for c in again.contexts if c.chart in rendered
        ),
    )


def _render_plans(
    given: StageInput,
    plans: Sequence[ChartPlan],
    plain: tuple[PlainManifests, PlainManifests],
    settings: RenderSettings,
    renderer: Renderer,
    work: Path,
    planned: Callable[[int], None] | None,
) -> RenderStage:
    """Contexts, then scenarios on them, rendered at both refs (with one refill round); a chart needing
    a file over a bound is refused first."""
    plans, refused, refused_gaps = split_refused(plans, *given.sides)
    installers = find_installers(
        {p.path for p in plans},
        *given.sides,
        plain,
        given.config.releases.charts,
        renderer,
        settings,
        work,
        given.rendered,
    )
    chosen, contexts = choose_contexts(
        plans,
        *given.sides,
        given.config,
        installers,
        renderer,
        settings,
        work,
        given.identity,
        suite_paths_of(given.suite_patterns),
        rendered=given.rendered,
    )
    done = render_chosen(given, chosen, renderer, settings, work, planned)
    (reviews, gaps, scenarios), contexts = with_head_values(
        given, chosen, contexts, done, renderer, settings, work
    )
    return RenderStage(
        refused + reviews,
        refused_gaps + _context_failures(gaps, contexts),
        scenarios,
        ReleaseFollowing((), (), ()),
        contexts,
    )


def _context_failures(
    gaps: tuple[NotReviewed, ...], contexts: tuple[ChartContext, ...]
) -> tuple[NotReviewed, ...]:
    """A chart no context renders is not reviewed once, with one line per context tried, not per side."""
    failed = failed_contexts(contexts)
    result, said = [], set()
    for gap in gaps:
        chart = gap_chart(gap)  # its scenarios fail with it
        if chart in failed:
            if chart not in said:
                said.add(chart)
                result.append(NotReviewed(f"chart {chart}", failed[chart]))
            continue
        result.append(gap)
    return tuple(result)


def _follow(
    given: StageInput,
    reviews: tuple[ChartReview, ...],
    plain: tuple[PlainManifests, PlainManifests],
    settings: RenderSettings,
    renderer: Renderer,
    covered: frozenset[tuple[str, str]],
    affected: tuple[AffectedChart, ...],
) -> ReleaseFollowing:
    """Follow releases found in every scenario's renders (the context's included) and in plain manifests."""
    reviewed = given.built.reviews + tuple(
        r for r in reviews if r.outcome is not ChartOutcome.NOT_REVIEWED
    )
    lookups = _side_lookups(given, plain, reviewed, settings, renderer)
    manifests, unreadable = manifest_sources(*plain, set(given.follow_changed), lookups)
    # A file a kustomize or Flux build reads is followed through the build (its reviews come first).
    manifests = tuple(m for m in manifests if m.id not in given.built.files)
    sources = [chart_source(r, lookups) for r in reviewed] + list(manifests)
    following = follow_releases(
        sources,
        lookups,
        *given.sides,
        renderer,
        settings,
        given.work,
        affected,
        rendered=given.rendered,
        chart_map=given.config.releases.charts,
        covered=covered,
        cache=given.chart_cache,
        trace=given.changed_lines,
        reach=functools.partial(with_history, given.history),
    )
    return replace(following, not_reviewed=unreadable + following.not_reviewed)


def _side_lookups(
    given: StageInput,
    plain: tuple[PlainManifests, PlainManifests],
    reviewed: Sequence[ChartReview],
    settings: RenderSettings,
    renderer: Renderer,
) -> tuple[dict[ObjectKey, RenderedObject], dict[ObjectKey, RenderedObject]]:
    """What a release's valuesFrom reads at each side: the plain manifests, every default render of
    the review, and the objects other charts render that a release names but those lack."""
    result = []
    changed = set(given.follow_changed)
    for side, side_input, manifests in (
        (Side.BASE, given.sides[0], plain[0]),
        (Side.HEAD, given.sides[1], plain[1]),
    ):
        renders = [
            o
            for r in reviewed
            if r.scenario == "default"
            for o in (r.base_objects if side is Side.BASE else r.head_objects)
        ]
        lookup = {**{o.key: o for o in manifests.all_objects()}, **{o.key: o for o in renders}}
        # Only releases the change can reach ask for renders (an unchanged manifest's release
        # is a context of its chart: pipeline/context/installers.py).
        changed_plain = [o for p, objs in manifests.objects.items() if p in changed for o in objs]
        result.append(
            with_value_sources(
                [*changed_plain, *renders],
                lookup,
                {r.chart for r in reviewed},
                side,
                side_input,
                renderer,
                settings,
                given.work / "values-sources-following",
                given.rendered,
            )
        )
    return result[0], result[1]


def _not_exercised(coverage: tuple[ChangedLines, ...]) -> tuple[NotReviewed, ...]:
    """One gap per template and side, naming its lines no scenario ran; one for both sides when
    the same lines were removed and added (an edited line) and neither ran."""
    unrun: dict[tuple[str, Side], list[str]] = {}
    for lines in coverage:
        if not lines.exercised:
            unrun.setdefault((lines.path, lines.side), []).append(lines.lines)
    gaps = []
    for (path, side), ranges in unrun.items():
        both = unrun.get((path, Side.BASE if side is Side.HEAD else Side.HEAD)) == ranges
        if both and side is Side.BASE:
            continue  # said with the head's
        edited = "edited" if both else "added" if side is Side.HEAD else "removed"
        gaps.append(
            NotReviewed(
                f"template {path} lines {', '.join(ranges)}",
                f"no scenario that ran executed these {edited} lines: the change there was not "
                "exercised",
                None if both else side,
            )
        )
    return tuple(gaps)


def _with_lookups(
    contexts: tuple[ChartContext, ...], reviews: tuple[ChartReview, ...]
) -> tuple[ChartContext, ...]:
    """Each context with the cluster objects its chart's default renders found through `lookup`."""
    found: dict[str, set[str]] = {}
    for review in reviews:
        if review.scenario == "default" and review.release is None:
            found.setdefault(review.chart, set()).update(
                (*review.base.lookups, *review.head.lookups)
            )
    return tuple(replace(c, lookups=tuple(sorted(found.get(c.chart, ())))) for c in contexts)
