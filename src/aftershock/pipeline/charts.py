"""Wiring of the render and diff stages for the affected charts: materialise, render, parse, diff."""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from aftershock.diff.normalize import find_unstable_paths
from aftershock.diff.objects import diff_objects
from aftershock.errors import AftershockError
from aftershock.ingest.charts import same_named_charts
from aftershock.ingest.dependency_history import HISTORY_PREFIX
from aftershock.ingest.helmignore import parse_helmignore
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.review import (
    ChartOutcome,
    ChartRender,
    ChartReview,
    NotReviewed,
    RenderStatus,
    Side,
)
from aftershock.model.units import AffectedChart, Chart, ChartDependency, DependencySource
from aftershock.render.cache import is_deterministic_error
from aftershock.render.cluster import ClusterSnapshot
from aftershock.render.interface import Renderer, RenderOutcome, RenderRequest
from aftershock.render.manifests import objects_from_documents, parse_documents, parse_manifests
from aftershock.render.plan import (
    ChartPlan,
    RenderInputs,
    dependency_closure,
    may_be_nondeterministic,
    template_repo_path,
)
from aftershock.render.workspace import link_local_dependencies

SideInput = tuple[RefSnapshot, tuple[Chart, ...]]


@dataclass(frozen=True)
class RenderSettings:
    release_name: str
    namespace: str
    kube_version: str | None = None
    # The cluster `lookup` sees at each side ("base", "head"), for the charts that call it.
    clusters: Mapping[str, ClusterSnapshot | None] = field(
        default_factory=dict, hash=False, compare=False
    )
    history_root: Path | None = None  # chart folders of earlier commits (ingest.dependency_history)


@dataclass(frozen=True)
class _SideJob:
    """The renders of one chart at one ref: one, or two when its output may vary between renders."""

    plan: ChartPlan
    side: Side
    chart: Chart
    charts: Mapping[str, Chart]
    requests: tuple[RenderRequest, ...] = ()
    blocked: str | None = None  # why it cannot be rendered at all
    crds: Mapping[str, str] = field(
        default_factory=dict
    )  # repository path -> text of files under crds/


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
) -> tuple[tuple[ChartReview, ...], tuple[NotReviewed, ...]]:
    """Render each planned chart at base and head, diff what it rendered, and say what was not reviewed."""
    jobs = _prepare(plans, Side.BASE, base, settings, work / "base") + _prepare(
        plans, Side.HEAD, head, settings, work / "head"
    )
    # A plan's two sides one after the other: a render count bound then cuts whole plans, the last ones.
    order = {plan.id: index for index, plan in enumerate(plans)}
    jobs = tuple(sorted(jobs, key=lambda job: order[job.plan.id]))
    requests = [r for job in jobs for r in job.requests]
    if planned:
        planned(len(requests))
    outcomes = iter(renderer.render_many(requests, rendered))
    by_job = {
        (job.plan.id, job.side): (job, [next(outcomes) for _ in job.requests]) for job in jobs
    }
    reviews, missing = [], []
    for plan in plans:
        review, gaps = _review_chart(
            plan, by_job.get((plan.id, Side.BASE)), by_job.get((plan.id, Side.HEAD))
        )
        reviews.append(review)
        missing.extend(gaps)
    return tuple(reviews), tuple(missing)


def render_side(
    plans: Sequence[ChartPlan],
    side: Side,
    side_input: SideInput,
    renderer: Renderer,
    settings: RenderSettings,
    dest: Path,
    rendered: Callable[[RenderOutcome], None] | None = None,
) -> list[tuple[RenderOutcome | None, str | None]]:
    """Render each plan once at one side only: (outcome, None) when it rendered, (outcome or None, why) when not."""
    jobs = _prepare(plans, side, side_input, settings, dest)
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
            results.append((done[plan.id], done[plan.id].error))
    return results


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


def _prepare(
    plans: Sequence[ChartPlan],
    side: Side,
    side_input: SideInput,
    settings: RenderSettings,
    dest: Path,
) -> tuple[_SideJob, ...]:
    tree, charts = side_input
    by_path = {c.path: c for c in charts}
    at_side = [(p, p.base if side is Side.BASE else p.head) for p in plans]
    present = [(p, c) for p, c in at_side if c is not None]
    prefixes = sorted({d for _, c in present for d in dependency_closure(c, by_path)})
    tree.materialize(prefixes, dest)
    _link_history(prefixes, settings.history_root, dest)
    varies: dict[str, bool] = {}  # chart folder -> its templates call a random or clock function
    return tuple(
        _side_job(plan, side, chart, by_path, tree, settings, dest, varies)
        for plan, chart in present
    )


def _link_history(prefixes: Sequence[str], history_root: Path | None, dest: Path) -> None:
    """Hard-link the earlier commits' chart folders a dependency resolved to into this workspace."""
    for prefix in prefixes:
        if (
            history_root is None
            or not prefix.startswith(HISTORY_PREFIX + "/")
            or (dest / prefix).exists()
        ):
            continue
        source = history_root / prefix[len(HISTORY_PREFIX) + 1 :]
        if (
            source.is_dir()
        ):  # links followed: a symlinked file (a LICENSE) points outside the folder
            shutil.copytree(source, dest / prefix, copy_function=_link_target)


