"""The wiring of one review: ingest -> render -> diff, one way, with side effects kept at the edges.

Every render of a review is held to its budget (`render.budget`): the deadline for the whole review
and the count of renders it may schedule; what they cut is *not reviewed*, and the review still ends.

An incremental review (`ReviewRequest.since`) renders only the charts since..head affects;
`ReviewResult.scope` says what it examined again (the rest is carried: `pipeline.incremental`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from aftershock.config.settings import AftershockConfig
from aftershock.diff.values_keys import diff_values, parse_values
from aftershock.ingest.affected import affected_charts
from aftershock.ingest.blobs import BlobReader
from aftershock.ingest.charts import discover_charts
from aftershock.ingest.conventions import commit_conventions
from aftershock.ingest.dependency_history import (
    deepen_from_history,
    materialize_history,
    resolve_from_history,
)
from aftershock.ingest.git import GitRepository
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.ingest.suite_files import SuitePatterns
from aftershock.ingest.units import units_for_file
from aftershock.judgement.result import ReviewResult
from aftershock.model.change import FileChange, Side
from aftershock.model.errors import ConfigError, MalformedInputError, OverBoundError
from aftershock.model.review import NotReviewed, RefInfo, Review, ReviewOptions
from aftershock.model.tests import BaseTests
from aftershock.model.units import Chart, Unit, UnitKind, ValuesKeyChange
from aftershock.pipeline.budget import LateSteps, observe_within_budget
from aftershock.pipeline.chart_jobs import RenderSettings
from aftershock.pipeline.collector import review_collector
from aftershock.pipeline.contexts import Identity
from aftershock.pipeline.covered_gaps import covered_gaps
from aftershock.pipeline.gitops import review_gitops
from aftershock.pipeline.ignored_fields import ignored_patterns, with_ignored_fields
from aftershock.pipeline.incremental import changes_since, examined_scope
from aftershock.pipeline.judge import judge, repository_files, review_config, source_texts
from aftershock.pipeline.override_trap import DEFAULT_MAX_PROBE_RENDERS
from aftershock.pipeline.provenance import DEFAULT_MAX_RENDERS
from aftershock.pipeline.stage import render_stage
from aftershock.pipeline.stage_input import StageInput
from aftershock.pipeline.tests import review_suite_patterns
from aftershock.render.budget import (
    DEFAULT_DEADLINE_SECONDS,
    DEFAULT_MAX_REVIEW_RENDERS,
    BudgetedRenderer,
    RenderBudget,
)
from aftershock.render.cache import CachingRenderer, RenderCacheStore
from aftershock.render.chart_archives import ChartCache
from aftershock.render.dependency_archives import with_cached
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.kustomize import shared_builder
from aftershock.render.limits import DEFAULT_MAX_MEMORY_MIB
from aftershock.render.tempdirs import fast_temp_root
from aftershock.safety.secret_taint import test_expectations


@dataclass(frozen=True)
class ReviewRequest:
    repo: Path
    head: str = "HEAD"
    base: str | None = None
    release_name: str | None = (
        None  # given: overrides every chart's context; else the context's, or "release"
    )
    namespace: str | None = None  # likewise; else "default"
    kube_version: str | None = None
    max_file_bytes: int = 5 * 2**20
    max_scenarios: int = 6  # per chart, the default scenario included
    run_tests: bool = True  # run the affected charts' helm-unittest suites at base and head
    base_tests: BaseTests = "needed"  # "all": every base outcome, for newly passing tests too
    max_provenance_renders: int = (
        DEFAULT_MAX_RENDERS  # perturbation renders that settle field provenance
    )
    max_override_renders: int = (
        DEFAULT_MAX_PROBE_RENDERS  # override-trap probe renders, base and head together
    )
    config_file: Path | None = None  # else `.aftershock.yaml` at the base ref
    since: str | None = (
        None  # incremental: render only the charts affected by since..head (a commit)
    )
    deadline_seconds: float = (
        DEFAULT_DEADLINE_SECONDS  # for the whole review; what it cuts is not reviewed
    )
    max_renders: int = (
        DEFAULT_MAX_REVIEW_RENDERS  # renders the review may schedule, tests and probes included
    )
    chart_cache: Path | None = (
        None  # external chart archives; else `chart_cache:` of the configuration
    )
    fetch_charts: bool = False  # download a missing external chart archive over HTTP


@dataclass(frozen=True)
class RenderCallbacks:
    """Progress hooks: the number of renders planned, then each outcome as it finishes."""

    planned: Callable[[int], None]
    rendered: Callable[[RenderOutcome], None]


@contextmanager
def open_renderer(
    kind: str,
    *,
    helm_binary: str = "helm",
    timeout_seconds: float = 60.0,
    workers: int | None = None,
    cache: RenderCacheStore | None = None,
    max_memory_mib: int = DEFAULT_MAX_MEMORY_MIB,
) -> Iterator[Renderer]:
    """The embedded SDK renderer by default; a helm binary only when asked for; behind `cache` when given."""
    if kind == "sdk":
        from aftershock.render.sdk import SdkRenderer

        renderer: Renderer = SdkRenderer(
            workers=workers, timeout_seconds=timeout_seconds, max_memory_mib=max_memory_mib
        )
    elif kind == "helm":
        from aftershock.render.binary import HelmBinaryRenderer

        renderer = HelmBinaryRenderer(
            helm_path=helm_binary, timeout_seconds=timeout_seconds, max_memory_mib=max_memory_mib
        )
    else:
        raise ConfigError(
            f"unknown renderer {kind!r}", hint="use --renderer sdk or --renderer helm"
        )
    if cache is not None:
        renderer = CachingRenderer(renderer, cache)
    try:
        yield renderer
    finally:
        renderer.close()


def run_review(
    request: ReviewRequest, renderer: Renderer, callbacks: RenderCallbacks | None = None
) -> Review:
    """Review base..head of the repository: every layer, linked, with what could not be reviewed."""
    return review_change(request, renderer, callbacks).review


def review_change(
    request: ReviewRequest, renderer: Renderer, callbacks: RenderCallbacks | None = None
) -> ReviewResult:
    """Observe base..head layer by layer, then judge it: findings and verdicts. The garbage collector
    keeps the review's thresholds meanwhile (`collector`)."""
    with review_collector():
        return _review_change(request, renderer, callbacks)


