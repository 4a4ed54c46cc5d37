"""Where a review's time goes: one instrumented pass that times the pipeline's stages.

The public functions the pipeline calls (and `BlobReader._read_window`, where every blob read
happens) are wrapped, for the duration of one review, in timers that keep each stage's time
exclusive of the stages nested in it (blob reads inside chart discovery count as blob reads),
and also inclusive of them.
Only the main thread is timed; the render threads of `render_many` are timed as one stage.
What no stage covers is reported as "other" (the pipeline's glue and the model objects).
"""

from __future__ import annotations

import functools
import inspect
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from aftershock.ingest.blobs import BlobReader
from aftershock.ingest.git import GitRepository
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.ingest.tree import Tree
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline import chart_jobs as pipeline_chart_jobs
from aftershock.pipeline import charts as pipeline_charts
from aftershock.pipeline import review as pipeline_review
from aftershock.pipeline import side_results as pipeline_side_results
from aftershock.render.interface import ProgressCallback, Renderer, RenderOutcome, RenderRequest

GIT = "git (rev-parse, log, diff)"
LISTING = "tree listing (ls-tree)"
BLOBS = "blob reads (cat-file)"
DISCOVERY = "chart discovery"
MATERIALISE = "materialise workspace"
TEXTS = "template texts (texts_under)"
RENDER = "render (render_many)"
PARSE = "parse manifests"
DIFF = "diff objects"
OTHER = "other (glue, model)"


@dataclass(frozen=True)
class _Target:
    owner: Any  # a class or a module
    name: str
    label: str
    drain: bool = False  # the function returns a generator: time its consumption


TARGETS = (
    _Target(GitRepository, "open", GIT),
    _Target(GitRepository, "resolve", GIT),
    _Target(GitRepository, "commits", GIT),
    _Target(GitRepository, "file_changes", GIT),
    _Target(Tree, "load", LISTING),
    _Target(BlobReader, "_read_window", BLOBS),
    _Target(RefSnapshot, "check_safe", "symlink check"),
    _Target(pipeline_review, "discover_charts", DISCOVERY),
    _Target(pipeline_review, "units_for_file", "units"),
    _Target(pipeline_review, "_values_changes", "values diff"),
    _Target(pipeline_review, "affected_charts", "affected + plan"),
    _Target(pipeline_review, "plan_renders", "affected + plan"),
    _Target(pipeline_review, "expand_scenarios", "values scenarios"),
    _Target(pipeline_review, "follow_releases", "release following"),
    _Target(RefSnapshot, "materialize", MATERIALISE),
    _Target(pipeline_chart_jobs, "link_local_dependencies", "dependency links"),
    _Target(
        pipeline_chart_jobs, "_side_job", "per-chart job set-up"
    ),  # links, texts, nondeterminism scan
    _Target(RefSnapshot, "texts_under", TEXTS, drain=True),
    _Target(pipeline_chart_jobs, "may_be_nondeterministic", "nondeterminism regex"),
    _Target(pipeline_side_results, "parse_documents", PARSE),
    _Target(pipeline_side_results, "objects_from_documents", PARSE),
    _Target(pipeline_side_results, "template_repo_path", PARSE),
    _Target(pipeline_side_results, "find_unstable_paths", DIFF),
    _Target(pipeline_charts, "diff_objects", DIFF),
    _Target(pipeline_review, "trace_provenance", "provenance"),
    _Target(pipeline_review, "probe_override_traps", "override-trap probes"),
    _Target(pipeline_review, "source_texts", "rules' source texts"),
    _Target(pipeline_review, "judge", "rules and verdicts"),
    _Target(pipeline_review, "collect_test_evidence", "test evidence"),
    _Target(pipeline_review, "plain_manifests", "release following"),
)


class StageClock:
    """Exclusive and inclusive wall time and call counts per stage label, for calls on the main thread."""

    def __init__(self) -> None:
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.inclusive: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self._nested: list[float] = []  # per open call: time spent in timed calls inside it

    def wrap(
        self, label: str, func: Callable[..., Any], *, drain: bool = False
    ) -> Callable[..., Any]:
        @functools.wraps(func)
        def timed(*args: Any, **kwargs: Any) -> Any:  # instrumentation forwards any call as is
            if threading.current_thread() is not threading.main_thread():
                return func(*args, **kwargs)
            self._nested.append(0.0)
            started = time.perf_counter()
            try:
                result = func(*args, **kwargs)
                return iter(list(result)) if drain else result
            finally:
                self._record(label, time.perf_counter() - started)

        return timed

    def _record(self, label: str, elapsed: float) -> None:
        nested = self._nested.pop()
        self.seconds[label] += elapsed - nested
        self.inclusive[label] += elapsed
        self.calls[label] += 1
        if self._nested:
            self._nested[-1] += elapsed


@contextmanager
def instrumented(clock: StageClock) -> Iterator[list[str]]:
    """Wrap every target in `clock`'s timers; restore the originals on exit.

    Yields the targets that do not exist (the pipeline changed): their time falls into "other".
    """
    missing = []
    with ExitStack() as restore:
        for target in TARGETS:
            original = inspect.getattr_static(target.owner, target.name, None)
            if original is None:
                missing.append(f"{getattr(target.owner, '__name__', target.owner)}.{target.name}")
                continue
            if isinstance(original, classmethod):
                replacement: Any = classmethod(
                    clock.wrap(target.label, original.__func__, drain=target.drain)
                )
            else:
                replacement = clock.wrap(target.label, original, drain=target.drain)
            setattr(target.owner, target.name, replacement)
            restore.callback(setattr, target.owner, target.name, original)
        yield missing


class TimedRenderer:
    """A Renderer that times `render_many` of the renderer it wraps as the render stage."""

    def __init__(self, inner: Renderer, clock: StageClock) -> None:
        self.name = inner.name
        self._inner = inner
        self._render_many = clock.wrap(RENDER, inner.render_many)

    @property
    def version(self) -> str:
        return self._inner.version

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline=None,
    ) -> list[RenderOutcome]:
        outcomes: list[RenderOutcome] = self._render_many(requests, progress, deadline=deadline)
        return outcomes

    def close(self) -> None:
        self._inner.close()


def stage_breakdown(renderer: Renderer, request: ReviewRequest) -> dict[str, Any]:
    """Run one review with every stage timed: total and main-thread CPU seconds, and each stage."""
    clock = StageClock()
    timed_renderer = TimedRenderer(renderer, clock)
    with instrumented(clock) as missing:
        cpu_started, started = time.process_time(), time.perf_counter()
        run_review(request, timed_renderer)
        total, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    stages = {
        label: {
            "seconds": seconds,
            "inclusive_seconds": clock.inclusive[label],
            "calls": clock.calls[label],
        }
        for label, seconds in clock.seconds.items()
    }
    rest = max(0.0, total - sum(clock.seconds.values()))
    stages[OTHER] = {"seconds": rest, "inclusive_seconds": rest, "calls": 1}
    for entry in stages.values():
        entry["share"] = entry["seconds"] / total if total else 0.0
    ordered = dict(sorted(stages.items(), key=lambda item: -item[1]["seconds"]))
    return {
        "total_seconds": total,
        "main_process_cpu_seconds": cpu,
        "stages": ordered,
        "untimed_functions": missing,
    }
