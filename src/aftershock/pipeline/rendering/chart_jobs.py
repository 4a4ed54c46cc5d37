"""What each planned chart renders at one ref: the side's workspace materialised (local dependencies
and earlier commits' chart folders linked in), the render requests (two for a chart whose output may
vary between renders, with the side's cluster for one that calls `lookup`), the chart's crds/ files,
or why the chart cannot be rendered at all.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from aftershock.ingest.dependency_history import HISTORY_PREFIX
from aftershock.ingest.helmignore import parse_helmignore
from aftershock.ingest.lookups import has_lookup_call
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.change import Side
from aftershock.model.contexts import TemplateSelection
from aftershock.model.errors import AftershockError
from aftershock.model.review import DependencyGap
from aftershock.model.units import Chart
from aftershock.pipeline.context.missing_dependencies import (
    blocked_reason,
    left_out_folders,
    missing_dependencies,
    renders_without,
    without_dependencies,
)
from aftershock.render.external.dependency_archives import link_cached
from aftershock.render.interface import RenderRequest
from aftershock.render.lookup.cluster import ClusterSnapshot
from aftershock.render.plan import (
    TEMPLATE_SUFFIXES,
    ChartPlan,
    RenderInputs,
    dependency_closure,
    may_be_nondeterministic,
    template_repo_path,
)
from aftershock.render.workspaces.partial_charts import alias_names, partial_chart
from aftershock.render.workspaces.workspace import link_local_dependencies

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
    dependency_cache: Path | None = None  # the chart cache: locked dependencies' archives


@dataclass(frozen=True)
class SideJob:
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
    root: Path | None = None  # the side's workspace, where the chart is materialised
    # dependencies no render can be given, left out of the chart (the same at both refs: `same_dependencies`)
    dependencies_left_out: tuple[DependencyGap, ...] = ()
    source: str | None = None  # what the workspace is made from (`workspace_source`)


def without_templates(job: SideJob, left_out: Iterable[str]) -> SideJob:
    """The job rendering its chart without the templates `left_out` (Helm names) besides those its
    inputs leave out already: a copy of the chart; RenderError when it cannot be made."""
    selection = _selection(job)
    selection = replace(selection, left_out=tuple(sorted({*selection.left_out, *left_out})))
    return _with_selection(job, selection)


def same_dependencies(jobs: Sequence[SideJob]) -> tuple[SideJob, ...]:
    """The jobs with each plan's two sides leaving out the same dependencies (those missing at either
    ref): a dependency at hand at one ref only would show all of its objects as added or removed."""
    union: dict[str, dict[str, DependencyGap]] = {}
    for job in jobs:
        for gap in job.dependencies_left_out:
            union.setdefault(job.plan.id, {}).setdefault(gap.route, gap)
    out = []
    for job in jobs:
        wanted = union.get(job.plan.id, {})
        if job.blocked or {g.route for g in job.dependencies_left_out} == set(wanted):
            out.append(job)
            continue
        gaps = tuple(wanted[r] for r in sorted(wanted))
        folders = left_out_folders(job.chart, job.charts, gaps)
        crds = {
            path: text
            for path, text in job.crds.items()
            if not any(path.startswith(f"{folder}/") for folder in folders)
        }
        job = replace(job, dependencies_left_out=gaps, crds=crds)
        try:
            out.append(_with_selection(job, _selection(job)))
        except AftershockError as error:
            out.append(replace(job, blocked=error.line()))
    return tuple(out)


def _selection(job: SideJob) -> TemplateSelection:
    """What the job's renders leave out: its side's inputs' templates and its missing dependencies."""
    inputs = job.plan.base_inputs if job.side is Side.BASE else job.plan.head_inputs
    return without_dependencies(inputs.templates, job.dependencies_left_out)


def _with_selection(job: SideJob, selection: TemplateSelection) -> SideJob:
    root = job.root or Path()
    chart_dir = root / job.chart.path
    if not selection.whole:
        chart_dir = _partial(root, job.chart, selection, job.source)
    return replace(job, requests=tuple(replace(r, chart_dir=str(chart_dir)) for r in job.requests))


def workspace_source(tree: RefSnapshot, settings: RenderSettings) -> str:
    """What a side's workspace is made from: the snapshot, and the chart cache and earlier commits'
    chart folders linked in. Two workspaces made from the same hold the same chart folders."""
    return json.dumps([tree.identity, str(settings.dependency_cache), str(settings.history_root)])


def _partial(root: Path, chart: Chart, selection: TemplateSelection, source: str | None) -> Path:
    """The partial copy of the chart materialised under `root`. Copies made from the same source
    are shared by every workspace of it (a review materialises a side once per batch of renders,
    and asks for the same copies in each); without a source, by this workspace alone."""
    if source is None:
        return partial_chart(root / chart.path, selection, root.parent / f"{root.name}-partial")
    return partial_chart(
        root / chart.path, selection, root.parent / "partial", origin=f"{source}:{chart.path}"
    )


def template_aliases(job: SideJob, name: str) -> tuple[str, ...]:
    """Every Helm name the template `name` of the job's chart renders under (one per alias of its subchart)."""
    return alias_names((job.root or Path()) / job.chart.path, name)


def side_jobs(
    plans: Sequence[ChartPlan],
    side: Side,
    side_input: SideInput,
    settings: RenderSettings,
    dest: Path,
) -> tuple[SideJob, ...]:
    """The jobs of the plans whose chart is at `side`, its workspace materialised at `dest`."""
    tree, charts = side_input
    by_path = {c.path: c for c in charts}
    at_side = [(p, p.base if side is Side.BASE else p.head) for p in plans]
    present = [(p, c) for p, c in at_side if c is not None]
    prefixes = sorted({d for _, c in present for d in dependency_closure(c, by_path)})
    tree.materialize_once(prefixes, dest)
    _link_history(prefixes, settings.history_root, dest)
    return tuple(
        _side_job(plan, side, chart, by_path, tree, settings, dest) for plan, chart in present
    )


