"""Wiring of the test-evidence stage: run the affected charts' helm-unittest suites at head and base.

Each chart's suites are the files its patterns name (`ingest.suite_files`: configuration, CI, or
`tests/*_test.yaml`). The suites run on the chart workspaces the review materialised (`<root>/<chart path>`, tests
included, local dependencies linked): every head chart in one `run_suites` call (one batch to the
renderer), then the base charts with only the tests some evidence reads (`evidence.base_needs`;
`base_tests="all"` runs them all). A test whose inputs are the same at base and head is rendered
once for both (one draw, even of random values). Each chart at each ref is planned
as its own helm-unittest run, so that the Kubernetes version one test sets reaches no test of
another chart or ref (upstream carries it over within one run). Snapshots are never updated.
Only the default scenario of a chart installed by no release is tested: the suites set their own values.
The comparison and the guard map are pure (`aftershock.evidence`); this module reads the
workspaces (which charts have suites, where a template lives) and runs Helm.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path

from aftershock.config.settings import AftershockConfig
from aftershock.evidence.chart import chart_evidence
from aftershock.evidence.guards import SideRun
from aftershock.evidence.outcomes import summarize
from aftershock.helmtest.charts import TEST_FILE_PATTERN, load_chart
from aftershock.helmtest.filepatterns import suite_paths
from aftershock.ingest.charts import discover_charts
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.suite_files import SuitePatterns, ci_files, suite_patterns
from aftershock.model.errors import AftershockError
from aftershock.model.review import ChartReview
from aftershock.model.tests import BaseTests, RunStatus, SideTests, SuiteSearch, TestEvidence
from aftershock.model.units import AffectedChart
from aftershock.pipeline.testing.suite_runs import SuiteRuns, base_skips
from aftershock.render.interface import Renderer
from aftershock.render.plan import dependency_closure
from aftershock.render.workspaces.tempdirs import fast_temp_root
from aftershock.render.workspaces.workspace import link_local_dependencies

DEFAULT_MAX_FILE_BYTES = 5 * 2**20
_DEFAULT = SuitePatterns((TEST_FILE_PATTERN,), "default")


def collect_test_evidence(
    chart_reviews: Sequence[ChartReview],
    base_root: Path,
    head_root: Path,
    renderer: Renderer | None = None,
    *,
    workers: int | None = None,
    patterns: Mapping[str, SuitePatterns] | None = None,
    base_tests: BaseTests = "needed",
) -> TestEvidence:
    """Run the suites of every affected chart at head, then at base, and compare them with the review.

    `base_root`/`head_root` hold the materialised charts at `<root>/<chart path>`. Without a
    `renderer`, one `SdkRenderer(workers=workers, parse_documents=False)` is opened and closed here.
    `patterns` gives each chart's suite file patterns (`ingest.suite_files`); default `tests/*_test.yaml`.
    `base_tests="needed"` runs at base only the tests some evidence reads (`evidence.base_needs`);
    "all" runs every one, so that newly passing tests are found too.
    """
    reviews = _tested_reviews(chart_reviews)
    found = {r.chart: (patterns or {}).get(r.chart, _DEFAULT) for r in reviews}
    dirs = {
        (r.chart, side): _chart_dir(root, r.chart)
        for r in reviews
        for side, root in (("base", base_root), ("head", head_root))
    }
    own = {str(d): found[chart].patterns for (chart, _), d in dirs.items() if d is not None}
    # the suites read files only inside the workspace of both refs (aftershock.safety.sandbox)
    runs = SuiteRuns(own, Path(os.path.commonpath([base_root, head_root])))
    runnable = _runnable(dirs, found)
    try:
        with runs.opened(renderer, workers):
            runs.run("head", runnable["head"], {})
            skips = base_skips(reviews, dirs, runs, head_root) if base_tests == "needed" else {}
            runs.run("base", runnable["base"], skips)
    except AftershockError as exc:  # the renderer could not start
        runs.errors = {"base": exc.line(), "head": exc.line()}
    charts, untested = [], []
    for review in reviews:
        sides = [
            _side(
                review, dirs[(review.chart, side)], root, side, runs, found[review.chart].patterns
            )
            for side, root in (("base", base_root), ("head", head_root))
        ]
        (base_run, base_side), (head_run, head_side) = sides
        if {base_side.status, head_side.status} <= {RunStatus.ABSENT, RunStatus.NO_TESTS}:
            untested.append(review.chart)
            continue
        charts.append(chart_evidence(review, base_run, head_run, base_side, head_side))
    return TestEvidence(
        charts=tuple(charts),
        untested=tuple(untested),
        seconds=runs.seconds,
        searched=tuple(
            SuiteSearch(chart, found[chart].patterns, found[chart].source)
            for chart in sorted(found)
        ),
        renders=runs.renders,
        tests_rendered=runs.tests_rendered,
    )


def collect_test_evidence_for_refs(
    repo: Path,
    base_sha: str,
    head_sha: str,
    chart_reviews: Sequence[ChartReview],
    renderer: Renderer | None = None,
    *,
    workers: int | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    patterns: Mapping[str, SuitePatterns] | None = None,
    base_tests: BaseTests = "needed",
) -> TestEvidence:
    """`collect_test_evidence` on workspaces materialised here from two commits (for callers without
    the review's workspace): the reviewed charts and their local dependencies, as the review lays them out."""
    git = GitRepository.open(repo)
    charts = [r.chart for r in _tested_reviews(chart_reviews)]
    with ExitStack() as stack:
        work = Path(
            stack.enter_context(
                tempfile.TemporaryDirectory(prefix="aftershock-tests-", dir=fast_temp_root())
            )
        )
        for sha, side in ((base_sha, "base"), (head_sha, "head")):
            tree = stack.enter_context(
                RefSnapshot.open(git, sha, f"{side} {sha[:7]}", max_file_bytes)
            )
            tree.check_safe()
            materialize_charts(tree, charts, work / side)
        return collect_test_evidence(
            chart_reviews,
            work / "base",
            work / "head",
            renderer,
            workers=workers,
            patterns=patterns,
            base_tests=base_tests,
        )


def review_suite_patterns(
    config: AftershockConfig, tree: RefSnapshot, affected: Iterable[AffectedChart]
) -> dict[str, SuitePatterns]:
    """Each affected chart's suite patterns, from the configuration or the CI files at this ref
    (the base, as the configuration: a change cannot choose which suites review it)."""
    texts = {
        path: text
        for path in ci_files(tree.file_paths())
        if (text := tree.text_or_none(path)) is not None
    }
    return suite_patterns(texts, config.tests.files, (a.chart for a in affected))


def materialize_charts(tree: RefSnapshot, chart_paths: Iterable[str], dest: Path) -> None:
    """Write the charts present at this ref, with their local dependencies, under `dest` (as the review does)."""
    by_path = {c.path: c for c in discover_charts(tree, tree.label)}
    present = [by_path[p] for p in dict.fromkeys(chart_paths) if p in by_path]
    prefixes = sorted({d for chart in present for d in dependency_closure(chart, by_path)})
    dest.mkdir(parents=True, exist_ok=True)
    tree.materialize(prefixes, dest)
    for chart in present:
        link_local_dependencies(chart, by_path, dest)


def _tested_reviews(chart_reviews: Sequence[ChartReview]) -> list[ChartReview]:
    """The review of each chart installed by no release whose changes the guard map reads, once per
    chart: the default scenario's, or where the change shows in no object there, the first scenario
    where it does (a toggle's, a test's values), so the fields no test asserts there are named."""
    chosen: dict[str, ChartReview] = {}
    for review in chart_reviews:
        if review.scenario == "default" and review.release is None:
            chosen.setdefault(review.chart, review)
    for review in chart_reviews:
        shown = chosen.get(review.chart)
        if review.release is None and shown is not None and not shown.changes and review.changes:
            chosen[review.chart] = review
    return [chosen[chart] for chart in sorted(chosen)]


def _chart_dir(root: Path, chart: str) -> Path | None:
    folder = (root / chart) if chart else root
    return folder if (folder / "Chart.yaml").is_file() else None


def _runnable(
    dirs: Mapping[tuple[str, str], Path | None], found: Mapping[str, SuitePatterns]
) -> dict[str, list[str]]:
    """Per side, the chart folders that hold a suite."""
    return {
        side: sorted(
            str(d)
            for (chart, at), d in dirs.items()
            if at == side and d is not None and _has_suites(d, found[chart].patterns)
        )
        for side in ("base", "head")
    }


def _has_suites(chart_dir: Path, patterns: tuple[str, ...] = (TEST_FILE_PATTERN,)) -> bool:
    """Whether helm-unittest would find a suite (subcharts' included); a chart it cannot load has
    suites when its own folder holds one, so that its error is reported, not skipped."""
    if patterns == (TEST_FILE_PATTERN,) and not any(chart_dir.glob(f"**/{TEST_FILE_PATTERN}")):
        return False  # no suite file anywhere in the chart or its subcharts: nothing to load
    try:
        return bool(load_chart(chart_dir, patterns).suite_files)
    except AftershockError:
        return bool(suite_paths(chart_dir, patterns))


def _side(
    review: ChartReview,
    chart_dir: Path | None,
    root: Path,
    side: str,
    runs: SuiteRuns,
    patterns: tuple[str, ...],
) -> tuple[SideRun, SideTests]:
    objects = review.base_objects if side == "base" else review.head_objects
    if chart_dir is None:
        return SideRun(None, objects, {}), SideTests(RunStatus.ABSENT)
    located = runs.located(chart_dir, root)
    if located is None:
        error = runs.errors.get(side)
        status = (
            SideTests(RunStatus.ERRORED, error=error)
            if error and _has_suites(chart_dir, patterns)
            else SideTests(RunStatus.NO_TESTS)
        )
        return SideRun(None, objects, {}), status
    result, templates = located
    return SideRun(result, objects, templates), summarize(result)