def _review_change(
    request: ReviewRequest, renderer: Renderer, callbacks: RenderCallbacks | None
) -> ReviewResult:
    budget = RenderBudget.starting_now(request.deadline_seconds, request.max_renders)
    renderer = BudgetedRenderer(renderer, budget)
    repo = GitRepository.open(request.repo)
    head = RefInfo(request.head, repo.resolve(request.head))
    base = base_ref(repo, request, head.sha)
    commits = repo.commits(base.sha, head.sha)
    files = repo.file_changes(base.sha, head.sha)
    with ExitStack() as stack:
        blobs = stack.enter_context(BlobReader(repo))
        base_tree = stack.enter_context(
            RefSnapshot.open(repo, base.sha, f"base {base.sha[:7]}", request.max_file_bytes, blobs)
        )
        head_tree = stack.enter_context(
            RefSnapshot.open(repo, head.sha, f"head {head.sha[:7]}", request.max_file_bytes, blobs)
        )
        for tree in (base_tree, head_tree):
            tree.check_safe()
        config, config_source = review_config(request.config_file, base_tree)
        cache = chart_cache(request, config)
        charts_base, charts_head = (
            with_cached(
                resolve_from_history(
                    repo,
                    sha,
                    discover_charts(tree, tree.label, config.dependencies),
                    blobs,
                    deep=False,
                ),
                cache.folder,
            )
            for sha, tree in ((base.sha, base_tree), (head.sha, head_tree))
        )
        units = tuple(
            (
                f.path,
                units_for_file(
                    f, charts_base, charts_head, base_tree.text_or_none, head_tree.text_or_none
                ),
            )
            for f in files
        )
        values_changes, unread_values = _values_changes(units, files, base_tree, head_tree)
        affected = affected_charts(files, charts_base, charts_head)
        # the whole history only for what the review renders: a version history pins, reached by no
        # changed file, changes no chart's reach
        reached = {a.chart for a in affected}
        charts_base, charts_head = (
            deepen_from_history(repo, sha, charts, reached, blobs)
            for sha, charts in ((base.sha, charts_base), (head.sha, charts_head))
        )
        since = (
            changes_since(repo, request.since, head.sha, charts_base, charts_head)
            if request.since
            else None
        )
        work = Path(
            stack.enter_context(
                tempfile.TemporaryDirectory(prefix="aftershock-", dir=fast_temp_root())
            )
        )
        sides = (base_tree, charts_base), (head_tree, charts_head)
        for charts in (charts_base, charts_head):
            materialize_history(repo, charts, work / "history", request.max_file_bytes)
        suites = review_suite_patterns(config, base_tree, affected)
        # Flux Kustomizations, kustomizations and plain manifests: objects the repository holds unrendered.
        gitops = review_gitops(
            files, *sides, units, _namespace(request), shared_builder(), work, config.sources
        )
        units = gitops.units
        changed = tuple(p for f in files for p in (f.path, f.old_path) if p)
        stage = render_stage(
            StageInput(
                config,
                sides,
                files,
                affected
                if since is None
                else tuple(a for a in affected if a.chart in since.charts),
                changed if since is None else since.paths,
                RenderSettings(
                    _release_name(request),
                    _namespace(request),
                    request.kube_version,
                    history_root=work / "history",
                    dependency_cache=cache.folder,
                ),
                Identity(request.release_name, request.namespace),
                request.max_scenarios,
                work,
                callbacks.rendered if callbacks else None,
                callbacks.planned if callbacks else None,
                gitops.sources,
                cache,
                suites,
            ),
            renderer,
        )
        chart_reviews, not_reviewed, scenarios, following, contexts = (
            stage.reviews,
            stage.not_reviewed,
            stage.scenarios,
            stage.following,
            stage.contexts,
        )
        affected += stage.reached
        options = ReviewOptions(
            _release_name(request),
            _namespace(request),
            renderer.name,
            renderer.version,
            request.kube_version,
        )
        ignored = ignored_patterns(config)
        review = Review(
            repository=str(repo.root),
            base=base,
            head=head,
            options=options,
            commits=commits,
            files=files,
            charts=_all_charts(charts_base, charts_head),
            units=units,
            values_changes=values_changes + following.values_changes,
            affected=affected,
            chart_reviews=with_ignored_fields(
                chart_reviews + gitops.built + following.reviews + gitops.plain, ignored
            ),
            ignored_fields=ignored,
            not_reviewed=unread_values
            + not_reviewed
            + covered_gaps(gitops, chart_reviews + following.reviews, files)
            + following.not_reviewed,
            scenarios=scenarios,
            changed_lines=stage.lines,
            contexts=contexts,
            base_charts=charts_base,
            conventions=commit_conventions(repo, base.sha, base_tree.text_or_none),
        )
        review = observe_within_budget(
            review, chart_reviews, _late_steps(request, suites), work, renderer, budget
        )
        # An incremental review reads the sources of the charts it renders again, not of all affected ones.
        read = (
            review
            if since is None
            else replace(review, affected=tuple(a for a in affected if a.chart in since.charts))
        )
        sources = source_texts(read, base_tree, head_tree)
        review = replace(
            review, secret_texts=test_expectations(review, (sources.base, sources.head))
        )
        own = repository_files(base_tree, head_tree)
        judgement = judge(review, config, config_source, sources, own, budget.review_deadline)
    return ReviewResult(review, judgement, examined_scope(review, since))


