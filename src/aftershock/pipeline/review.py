"""The wiring of one review: ingest -> render -> diff, one way, with side effects kept at the edges.

An incremental review (`ReviewRequest.since`) still reviews base..head as a whole, but renders only
the charts affected by since..head; `ReviewResult.scope` says what it examined again, so the state
store carries the rest forward instead of calling it resolved.
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack, contextmanager
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

from aftershock.config import AftershockConfig
from aftershock.errors import ConfigError
from aftershock.ingest.affected import affected_charts
from aftershock.ingest.blobs import BlobReader
from aftershock.ingest.charts import discover_charts
from aftershock.ingest.git import GitRepository
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.ingest.units import units_for_file
from aftershock.ingest.values import diff_values, parse_values
from aftershock.model.change import FileChange
from aftershock.model.review import (
    ChartOutcome, ChartReview, NotReviewed, RefInfo, Review, ReviewOptions, ScenarioSummary, Side,
)
from aftershock.model.units import AffectedChart, Chart, Unit, UnitKind, ValuesKeyChange
from aftershock.render.cache import CachingRenderer, RenderCacheStore
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan, plan_renders
from aftershock.pipeline.charts import RenderSettings, SideInput, review_charts
from aftershock.ingest.manifests import PlainManifests, plain_manifests
from aftershock.diff.exercise import changed_fields, changed_runs, unexercised
from aftershock.model.contexts import ChartContext, ContextKind
from aftershock.pipeline.contexts import Identity, choose_contexts, failed_contexts
from aftershock.pipeline.installers import find_installers
from aftershock.pipeline.releases import (
    ReleaseFollowing, chart_source, follow_releases, manifest_sources, plain_lookups,
)
from aftershock.pipeline.judge import Judgement, judge, repository_files, review_config, source_texts
from aftershock.pipeline.scenarios import expand_scenarios
from aftershock.pipeline.override_trap import DEFAULT_MAX_PROBE_RENDERS, probe_override_traps
from aftershock.pipeline.provenance import DEFAULT_MAX_RENDERS, trace_provenance
from aftershock.pipeline.tests import collect_test_evidence
from aftershock.state.scope import ReviewScope
from aftershock.tempdirs import fast_temp_root


@dataclass(frozen=True)
class ReviewRequest:
    repo: Path
    head: str = "HEAD"
    base: str | None = None
    release_name: str | None = None  # given: overrides every chart's context; else the context's, or "release"
    namespace: str | None = None  # likewise; else "default"
    kube_version: str | None = None
    max_file_bytes: int = 5 * 2**20
    max_scenarios: int = 6  # per chart, the default scenario included
    run_tests: bool = True  # run the affected charts' helm-unittest suites at base and head
    max_provenance_renders: int = DEFAULT_MAX_RENDERS  # perturbation renders that settle field provenance
    max_override_renders: int = DEFAULT_MAX_PROBE_RENDERS  # override-trap probe renders, base and head together
    config_file: Path | None = None  # else `.aftershock.yaml` at the base ref
    since: str | None = None  # incremental: render only the charts affected by since..head (a commit)


@dataclass(frozen=True)
class ReviewResult:
    """The observed review and what the rules and verdicts made of it; `scope` is what it examined."""

    review: Review
    judgement: Judgement
    scope: ReviewScope | None = None


@dataclass(frozen=True)
class _Since:
    """What changed since..head of an incremental review: the charts it reaches, the paths, the commits."""

    charts: frozenset[str]
    paths: tuple[str, ...]
    commits: frozenset[str]


@dataclass(frozen=True)
class RenderCallbacks:
    """Progress hooks: the number of renders planned, then each outcome as it finishes."""

    planned: Callable[[int], None]
    rendered: Callable[[RenderOutcome], None]


@contextmanager
def open_renderer(
    kind: str, *, helm_binary: str = "helm", timeout_seconds: float = 60.0, workers: int | None = None,
    cache: RenderCacheStore | None = None,
) -> Iterator[Renderer]:
    """The embedded SDK renderer by default; a helm binary only when asked for; behind `cache` when given."""
    if kind == "sdk":
        from aftershock.render.sdk import SdkRenderer

        renderer: Renderer = SdkRenderer(workers=workers, timeout_seconds=timeout_seconds)
    elif kind == "helm":
        from aftershock.render.binary import HelmBinaryRenderer

        renderer = HelmBinaryRenderer(helm_path=helm_binary, timeout_seconds=timeout_seconds)
    else:
        raise ConfigError(f"unknown renderer {kind!r}", hint="use --renderer sdk or --renderer helm")
    if cache is not None:
        renderer = CachingRenderer(renderer, cache)
    try:
        yield renderer
    finally:
        renderer.close()


def run_review(request: ReviewRequest, renderer: Renderer, callbacks: RenderCallbacks | None = None) -> Review:
    """Review base..head of the repository: every layer, linked, with what could not be reviewed."""
    return review_change(request, renderer, callbacks).review


def review_change(request: ReviewRequest, renderer: Renderer, callbacks: RenderCallbacks | None = None) -> ReviewResult:
    """Observe base..head layer by layer, then judge it: findings and verdicts."""
    repo = GitRepository.open(request.repo)
    head = RefInfo(request.head, repo.resolve(request.head))
    base = base_ref(repo, request, head.sha)
    commits = repo.commits(base.sha, head.sha)
    files = repo.file_changes(base.sha, head.sha)
    with ExitStack() as stack:
        blobs = stack.enter_context(BlobReader(repo))
        base_tree = stack.enter_context(RefSnapshot.open(repo, base.sha, f"base {base.sha[:7]}", request.max_file_bytes, blobs))
        head_tree = stack.enter_context(RefSnapshot.open(repo, head.sha, f"head {head.sha[:7]}", request.max_file_bytes, blobs))
        for tree in (base_tree, head_tree):
            tree.check_safe()
        _check_sizes(files, base_tree, head_tree)
        config, config_source = review_config(request.config_file, base_tree)
        charts_base = discover_charts(base_tree, base_tree.label)
        charts_head = discover_charts(head_tree, head_tree.label)
        units = tuple((f.path, units_for_file(f, charts_base, charts_head, base_tree.text_or_none, head_tree.text_or_none)) for f in files)
        values_changes = _values_changes(units, files, base_tree, head_tree)
        affected = affected_charts(files, charts_base, charts_head)
        since = _since(repo, request.since, head.sha, charts_base, charts_head) if request.since else None
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="aftershock-", dir=fast_temp_root())))
        sides = (base_tree, charts_base), (head_tree, charts_head)
        chart_reviews, not_reviewed, scenarios, following, contexts = _render(
            request, config, sides, files, affected, since, renderer, work, callbacks,
        )
        options = ReviewOptions(_release_name(request), _namespace(request), renderer.name, renderer.version, request.kube_version)
        review = Review(
            repository=str(repo.root), base=base, head=head, options=options, commits=commits, files=files,
            charts=_all_charts(charts_base, charts_head), units=units,
            values_changes=values_changes + following.values_changes, affected=affected,
            chart_reviews=chart_reviews + following.reviews, not_reviewed=not_reviewed + following.not_reviewed,
            scenarios=scenarios, contexts=contexts,
            tests=collect_test_evidence(chart_reviews, work / "base", work / "head", renderer) if request.run_tests else None,
        )
        provenance = trace_provenance(review, work / "base", work / "head", renderer, max_renders=request.max_provenance_renders)
        review = replace(review, provenance=provenance)
        probes = probe_override_traps(review, work / "base", work / "head", renderer, request.max_override_renders)
        review = replace(review, override_probes=probes)
        # An incremental review reads the sources of the charts it renders again, not of all affected ones.
        read = review if since is None else replace(review, affected=tuple(a for a in affected if a.chart in since.charts))
        judgement = judge(review, config, config_source, source_texts(read, base_tree, head_tree),
                          repository_files(base_tree, head_tree))
    return ReviewResult(review, judgement, _scope(review, since))


def _render(
    request: ReviewRequest, config: AftershockConfig, sides: tuple[SideInput, SideInput], files: tuple[FileChange, ...],
    affected: tuple[AffectedChart, ...], since: _Since | None, renderer: Renderer, work: Path,
    callbacks: RenderCallbacks | None,
) -> tuple[tuple[ChartReview, ...], tuple[NotReviewed, ...], tuple[ScenarioSummary, ...], ReleaseFollowing, tuple[ChartContext, ...]]:
    """Render the affected charts (an incremental review: those the change since its start reaches),
    each in its render context, then follow the releases they and the plain manifests declare."""
    (base_tree, charts_base), (head_tree, charts_head) = sides
    changed = [p for f in files for p in (f.path, f.old_path) if p]
    to_render = affected if since is None else tuple(a for a in affected if a.chart in since.charts)
    settings = RenderSettings(_release_name(request), _namespace(request), request.kube_version)
    rendered = callbacks.rendered if callbacks else None
    plain = (plain_manifests(base_tree, charts_base, settings.namespace), plain_manifests(head_tree, charts_head, settings.namespace))
    plans = plan_renders(to_render, charts_base, charts_head)
    installers = find_installers({p.path for p in plans}, *sides, plain, config.releases.charts, renderer, settings, work, rendered)
    identity = Identity(request.release_name, request.namespace)
    plans, contexts = choose_contexts(plans, *sides, config, installers, renderer, settings, work, identity, rendered=rendered)
    fields = {p.path: changed_fields(files, p.path) for p in plans}
    expanded, scenarios = expand_scenarios(plans, *sides, changed, request.max_scenarios, config.scenarios, fields)
    chart_reviews, not_reviewed = review_charts(
        expanded, *sides, renderer, settings, work, planned=callbacks.planned if callbacks else None, rendered=rendered,
    )
    chart_reviews, not_reviewed, scenarios = _refill(
        request, config, sides, plans, changed, fields, (chart_reviews, not_reviewed, scenarios), renderer, settings, work, rendered,
    )
    not_reviewed = _context_failures(not_reviewed, contexts)
    follow_changed = changed if since is None else list(since.paths)
    covered = frozenset((c.chart, c.name.removeprefix("release:")) for c in contexts if c.kind is ContextKind.RELEASE and c.name)
    following = _follow(config, chart_reviews, sides, plain, follow_changed, renderer, settings, work, to_render, rendered, covered)
    trees = {"base": base_tree, "head": head_tree}
    runs = changed_runs(files, {a.chart for a in to_render}, lambda side, path: trees[side].text_or_none(path))
    not_reviewed += tuple(
        NotReviewed(f"template {run.path} lines {run.lines}", f"no scenario that ran rendered these {'added' if run.side == 'head' else 'removed'} lines "
                    "(their text is in no rendered object): the change there was not exercised", Side(run.side))
        for run in unexercised(runs, chart_reviews + following.reviews)
    )
    return chart_reviews, not_reviewed, scenarios, following, contexts


def _refill(
    request: ReviewRequest, config: AftershockConfig, sides: tuple[SideInput, SideInput], plans: tuple[ChartPlan, ...],
    changed: list[str], fields: dict[str, frozenset[str]],
    done: tuple[tuple[ChartReview, ...], tuple[NotReviewed, ...], tuple[ScenarioSummary, ...]], renderer: Renderer,
    settings: RenderSettings, work: Path, rendered: Callable[[RenderOutcome], None] | None,
) -> tuple[tuple[ChartReview, ...], tuple[NotReviewed, ...], tuple[ScenarioSummary, ...]]:
    """A scenario the chart rejects at base and head alike uses no budget: the next scenarios over the
    cap render in its place (one round)."""
    reviews, gaps, summaries = done
    invalid = Counter(r.chart for r in reviews if r.outcome is ChartOutcome.SCENARIO_INVALID and r.release is None)
    if not invalid:
        return done
    ran = {(r.chart, r.release, r.scenario) for r in reviews}
    more: list[ChartPlan] = []
    replaced: dict[str, ScenarioSummary] = {}
    for plan in plans:
        if plan.path in invalid and plan.release is None:
            cap = request.max_scenarios + invalid[plan.path]
            found, summary = expand_scenarios([plan], *sides, changed, cap, config.scenarios, fields)
            more += [p for p in found if (p.path, p.release, p.scenario) not in ran]
            replaced[plan.path] = summary[0]
    if not more:
        return done
    extra, extra_gaps = review_charts(more, *sides, renderer, settings, work / "refill", rendered=rendered)
    return reviews + extra, gaps + extra_gaps, tuple(replaced.get(s.chart, s) for s in summaries)


def _context_failures(gaps: tuple[NotReviewed, ...], contexts: tuple[ChartContext, ...]) -> tuple[NotReviewed, ...]:
    """A chart no context renders is not reviewed once, with one line per context tried, not per side."""
    failed = failed_contexts(contexts)
    result, said = [], set()
    for gap in gaps:
        chart = gap.part.removeprefix("chart ")
        if chart in failed:
            if chart not in said:
                said.add(chart)
                result.append(NotReviewed(gap.part, failed[chart], gap.side))
            continue
        result.append(gap)
    return tuple(result)


def _release_name(request: ReviewRequest) -> str:
    return request.release_name or "release"


def _namespace(request: ReviewRequest) -> str:
    return request.namespace or "default"


def _since(
    repo: GitRepository, since: str, head_sha: str, charts_base: tuple[Chart, ...], charts_head: tuple[Chart, ...],
) -> _Since:
    """The charts, paths and commits that since..head changes (nothing when `since` is the head)."""
    since_sha = repo.resolve(since)
    if since_sha == head_sha:
        return _Since(frozenset(), (), frozenset())
    files = repo.file_changes(since_sha, head_sha)
    commits = frozenset(repo.run("rev-list", f"{since_sha}..{head_sha}", "--").decode("ascii").split())
    charts = frozenset(a.chart for a in affected_charts(files, charts_base, charts_head))
    return _Since(charts, tuple(p for f in files for p in (f.path, f.old_path) if p), commits)


def _scope(review: Review, since: _Since | None) -> ReviewScope:
    """What the review examined: the whole change, or what since..head reaches; less the charts it could not render."""
    skipped = frozenset(r.chart for r in review.chart_reviews if r.outcome is ChartOutcome.NOT_REVIEWED)
    if since is None:
        return ReviewScope.whole_change(skipped)
    charts = since.charts | {r.chart for r in review.chart_reviews}
    return ReviewScope.only(charts, frozenset(since.paths), since.commits, skipped)


def _follow(
    config: AftershockConfig, chart_reviews: tuple[ChartReview, ...], sides: tuple[SideInput, SideInput],
    plain: tuple[PlainManifests, PlainManifests], changed: list[str], renderer: Renderer, settings: RenderSettings,
    work: Path, affected: tuple[AffectedChart, ...], rendered: Callable[[RenderOutcome], None] | None,
    covered: frozenset[tuple[str, str]],
) -> ReleaseFollowing:
    """Follow releases found in every scenario's renders (the context's included) and in plain manifests."""
    lookups = plain_lookups(*plain)
    manifests, unreadable = manifest_sources(*plain, set(changed))
    sources = [chart_source(r, lookups) for r in chart_reviews if r.outcome is not ChartOutcome.NOT_REVIEWED] + list(manifests)
    following = follow_releases(
        sources, lookups, *sides, renderer, settings, work, affected, rendered=rendered, chart_map=config.releases.charts,
        covered=covered,
    )
    return replace(following, not_reviewed=unreadable + following.not_reviewed)


def base_ref(repo: GitRepository, request: ReviewRequest, head_sha: str) -> RefInfo:
    """`--base` as given, else the merge-base of the head with the default branch."""
    if request.base is not None:
        return RefInfo(request.base, repo.resolve(request.base))
    branch = repo.default_branch()
    if branch is None:
        raise ConfigError(
            "no --base given and no default branch found", where=str(request.repo),
            hint="pass --base REF (e.g. --base main)",
        )
    return RefInfo(f"merge-base({branch}, {request.head})", repo.merge_base(branch, head_sha))


def _check_sizes(files: tuple[FileChange, ...], base_tree: RefSnapshot, head_tree: RefSnapshot) -> None:
    """A changed file over the size limit stops the review: it cannot be read safely."""
    for change in files:
        if change.status.value != "added":
            base_tree.check_size(change.old_path or change.path)
        if change.status.value != "deleted":
            head_tree.check_size(change.path)


def _values_changes(
    units: tuple[tuple[str, tuple[Unit, ...]], ...], files: tuple[FileChange, ...],
    base_tree: RefSnapshot, head_tree: RefSnapshot,
) -> tuple[ValuesKeyChange, ...]:
    by_path = {f.path: f for f in files}
    changes: list[ValuesKeyChange] = []
    for path, file_units in units:
        for unit in file_units:
            if unit.kind is UnitKind.VALUES_FILE and unit.path == path:
                old_path = by_path[path].old_path or path
                before = parse_values(base_tree.text_or_none(old_path), source=f"{old_path} at {base_tree.label}")
                after = parse_values(head_tree.text_or_none(path), source=f"{path} at {head_tree.label}")
                changes.extend(diff_values(before, after, chart=unit.chart, file=path))
    return tuple(changes)


def _all_charts(charts_base: tuple[Chart, ...], charts_head: tuple[Chart, ...]) -> tuple[Chart, ...]:
    head_paths = {c.path for c in charts_head}
    return charts_head + tuple(c for c in charts_base if c.path not in head_paths)
