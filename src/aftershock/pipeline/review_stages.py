"""The stages of one review, each a named step taking and returning a typed value: open the change,
find what it reaches, render it, observe the rest (tests, provenance, probes), judge.

`pipeline.review` runs them in order; each is timed under its name (`pipeline.stage_clock`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from aftershock.config.settings import AftershockConfig
from aftershock.ingest.affected import affected_charts
from aftershock.ingest.charts import discover_charts
from aftershock.ingest.conventions import commit_conventions
from aftershock.ingest.repository.blobs import BlobReader
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.suite_files import SuitePatterns
from aftershock.ingest.units import units_for_file
from aftershock.judgement.result import ReviewResult
from aftershock.model.change import Commit, FileChange
from aftershock.model.errors import ConfigError
from aftershock.model.review import NotReviewed, RefInfo, Review, ReviewOptions
from aftershock.model.units import AffectedChart, Chart, Unit, ValuesKeyChange
from aftershock.pipeline.builds.covered_gaps import covered_gaps
from aftershock.pipeline.builds.gitops import GitOpsReview, review_gitops
from aftershock.pipeline.context.contexts import Identity
from aftershock.pipeline.incremental import SinceChanges, changes_since, examined_scope
from aftershock.pipeline.judge import judge, repository_files, review_config, source_texts
from aftershock.pipeline.judge_beside import judged_beside
from aftershock.pipeline.observation.budget import observe_within_budget
from aftershock.pipeline.rendering.chart_history import DependencyHistory
from aftershock.pipeline.rendering.chart_jobs import RenderSettings
from aftershock.pipeline.rendering.ignored_fields import ignored_patterns, with_ignored_fields
from aftershock.pipeline.rendering.stage import RenderStage, render_stage
from aftershock.pipeline.rendering.stage_input import StageInput
from aftershock.pipeline.request import ReviewRequest, late_steps, namespace_of, release_name_of
from aftershock.pipeline.stage_clock import StageClock
from aftershock.pipeline.testing.tests import review_suite_patterns
from aftershock.pipeline.values_changes import values_changes
from aftershock.render.budget import RenderBudget
from aftershock.render.external.chart_archives import ChartCache
from aftershock.render.external.dependency_archives import with_cached
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.kustomize import shared_builder
from aftershock.render.workspaces.tempdirs import fast_temp_root
from aftershock.safety.secret_taint import secret_taint, test_expectations

Units = tuple[tuple[str, tuple[Unit, ...]], ...]


@dataclass(frozen=True)
class OpenedChange:
    """The two refs of the change, read: commits, files, both trees, the configuration at base."""

    repo: GitRepository
    base: RefInfo
    head: RefInfo
    commits: tuple[Commit, ...]
    files: tuple[FileChange, ...]
    base_tree: RefSnapshot
    head_tree: RefSnapshot
    blobs: BlobReader
    config: AftershockConfig
    config_source: str
    chart_cache: ChartCache
    work: Path  # the review's workspace folder


@dataclass(frozen=True)
class ChangeReach:
    """The charts at both refs, the units of each changed file, and what the change reaches."""

    charts_base: tuple[Chart, ...]
    charts_head: tuple[Chart, ...]
    units: Units
    values_changes: tuple[ValuesKeyChange, ...]
    unread_values: tuple[NotReviewed, ...]
    affected: tuple[AffectedChart, ...]
    since: SinceChanges | None
    history: DependencyHistory
    suites: Mapping[str, SuitePatterns]  # chart -> where its suites are


def open_change(request: ReviewRequest, stack: ExitStack) -> OpenedChange:
    """Both refs resolved and opened (closed with `stack`), checked for unsafe entries."""
    repo = GitRepository.open(request.repo)
    head = RefInfo(request.head, repo.resolve(request.head))
    base = base_ref(repo, request, head.sha)
    commits = repo.commits(base.sha, head.sha)
    files = repo.file_changes(base.sha, head.sha)
    blobs = stack.enter_context(BlobReader(repo))
    label = f"base {base.sha[:7]}"
    base_tree = stack.enter_context(
        RefSnapshot.open(repo, base.sha, label, request.max_file_bytes, blobs)
    )
    # the head is the base with the changed paths listed again: both share almost every entry
    changed = {p for f in files for p in (f.path, f.old_path) if p}
    head_tree = RefSnapshot.changed_from(base_tree, repo, head.sha, f"head {head.sha[:7]}", changed)
    for tree in (base_tree, head_tree):
        tree.check_safe()
    config, config_source = review_config(request.config_file, base_tree)
    work = Path(
        stack.enter_context(tempfile.TemporaryDirectory(prefix="aftershock-", dir=fast_temp_root()))
    )
    return OpenedChange(
        repo, base, head, commits, files, base_tree, head_tree, blobs,
        config, config_source, chart_cache(request, config), work,
    )  # fmt: skip


def find_reach(request: ReviewRequest, opened: OpenedChange) -> ChangeReach:
    """The charts at both refs, what each changed file is, and the charts the change reaches, with
    their dependencies resolved (from history only for those: a version history pins, reached by no
    changed file, changes no chart's reach; the render stage asks again for charts it reaches later)."""
    base_tree, head_tree = opened.base_tree, opened.head_tree
    charts_base, charts_head = (
        discover_charts(tree, tree.label, opened.config.dependencies)
        for tree in (base_tree, head_tree)
    )
    units = tuple(
        (
            f.path,
            units_for_file(
                f, charts_base, charts_head, base_tree.text_or_none, head_tree.text_or_none
            ),
        )
        for f in opened.files
    )
    changes, unread = values_changes(units, opened.files, base_tree, head_tree)
    affected = affected_charts(opened.files, charts_base, charts_head)
    history = DependencyHistory(
        opened.repo,
        (opened.base.sha, opened.head.sha),
        opened.work / "history",
        request.max_file_bytes,
        opened.blobs,
    )
    charts_base, charts_head = (
        with_cached(charts, opened.chart_cache.folder)
        for charts in history.resolve((charts_base, charts_head), {a.chart for a in affected})
    )
    since = (
        changes_since(opened.repo, request.since, opened.head.sha, charts_base, charts_head)
        if request.since
        else None
    )
    suites = review_suite_patterns(opened.config, base_tree, affected)
    return ChangeReach(
        charts_base, charts_head, units, changes, unread, affected, since, history, suites
    )


def gitops_inputs(request: ReviewRequest, opened: OpenedChange, reach: ChangeReach) -> GitOpsReview:
    """Flux Kustomizations, kustomizations and plain manifests: objects the repository holds unrendered."""
    return review_gitops(
        opened.files,
        (opened.base_tree, reach.charts_base),
        (opened.head_tree, reach.charts_head),
        reach.units,
        namespace_of(request),
        shared_builder(),
        opened.work,
        opened.config.sources,
    )


def render_change(
    request: ReviewRequest,
    opened: OpenedChange,
    reach: ChangeReach,
    gitops: GitOpsReview,
    renderer: Renderer,
    progress: tuple[Callable[[RenderOutcome], None] | None, Callable[[int], None] | None],
) -> RenderStage:
    """Every reached chart rendered at both refs in its contexts and scenarios, and what that reaches."""
    since = reach.since
    changed = tuple(p for f in opened.files for p in (f.path, f.old_path) if p)
    rendered, planned = progress
    return render_stage(
        StageInput(
            opened.config,
            ((opened.base_tree, reach.charts_base), (opened.head_tree, reach.charts_head)),
            opened.files,
            reach.affected
            if since is None
            else tuple(a for a in reach.affected if a.chart in since.charts),
            changed if since is None else since.paths,
            RenderSettings(
                release_name_of(request),
                namespace_of(request),
                request.kube_version,
                history_root=opened.work / "history",
                dependency_cache=opened.chart_cache.folder,
            ),
            Identity(request.release_name, request.namespace),
            request.max_scenarios,
            opened.work,
            rendered,
            planned,
            gitops.sources,
            opened.chart_cache,
            reach.suites,
            reach.history,
        ),
        renderer,
    )


def observed_review(
    request: ReviewRequest,
    opened: OpenedChange,
    reach: ChangeReach,
    gitops: GitOpsReview,
    stage: RenderStage,
    renderer: Renderer,
) -> Review:
    """The layers observed: commits to rendered objects, and what could not be reviewed."""
    ignored = ignored_patterns(opened.config)
    following = stage.following
    return Review(
        repository=str(opened.repo.root),
        base=opened.base,
        head=opened.head,
        options=ReviewOptions(
            release_name_of(request),
            namespace_of(request),
            renderer.name,
            renderer.version,
            request.kube_version,
        ),
        commits=opened.commits,
        files=opened.files,
        charts=_all_charts(reach.charts_base, reach.charts_head),
        units=gitops.units,
        values_changes=reach.values_changes + following.values_changes,
        affected=reach.affected + stage.reached,
        chart_reviews=with_ignored_fields(
            stage.reviews + gitops.built + following.reviews + gitops.plain, ignored
        ),
        ignored_fields=ignored,
        not_reviewed=reach.unread_values
        + stage.not_reviewed
        + covered_gaps(gitops, stage.reviews + following.reviews, opened.files)
        + following.not_reviewed,
        scenarios=stage.scenarios,
        changed_lines=stage.lines,
        contexts=stage.contexts,
        base_charts=reach.charts_base,
        conventions=commit_conventions(opened.repo, opened.base.sha, opened.base_tree.text_or_none),
    )


def observe_late(
    request: ReviewRequest,
    opened: OpenedChange,
    reach: ChangeReach,
    review: Review,
    stage: RenderStage,
    renderer: Renderer,
    budget: RenderBudget,
    clock: StageClock,
) -> Review:
    """The tests, provenance and override probes of the rendered charts, within the budget."""
    return observe_within_budget(
        review,
        stage.reviews,
        late_steps(request, reach.suites),
        opened.work,
        renderer,
        budget,
        clock,
    )


def judged(
    opened: OpenedChange,
    reach: ChangeReach,
    review: Review,
    budget: RenderBudget,
    beside: Callable[[Review], None] | None = None,
) -> ReviewResult:
    """Findings and verdicts of the observed review; a large one judged in a child process while
    `beside` runs here with the review as judged (`pipeline.judge_beside`)."""
    since = reach.since
    # An incremental review reads the sources of the charts it renders again, not of all affected ones.
    read = (
        review
        if since is None
        else replace(review, affected=tuple(a for a in review.affected if a.chart in since.charts))
    )
    sources = source_texts(read, opened.base_tree, opened.head_tree)
    review = replace(review, secret_texts=test_expectations(review, (sources.base, sources.head)))
    own = repository_files(opened.base_tree, opened.head_tree)
    judging = partial(
        judge, review, opened.config, opened.config_source, sources, own, budget.review_deadline
    )
    # what both the judge and the document hide, found before they part
    secret_taint(review).scrubber  # noqa: B018
    late = partial(beside, review) if beside is not None else None
    judgement = judged_beside(judging, late, opened.work, len(review.chart_reviews))
    return ReviewResult(review, judgement, examined_scope(review, since))


def chart_cache(request: ReviewRequest, config: AftershockConfig) -> ChartCache:
    """`--chart-cache`, else `chart_cache:` of the configuration (relative to the repository folder)."""
    folder = request.chart_cache or (
        request.repo / config.chart_cache if config.chart_cache else None
    )
    return ChartCache(folder, request.fetch_charts)


def base_ref(repo: GitRepository, request: ReviewRequest, head_sha: str) -> RefInfo:
    """`--base` as given, else the merge-base of the head with the default branch."""
    if request.base is not None:
        return RefInfo(request.base, repo.resolve(request.base))
    branch = repo.default_branch()
    if branch is None:
        raise ConfigError(
            "no --base given and no default branch found",
            where=str(request.repo),
            hint="pass --base REF (e.g. --base main)",
        )
    return RefInfo(f"merge-base({branch}, {request.head})", repo.merge_base(branch, head_sha))


def _all_charts(
    charts_base: tuple[Chart, ...], charts_head: tuple[Chart, ...]
) -> tuple[Chart, ...]:
    head_paths = {c.path for c in charts_head}
    return charts_head + tuple(c for c in charts_base if c.path not in head_paths)