def _release_name(request: ReviewRequest) -> str:
    return request.release_name or "release"


def _namespace(request: ReviewRequest) -> str:
    return request.namespace or "default"


def _late_steps(request: ReviewRequest, suites: Mapping[str, SuitePatterns]) -> LateSteps:
    return LateSteps(
        request.run_tests,
        request.max_provenance_renders,
        request.max_override_renders,
        suites,
        request.base_tests,
    )


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


def _values_changes(
    units: tuple[tuple[str, tuple[Unit, ...]], ...],
    files: tuple[FileChange, ...],
    base_tree: RefSnapshot,
    head_tree: RefSnapshot,
) -> tuple[tuple[ValuesKeyChange, ...], tuple[NotReviewed, ...]]:
    """The key changes of each changed values file; one over a bound (an alias bomb) or that is not a
    values document (a pull request that breaks it) is not reviewed, and the review goes on: the
    renders that read it say what it breaks."""
    by_path = {f.path: f for f in files}
    changes: list[ValuesKeyChange] = []
    gaps: list[NotReviewed] = []
    for path, file_units in units:
        for unit in file_units:
            if unit.kind is UnitKind.VALUES_FILE and unit.path == path:
                old_path = by_path[path].old_path or path
                side = Side.BASE
                try:
                    before = parse_values(
                        base_tree.text_or_none(old_path), source=f"{old_path} at {base_tree.label}"
                    )
                    side = Side.HEAD
                    after = parse_values(
                        head_tree.text_or_none(path), source=f"{path} at {head_tree.label}"
                    )
                except (OverBoundError, MalformedInputError) as error:
                    gaps.append(NotReviewed(f"values file {path}", error.line(), side))
                    continue
                changes.extend(diff_values(before, after, chart=unit.chart, file=path))
    return tuple(changes), tuple(gaps)


def _all_charts(
    charts_base: tuple[Chart, ...], charts_head: tuple[Chart, ...]
) -> tuple[Chart, ...]:
    head_paths = {c.path for c in charts_head}
    return charts_head + tuple(c for c in charts_base if c.path not in head_paths)