def chart_request(
    chart: Chart,
    root: Path,
    inputs: RenderInputs,
    settings: RenderSettings,
    source: str | None = None,
) -> RenderRequest:
    """The request rendering `chart`, materialised at `root/<chart path>`, with one side's inputs; a
    selection of its templates renders a partial copy of it (RenderError when it cannot be made),
    shared with other workspaces made from the same `source` (`workspace_source`)."""
    chart_dir = root / chart.path
    if not inputs.templates.whole:
        chart_dir = _partial(root, chart, inputs.templates, source)
    return RenderRequest(
        chart_dir=str(chart_dir),
        values=inputs.values,
        release_name=inputs.release_name or settings.release_name,
        namespace=inputs.namespace or settings.namespace,
        kube_version=inputs.kube_version or settings.kube_version,
        api_versions=inputs.api_versions,
        private=inputs.private,
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
) -> SideJob:
    gaps = missing_dependencies(chart, charts, settings.dependency_cache)
    source = workspace_source(tree, settings)
    job = SideJob(plan, side, chart, charts, root=dest, dependencies_left_out=gaps, source=source)
    if gaps and not renders_without(chart, charts, tree, gaps):
        return replace(job, blocked=blocked_reason(gaps))
    link_local_dependencies(chart, charts, dest)
    link_cached(chart, charts, settings.dependency_cache, dest)
    inputs = plan.base_inputs if side is Side.BASE else plan.head_inputs
    try:
        request = chart_request(
            chart, dest, replace(inputs, templates=_selection(job)), settings, source
        )
    except AftershockError as error:
        return replace(job, blocked=error.line())
    closure = dependency_closure(chart, charts)
    cluster = settings.clusters.get(side.value)
    if cluster is not None and any(_calls_lookup(tree, path) for path in closure):
        request = replace(request, cluster=cluster)
    twice = any(_varies(tree, path) for path in closure)
    return replace(
        job,
        requests=(request, request) if twice else (request,),
        crds=_crd_files(tree, closure, dest),
    )


def _calls_lookup(tree: RefSnapshot, chart_path: str) -> bool:
    """Whether a chart's templates call `lookup` in a template action (read once per ref): the word
    in prose or a comment does not give a render the cluster."""
    memo, key = tree.facts, f"calls-lookup:{chart_path}"
    if key not in memo:
        prefix = f"{chart_path}/templates" if chart_path else "templates"
        memo[key] = any(
            has_lookup_call(text)
            for text in tree.texts_under([prefix], suffixes=(".yaml", ".yml", ".tpl", ".txt"))
        )
    return memo[key]


def _varies(tree: RefSnapshot, chart_path: str) -> bool:
    """Whether a chart's own files call a function whose output differs between renders (read once
    per ref: every batch of a review asks again for the same charts)."""
    memo, key = tree.facts, f"varies:{chart_path}"
    if key not in memo:
        texts = tree.texts_under([chart_path], suffixes=TEMPLATE_SUFFIXES)
        memo[key] = may_be_nondeterministic(texts)
    return memo[key]


def _crd_files(tree: RefSnapshot, closure: Sequence[str], root: Path) -> dict[str, str]:
    """Helm installs the files under each chart's `crds/` as they are, untemplated; they are diffed too.
    Files the chart's `.helmignore` leaves out are not loaded by Helm, so not here either. A chart
    folder of an earlier commit (a locked version from history) is read from the workspace `root`,
    where it was linked: the ref's tree does not hold it."""
    found: dict[str, str] = {}
    for chart_path in closure:
        prefix = f"{chart_path}/" if chart_path else ""
        if chart_path.startswith(HISTORY_PREFIX + "/"):
            found |= _linked_crd_files(root, chart_path)
            continue
        ignore = parse_helmignore(tree.text_or_none(f"{prefix}.helmignore"))
        for path in tree.tree.paths_under(f"{prefix}crds"):
            if path.endswith((".yaml", ".yml", ".json")) and not ignore.ignores(
                path[len(prefix) :]
            ):
                text = tree.text_or_none(path)
                if text is not None:
                    found[path] = text
    return found


def _linked_crd_files(root: Path, chart_path: str) -> dict[str, str]:
    folder = root / chart_path
    ignore_file = folder / ".helmignore"
    ignore = parse_helmignore(
        ignore_file.read_text("utf-8", "replace") if ignore_file.is_file() else None
    )
    found: dict[str, str] = {}
    crds = folder / "crds"
    for file in sorted(crds.rglob("*")) if crds.is_dir() else ():
        relative = file.relative_to(folder).as_posix()
        if (
            file.is_file()
            and file.suffix in (".yaml", ".yml", ".json")
            and not ignore.ignores(relative)
        ):
            found[f"{chart_path}/{relative}"] = file.read_text("utf-8", "replace")
    return found


def reads_cluster(job: SideJob, helm_names: Iterable[str]) -> bool:
    """Whether one of the templates (Helm names) calls `lookup`, read as the side's workspace holds
    it: offline, what it looks up is a snapshot, so its failure may be the snapshot's."""
    if job.root is None:
        return False
    for name in helm_names:
        path = job.root / template_repo_path(name, job.chart, job.charts)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if has_lookup_call(text):
            return True
    return False