def _link_target(source: str, target: str) -> None:
    os.link(os.path.realpath(source), target)


def _side_job(
    plan: ChartPlan,
    side: Side,
    chart: Chart,
    charts: Mapping[str, Chart],
    tree: RefSnapshot,
    settings: RenderSettings,
    dest: Path,
    varies: dict[str, bool],
) -> _SideJob:
    job = _SideJob(plan, side, chart, charts)
    reason = _unresolved(chart, charts)
    if reason:
        return replace(job, blocked=reason)
    link_local_dependencies(chart, charts, dest)
    request = chart_request(
        chart, dest, plan.base_inputs if side is Side.BASE else plan.head_inputs, settings
    )
    closure = dependency_closure(chart, charts)
    cluster = settings.clusters.get(side.value)
    if cluster is not None and any(_calls_lookup(tree, path, varies) for path in closure):
        request = replace(request, cluster=cluster)
    twice = any(_varies(tree, path, varies) for path in closure)
    return replace(
        job, requests=(request, request) if twice else (request,), crds=_crd_files(tree, closure)
    )


def _calls_lookup(tree: RefSnapshot, chart_path: str, memo: dict[str, bool]) -> bool:
    """Whether a chart's templates call `lookup` (read once; shares the memo under its own keys)."""
    key = f"lookup:{chart_path}"
    if key not in memo:
        prefix = f"{chart_path}/templates" if chart_path else "templates"
        memo[key] = any(
            "lookup" in text
            for text in tree.texts_under([prefix], suffixes=(".yaml", ".yml", ".tpl", ".txt"))
        )
    return memo[key]


def _unresolved(chart: Chart, charts: Mapping[str, Chart]) -> str | None:
    """Why a dependency of the chart cannot be given to Helm, or None when every one can."""
    deps = _all_dependencies(chart, charts)
    local = sorted(
        f"{d.name} ({d.repository})"
        for d in deps
        if d.source is DependencySource.FILE and d.resolved_path is None
    )
    if local:
        return (
            f"dependency {', '.join(local)} names a folder that is missing at this ref or lies outside the "
            "repository; fix the `file://` path in Chart.yaml or vendor the chart under charts/"
        )
    remote = sorted((d for d in deps if d.source is DependencySource.REMOTE), key=lambda d: d.name)
    if not remote:
        return None
    reason = (
        f"dependency {', '.join(d.name for d in remote)} is not vendored under charts/ and aftershock never "
        "downloads dependencies; run `helm dependency build` and commit charts/"
    )
    named = [
        f"{d.name} {d.version or '(any version)'} is wanted, this repository's "
        + ", ".join(f"{c.path} is {c.version}" for c in same_named_charts(d, charts.values()))
        for d in remote
        if same_named_charts(d, charts.values())
    ]
    if named:
        reason += f", or map it in .aftershock.yaml `dependencies:` ({'; '.join(named)})"
    return reason


def _varies(tree: RefSnapshot, chart_path: str, memo: dict[str, bool]) -> bool:
    """Whether a chart's own files call a function whose output differs between renders (read once)."""
    if chart_path not in memo:
        texts = tree.texts_under([chart_path], suffixes=(".yaml", ".yml", ".tpl", ".txt", ".json"))
        memo[chart_path] = may_be_nondeterministic(texts)
    return memo[chart_path]


def _crd_files(tree: RefSnapshot, closure: Sequence[str]) -> dict[str, str]:
    """Helm installs the files under each chart's `crds/` as they are, untemplated; they are diffed too.
    Files the chart's `.helmignore` leaves out are not loaded by Helm, so not here either."""
    found: dict[str, str] = {}
    for chart_path in closure:
        prefix = f"{chart_path}/" if chart_path else ""
        ignore = parse_helmignore(tree.text_or_none(f"{prefix}.helmignore"))
        for path in tree.tree.paths_under(f"{prefix}crds"):
            if path.endswith((".yaml", ".yml", ".json")) and not ignore.ignores(
                path[len(prefix) :]
            ):
                text = tree.text_or_none(path)
                if text is not None:
                    found[path] = text
    return found


def _all_dependencies(chart: Chart, charts: Mapping[str, Chart]) -> list[ChartDependency]:
    deps: list[ChartDependency] = []
    for path in dependency_closure(chart, charts):
        current = charts.get(path)
        if current is not None:
            deps.extend(current.dependencies)
    return deps


@dataclass(frozen=True)
class _SideResult:
    render: ChartRender
    objects: tuple[RenderedObject, ...] = ()
    unstable: frozenset[tuple[ObjectKey, str]] = frozenset()


