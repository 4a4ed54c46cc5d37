"""Tracing the changed template lines through the renders of a chart that holds or includes them.

After a batch of plans rendered, each side of a plan that rendered and whose chart (its dependencies
included) holds changed lines at that side is rendered again from a copy that marks those lines
(render/lookup/line_trace.py); the review's side then records which of them were traced and which Helm
ran. Traces go in rounds: first one side per changed template and side (default scenarios first),
then up to `LATER_ROUNDS` more per round only for lines no trace ran yet, so a library template reached by
many charts costs a few renders, not a second render of every chart. A trace that fails (the copy cannot be made, or Helm rejects it) traces
nothing: the literal text of the lines is then the evidence (diff/exercise.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from aftershock.model.change import Side
from aftershock.model.errors import AftershockError
from aftershock.model.review import ChartReview, RenderStatus
from aftershock.pipeline.rendering.chart_jobs import SideJob
from aftershock.render.interface import Renderer, RenderOutcome, RenderRequest
from aftershock.render.lookup.line_trace import TRACE_KIND, trace_cluster, traced_chart
from aftershock.render.plan import template_repo_path

# (side, repository path) -> the changed lines of that template at that side
WantedLines = Mapping[tuple[Side, str], frozenset[int]]
Entry = tuple[SideJob, list[RenderOutcome]]
LATER_ROUNDS = (32, 128)  # sides traced per round after the first, while lines stay unrun
_MAX_DEPTH = 8  # subchart nesting followed when looking for a chart's templates


@dataclass(frozen=True)
class _Candidate:
    index: int  # of the review
    side: Side
    request: RenderRequest
    files: Mapping[str, frozenset[int]]  # path relative to the chart folder -> lines
    paths: Mapping[str, str]  # that relative path -> repository path


def trace_reviews(
    reviews: Sequence[ChartReview],
    entries: Sequence[Mapping[Side, Entry]],
    wanted: WantedLines,
    renderer: Renderer,
    copies: Path,
) -> list[ChartReview]:
    """`reviews` (with `entries`, each review's job and renders at each side) whose sides record the
    changed lines they traced and ran."""
    candidates = sorted(
        _candidates(reviews, entries, wanted),
        key=lambda c: (reviews[c.index].scenario != "default", c.index, c.side.value),
    )
    pending = {key: set(lines) for key, lines in wanted.items()}
    traced: dict[tuple[int, Side], tuple[set[tuple[str, int]], set[tuple[str, int]]]] = {}
    for size in (None, *LATER_ROUNDS):
        chosen = (
            _covering(candidates, pending)
            if size is None
            else [c for c in candidates if _useful(c, pending)][:size]
        )
        if not chosen:
            break
        candidates = [c for c in candidates if c not in chosen]
        for candidate, marked, ran in _trace(chosen, renderer, copies):
            traced[(candidate.index, candidate.side)] = (marked, ran)
            for path, line in ran:
                pending.get((candidate.side, path), set()).discard(line)
    return [_recorded(review, index, traced) for index, review in enumerate(reviews)]


def _covering(
    candidates: Sequence[_Candidate], pending: Mapping[tuple[Side, str], set[int]]
) -> list[_Candidate]:
    """The first round: for each template and side with changed lines, the first candidate that
    holds it (default scenarios first), so that every changed template is traced at least once."""
    chosen: list[_Candidate] = []
    covered: set[tuple[Side, str]] = set()
    for candidate in candidates:
        keys = {(candidate.side, path) for path in candidate.paths.values()} & set(pending)
        if keys - covered:
            chosen.append(candidate)
            covered |= keys
    return chosen


def _useful(candidate: _Candidate, pending: Mapping[tuple[Side, str], set[int]]) -> bool:
    return any(
        pending.get((candidate.side, candidate.paths[rel]), set()) & lines
        for rel, lines in candidate.files.items()
    )


def _candidates(
    reviews: Sequence[ChartReview], entries: Sequence[Mapping[Side, Entry]], wanted: WantedLines
) -> Iterator[_Candidate]:
    walked: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}  # a chart's scenarios share it
    for index, (review, sides) in enumerate(zip(reviews, entries, strict=True)):
        for side, (job, outcomes) in sides.items():
            render = review.base if side is Side.BASE else review.head
            if render.status is not RenderStatus.OK or not job.requests or not outcomes:
                continue
            request = job.requests[0]
            key = (request.chart_dir, job.chart.path)
            if key not in walked:
                walked[key] = tuple(_template_files(job, Path(request.chart_dir)))
            paths = {rel: repo for rel, repo in walked[key] if (side, repo) in wanted}
            if paths:
                files = {rel: wanted[(side, repo)] for rel, repo in paths.items()}
                yield _Candidate(index, side, request, files, paths)


def _template_files(job: SideJob, chart_dir: Path) -> Iterator[tuple[str, str]]:
    """(path relative to the chart folder, repository path) of each template file of the chart and
    of the subcharts Helm finds under its `charts/` folder."""
    stack = [(chart_dir, "", 0)]
    while stack:
        folder, prefix, depth = stack.pop()
        templates = folder / "templates"
        if templates.is_dir():
            for file in sorted(templates.rglob("*")):
                if file.is_file():
                    rel = prefix + file.relative_to(folder).as_posix()
                    yield rel, template_repo_path(f"{job.chart.name}/{rel}", job.chart, job.charts)
        subcharts = folder / "charts"
        if depth < _MAX_DEPTH and subcharts.is_dir():
            for sub in sorted(subcharts.iterdir()):
                if sub.is_dir():
                    stack.append((sub, f"{prefix}charts/{sub.name}/", depth + 1))


def _trace(
    chosen: Sequence[_Candidate], renderer: Renderer, copies: Path
) -> Iterator[tuple[_Candidate, set[tuple[str, int]], set[tuple[str, int]]]]:
    """Each candidate traced: the lines it marked and those Helm ran; none when its trace failed."""
    made: list[tuple[_Candidate, RenderRequest, dict[str, tuple[str, tuple[int, ...]]]]] = []
    for candidate in chosen:
        try:
            folder, markers = traced_chart(
                Path(candidate.request.chart_dir), candidate.files, copies
            )
        except AftershockError:
            continue
        cluster = trace_cluster(candidate.request.cluster)
        made.append(
            (candidate, replace(candidate.request, chart_dir=str(folder), cluster=cluster), markers)
        )
    outcomes = renderer.render_many([request for _, request, _ in made])
    for (candidate, _, markers), outcome in zip(made, outcomes, strict=True):
        if not outcome.ok:
            continue
        marked = {(candidate.paths[rel], line) for rel, lines in markers.values() for line in lines}
        ran_markers = {key.name for key in outcome.lookups if key.kind == TRACE_KIND}
        ran = {
            (candidate.paths[rel], line)
            for name, (rel, lines) in markers.items()
            if name in ran_markers
            for line in lines
        }
        yield candidate, marked, ran


def _recorded(
    review: ChartReview,
    index: int,
    traced: Mapping[tuple[int, Side], tuple[set[tuple[str, int]], set[tuple[str, int]]]],
) -> ChartReview:
    for side in (Side.BASE, Side.HEAD):
        found = traced.get((index, side))
        if found is not None:
            render = review.base if side is Side.BASE else review.head
            render = replace(
                render, lines_traced=tuple(sorted(found[0])), lines_run=tuple(sorted(found[1]))
            )
            review = (
                replace(review, base=render) if side is Side.BASE else replace(review, head=render)
            )
    return review
