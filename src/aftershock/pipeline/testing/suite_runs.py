"""The runs of a review's test step: every head chart's suites, then the base charts' with only the
tests some evidence reads (`evidence.base_needs`), through one renderer whose draws both share."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from aftershock.evidence.base_needs import base_not_needed, removals
from aftershock.model.errors import AftershockError
from aftershock.model.review import ChartReview
from aftershock.model.test_results import ChartResult, TestKey
from aftershock.pipeline.testing.suite_templates import chart_relative, template_paths
from aftershock.render.caching.shared import SharedDrawRenderer
from aftershock.render.interface import Renderer


class SuiteRuns:
    """The runs of one review's test step: head first, then base, through one renderer whose draws
    both share (a test with the same inputs at both refs is rendered once)."""

    def __init__(self, patterns: Mapping[str, tuple[str, ...]], root: Path) -> None:
        self.patterns, self.root = patterns, root
        self.results: dict[str, ChartResult] = {}  # by chart folder, as given to the runner
        self.errors: dict[str, str] = {}  # side -> why its run could not start
        self.seconds, self.renders, self.tests_rendered = 0.0, 0, 0
        self._shared: SharedDrawRenderer | None = None
        self._located: dict[str, tuple[ChartResult, dict[str, str]]] = {}

    def located(self, chart_dir: Path, root: Path) -> tuple[ChartResult, dict[str, str]] | None:
        """The run of the chart at `chart_dir` with chart-relative suite files, and each template
        it names -> its repository path (under `root`); None when the chart has no run. Computed
        once: the base plan reads the head's, and the evidence both sides'."""
        result = self.results.get(str(chart_dir))
        if result is None:
            return None
        if str(chart_dir) not in self._located:
            relative = chart_relative(result, chart_dir)
            self._located[str(chart_dir)] = (relative, template_paths(relative, chart_dir, root))
        return self._located[str(chart_dir)]

    @contextmanager
    def opened(self, renderer: Renderer | None, workers: int | None) -> Iterator[None]:
        if renderer is not None:
            self._shared = SharedDrawRenderer(renderer)
            yield
            return
        from aftershock.render.helm.sdk import SdkRenderer

        # the runner reads YAML itself
        with SdkRenderer(workers=workers, parse_documents=False) as own:
            self._shared = SharedDrawRenderer(own)
            yield

    def run(self, side: str, paths: list[str], skips: Mapping[str, frozenset[TestKey]]) -> None:
        if not paths:
            return
        assert self._shared is not None, "run inside opened()"
        from aftershock.testrun.runner import run_suites  # loaded by a review that runs tests

        merged = self._shared.merged
        try:
            run = run_suites(
                paths,
                self._shared,
                update_snapshots=False,
                chart_patterns=self.patterns,
                root=self.root,
                charts_apart=True,
                skip_tests=skips,
            )
        except AftershockError as exc:
            self.errors[side] = exc.line()
            return
        self.results.update({c.path: c for c in run.charts})
        self.seconds += run.seconds
        self.renders += run.stats.renders - (self._shared.merged - merged)
        self.tests_rendered += run.stats.tests_rendered


def base_skips(
    reviews: Sequence[ChartReview],
    dirs: Mapping[tuple[str, str], Path | None],
    runs: SuiteRuns,
    head_root: Path,
) -> dict[str, frozenset[TestKey]]:
    """Per base chart folder, the tests whose base outcome no evidence needs (`evidence.base_needs`)."""
    skips = {}
    for review in reviews:
        base_dir, head_dir = dirs[(review.chart, "base")], dirs[(review.chart, "head")]
        located = runs.located(head_dir, head_root) if head_dir is not None else None
        if base_dir is None or head_dir is None or located is None:
            continue
        head, templates = located
        edited = edited_suites(head, base_dir, head_dir)
        skips[str(base_dir)] = base_not_needed(head, removals(review), templates, edited)
    return skips


def edited_suites(head: ChartResult, base_dir: Path, head_dir: Path) -> frozenset[str]:
    """The head's suite files (chart-relative) that base lacks or holds with other bytes."""
    edited = set()
    for file in {s.file for s in head.suites if s.file}:
        try:
            same = (base_dir / file).read_bytes() == (head_dir / file).read_bytes()
        except OSError:
            same = False
        if not same:
            edited.add(file)
    return frozenset(edited)
