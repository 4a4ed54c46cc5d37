"""Wiring of the test-evidence stage: run the affected charts' helm-unittest suites at base and head.

Each chart's suites are the files its patterns name (`ingest.suite_files`: configuration, CI, or
`tests/*_test.yaml`). The suites run on the chart workspaces the review materialised (`<root>/<chart path>`, tests
included, local dependencies linked), all charts of both refs in one `run_suites` call so their
distinct renders go to the renderer in one batch, and a test whose inputs are the same at base and
head is rendered once for both (one draw, even of random values). Each chart at each ref is planned
as its own helm-unittest run, so that the Kubernetes version one test sets reaches no test of
another chart or ref (upstream carries it over within one run). Snapshots are never updated.
Only the default scenario of a chart installed by no release is tested: the suites set their own values.
The comparison and the guard map are pure (`aftershock.evidence`); this module reads the
workspaces (which charts have suites, where a template lives) and runs Helm.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from aftershock import yamlio
from aftershock.config import AftershockConfig
from aftershock.errors import AftershockError
from aftershock.evidence.chart import chart_evidence
from aftershock.evidence.guards import SideRun
from aftershock.evidence.outcomes import summarize
from aftershock.helmtest.charts import TEST_FILE_PATTERN, load_chart
from aftershock.helmtest.filepatterns import suite_paths
from aftershock.helmtest.results import ChartResult, RunResult
from aftershock.helmtest.runner import run_suites
from aftershock.ingest.charts import discover_charts
from aftershock.ingest.git import GitRepository
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.ingest.suite_files import SuitePatterns, ci_files, suite_patterns
from aftershock.model.review import ChartReview
from aftershock.model.tests import RunStatus, SideTests, SuiteSearch, TestEvidence
from aftershock.model.units import AffectedChart
from aftershock.render.interface import Renderer
from aftershock.render.plan import dependency_closure
from aftershock.render.shared import SharedDrawRenderer
from aftershock.render.workspace import link_local_dependencies
from aftershock.tempdirs import fast_temp_root

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
) -> TestEvidence:
    """Run the suites of every affected chart at base and head and compare them with the review.

    `base_root`/`head_root` hold the materialised charts at `<root>/<chart path>`. Without a
    `renderer`, one `SdkRenderer(workers=workers, parse_documents=False)` is opened and closed here.
    `patterns` gives each chart's suite file patterns (`ingest.suite_files`); default `tests/*_test.yaml`.
    """
    reviews = _tested_reviews(chart_reviews)
    found = {r.chart: (patterns or {}).get(r.chart, _DEFAULT) for r in reviews}
    dirs = {
        (r.chart, side): _chart_dir(root, r.chart)
        for r in reviews
        for side, root in (("base", base_root), ("head", head_root))
    }
    own = {str(d): found[chart].patterns for (chart, _), d in dirs.items() if d is not None}
    runnable = sorted(
        {
            str(d)
            for (chart, _), d in dirs.items()
            if d is not None and _has_suites(d, found[chart].patterns)
        }
    )
    # the suites read files only inside the workspace of both refs (aftershock.sandbox)
    run, error = _run(
        runnable, renderer, workers, own, Path(os.path.commonpath([base_root, head_root]))
    )
    results = {c.path: c for c in run.charts} if run else {}
    charts, untested = [], []
    for review in reviews:
        sides = [
            _side(
                review,
                dirs[(review.chart, side)],
                root,
                side,
                results,
                error,
                found[review.chart].patterns,
            )
            for side, root in (("base", base_root), ("head", head_root))
        ]
        (base_run, base_tests), (head_run, head_tests) = sides
        if {base_tests.status, head_tests.status} <= {RunStatus.ABSENT, RunStatus.NO_TESTS}:
            untested.append(review.chart)
            continue
        charts.append(chart_evidence(review, base_run, head_run, base_tests, head_tests))
    stats = run.stats if run else None
    return TestEvidence(
        charts=tuple(charts),
        untested=tuple(untested),
        seconds=run.seconds if run else 0.0,
        searched=tuple(
            SuiteSearch(chart, found[chart].patterns, found[chart].source)
            for chart in sorted(found)
        ),
        renders=stats.renders if stats else 0,
        tests_rendered=stats.tests_rendered if stats else 0,
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
    """The default-scenario review of each chart installed by no release, once per chart."""
    chosen: dict[str, ChartReview] = {}
    for review in chart_reviews:
        if review.scenario == "default" and review.release is None:
            chosen.setdefault(review.chart, review)
    return [chosen[chart] for chart in sorted(chosen)]


def _chart_dir(root: Path, chart: str) -> Path | None:
    folder = (root / chart) if chart else root
    return folder if (folder / "Chart.yaml").is_file() else None


def _has_suites(chart_dir: Path, patterns: tuple[str, ...] = (TEST_FILE_PATTERN,)) -> bool:
    """Whether helm-unittest would find a suite (subcharts' included); a chart it cannot load has
    suites when its own folder holds one, so that its error is reported, not skipped."""
    if patterns == (TEST_FILE_PATTERN,) and not any(chart_dir.glob(f"**/{TEST_FILE_PATTERN}")):
        return False  # no suite file anywhere in the chart or its subcharts: nothing to load
    try:
        return bool(load_chart(chart_dir, patterns).suite_files)
    except AftershockError:
        return bool(suite_paths(chart_dir, patterns))


@contextmanager
def _opened(renderer: Renderer | None, workers: int | None) -> Iterator[Renderer]:
    if renderer is not None:
        yield renderer
        return
    from aftershock.render.sdk import SdkRenderer

    with SdkRenderer(workers=workers, parse_documents=False) as own:  # the runner reads YAML itself
        yield own


def _run(
    paths: list[str],
    renderer: Renderer | None,
    workers: int | None,
    patterns: Mapping[str, tuple[str, ...]],
    root: Path,
) -> tuple[RunResult | None, str | None]:
    if not paths:
        return None, None
    try:
        with _opened(renderer, workers) as backend:
            # A test whose inputs are the same at base and head is rendered once for both sides.
            shared = SharedDrawRenderer(backend)
            run = run_suites(
                paths,
                shared,
                update_snapshots=False,
                chart_patterns=patterns,
                root=root,
                charts_apart=True,
            )
    except AftershockError as exc:
        return None, exc.line()
    return replace(run, stats=replace(run.stats, renders=run.stats.renders - shared.merged)), None


def _side(
    review: ChartReview,
    chart_dir: Path | None,
    root: Path,
    side: str,
    results: dict[str, ChartResult],
    error: str | None,
    patterns: tuple[str, ...],
) -> tuple[SideRun, SideTests]:
    objects = review.base_objects if side == "base" else review.head_objects
    if chart_dir is None:
        return SideRun(None, objects, {}), SideTests(RunStatus.ABSENT)
    result = results.get(str(chart_dir))
    if result is None:
        status = (
            SideTests(RunStatus.ERRORED, error=error)
            if error and _has_suites(chart_dir, patterns)
            else SideTests(RunStatus.NO_TESTS)
        )
        return SideRun(None, objects, {}), status
    result = _chart_relative(result, chart_dir)
    return SideRun(result, objects, _template_paths(result, chart_dir, root)), summarize(result)


def _chart_relative(result: ChartResult, chart_dir: Path) -> ChartResult:
    """Suite files named relative to the chart folder (the runner names them relative to the cwd)."""
    base = os.path.abspath(chart_dir)
    suites = tuple(
        replace(s, file=Path(os.path.relpath(os.path.abspath(s.file), base)).as_posix())
        if s.file
        else s
        for s in result.suites
    )
    return replace(result, suites=suites)


def _template_paths(result: ChartResult, chart_dir: Path, root: Path) -> dict[str, str]:
    """Each template the run checked (`name/templates/x.yaml`) -> its repository path, or left out."""
    names = {
        c.template for s in result.suites for t in s.tests for a in t.assertions for c in a.checked
    }
    found = {}
    for name in sorted(names):
        path = _template_path(name, chart_dir, root)
        if path is not None:
            found[name] = path
    return found


def _template_path(name: str, chart_dir: Path, root: Path) -> str | None:
    parts = name.split("/")[1:]
    current = chart_dir
    while len(parts) >= 2 and parts[0] == "charts":
        sub = _subchart_dir(current, parts[1])
        if sub is None:
            return None
        current, parts = sub, parts[2:]
    folder, top = Path(os.path.realpath(current)), Path(os.path.realpath(root))
    if not parts or not folder.is_relative_to(top):
        return None
    return folder.relative_to(top).joinpath(*parts).as_posix().removeprefix("./")


def _subchart_dir(chart_dir: Path, name: str) -> Path | None:
    """The folder of the subchart Helm names `name`: charts/<name>, an aliased dependency, or a
    folder under charts/ whose Chart.yaml has that name."""
    direct = chart_dir / "charts" / name
    if (direct / "Chart.yaml").is_file():
        return direct
    metadata = _chart_yaml(chart_dir)
    for dependency in metadata.get("dependencies") or []:
        if (
            isinstance(dependency, dict)
            and dependency.get("alias") == name
            and isinstance(dependency.get("name"), str)
        ):
            aliased = chart_dir / "charts" / str(dependency["name"])
            if (aliased / "Chart.yaml").is_file():
                return aliased
    candidates = (
        sorted((chart_dir / "charts").glob("*/Chart.yaml"))
        if (chart_dir / "charts").is_dir()
        else []
    )
    return next((c.parent for c in candidates if _chart_yaml(c.parent).get("name") == name), None)


def _chart_yaml(chart_dir: Path) -> dict[str, Any]:
    try:
        loaded = yamlio.load_one(
            (chart_dir / "Chart.yaml").read_text(encoding="utf-8"), source=str(chart_dir)
        )
    except (OSError, UnicodeDecodeError, AftershockError):
        return {}
    return loaded if isinstance(loaded, dict) else {}