def _side_result(entry: tuple[_SideJob, list[RenderOutcome]] | None, side: Side) -> _SideResult:
    if entry is None:
        return _SideResult(ChartRender(side, RenderStatus.ABSENT))
    job, outcomes = entry
    if job.blocked:
        return _SideResult(ChartRender(side, RenderStatus.FAILED, error=job.blocked))
    seconds = sum(o.seconds for o in outcomes)
    lookups = tuple(
        sorted(
            {
                f"{k.kind} {k.namespace + '/' if k.namespace else ''}{k.name}"
                for o in outcomes
                for k in o.lookups
            }
        )
    )
    failed = next((o for o in outcomes if not o.ok), None)
    if failed is not None:
        return _SideResult(
            ChartRender(
                side, RenderStatus.FAILED, error=failed.error, seconds=seconds, lookups=lookups
            )
        )
    try:
        renders = [_objects(job, o) for o in outcomes]
    except AftershockError as error:
        return _SideResult(
            ChartRender(side, RenderStatus.FAILED, error=error.line(), seconds=seconds)
        )
    unstable = find_unstable_paths(renders[0], renders[1]) if len(renders) == 2 else frozenset()
    render = ChartRender(side, RenderStatus.OK, len(renders[0]), seconds=seconds, lookups=lookups)
    return _SideResult(render, renders[0], unstable)


def chart_request(
    chart: Chart, root: Path, inputs: RenderInputs, settings: RenderSettings
) -> RenderRequest:
    """The request rendering `chart`, materialised at `root/<chart path>`, with one side's inputs."""
    return RenderRequest(
        chart_dir=str(root / chart.path),
        values=inputs.values,
        release_name=inputs.release_name or settings.release_name,
        namespace=inputs.namespace or settings.namespace,
        kube_version=inputs.kube_version or settings.kube_version,
        api_versions=inputs.api_versions,
        private=inputs.private,
    )


def rendered_objects(
    outcome: RenderOutcome, chart: Chart, charts: Mapping[str, Chart]
) -> tuple[RenderedObject, ...]:
    """The objects of one successful render, templates named by repository path (files under crds/ not
    included); MalformedInputError when a rendered document is not YAML."""
    documents = (
        outcome.documents if outcome.documents is not None else parse_documents(outcome.manifests)
    )
    objects = objects_from_documents(
        documents, chart=chart.path, namespace=outcome.request.namespace
    )
    return tuple(
        replace(o, template=template_repo_path(o.template, chart, charts)) for o in objects
    )


def _objects(job: _SideJob, outcome: RenderOutcome) -> tuple[RenderedObject, ...]:
    crds = _crd_objects(tuple(sorted(job.crds.items())), job.chart.path, outcome.request.namespace)
    return crds + rendered_objects(outcome, job.chart, job.charts)


@functools.lru_cache(maxsize=8)  # small: parsed CRDs can be large, and a service lives long
def _crd_objects(
    crds: tuple[tuple[str, str], ...], chart: str, namespace: str
) -> tuple[RenderedObject, ...]:
    """The objects of a chart's crds/ files, parsed once for every render that has them (scenarios,
    the second render of a volatile chart, an unchanged side): they can be large."""
    return parse_manifests(dict(crds), chart=chart, namespace=namespace)


def _review_chart(
    plan: ChartPlan,
    base_entry: tuple[_SideJob, list[RenderOutcome]] | None,
    head_entry: tuple[_SideJob, list[RenderOutcome]] | None,
) -> tuple[ChartReview, list[NotReviewed]]:
    base = _side_result(base_entry, Side.BASE)
    head = _side_result(head_entry, Side.HEAD)
    failed = [s for s in (base, head) if s.render.status is RenderStatus.FAILED]
    part = f"chart {plan.path}" + (f" installed by {plan.release}" if plan.release else "")
    if (
        plan.scenario != "default"
    ):  # say which scenario, or a chart's failing scenarios read as one line repeated
        part += f" in scenario {plan.scenario}"
    # Only Helm's own error rejects a scenario: a timeout, a memory or deadline breach says nothing of the chart.
    rejected = (
        len(failed) == 2
        and base.render.error == head.render.error
        and is_deterministic_error(base.render.error or "")
    )
    if plan.scenario != "default" and rejected:
        review = ChartReview(
            plan.path,
            plan.name,
            plan.affected,
            base.render,
            head.render,
            ChartOutcome.SCENARIO_INVALID,
            release=plan.release,
            scenario=plan.scenario,
            cluster=plan.cluster,
        )
        return review, []
    if failed:
        gaps = [NotReviewed(part, s.render.error or "render failed", s.render.side) for s in failed]
        if len(failed) == 2 and base.render.error == head.render.error:
            gaps = [
                NotReviewed(part, base.render.error or "render failed")
            ]  # said once, for both refs
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
        )
        return review, gaps
    unstable = base.unstable | head.unstable
    changes = diff_objects(base.objects, head.objects, unstable=unstable)
    outcome = ChartOutcome.CHANGED if changes else ChartOutcome.UNCHANGED
    review = ChartReview(
        plan.path,
        plan.name,
        plan.affected,
        base.render,
        head.render,
        outcome,
        changes,
        len(unstable),
        base_objects=base.objects,
        head_objects=head.objects,
        release=plan.release,
        scenario=plan.scenario,
        cluster=plan.cluster,
        base_inputs=plan.base_inputs,
        head_inputs=plan.head_inputs,
    )
    return review, []
