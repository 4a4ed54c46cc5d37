"""Which changed template lines some render of the review exercised, and which none did.

A change inside a block that no scenario enters (`{{ if .Values.hub.enabled }}` left off) renders
identically everywhere, and "renders identically" would then say nothing. So every run of changed
lines of a chart template (added lines at head, removed lines at base) is checked against the
renders of the charts holding or including it. A line is *exercised* when a traced render ran it
(Helm executed a marker at its end: render/lookup/line_trace.py, pipeline/rendering/line_traces.py); a run no trace
marked (its trace failed) is exercised when one of its lines' literal text (the words outside
`{{ }}` actions) appears whole in an object those renders produced. A run with no literal words
and no trace is not exercised: nothing observed that Helm ran it. A `fail "message"` line runs only
in a render that fails: it is exercised by the renders whose error quotes its message. Comments are
left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from aftershock.model.change import FileChange, Hunk, Side
from aftershock.model.objects import RenderedObject
from aftershock.model.review import ChangedLines, ChartRender, ChartReview, RenderStatus

_ACTION = re.compile(r"\{\{.*?\}\}")
_COMMENT = re.compile(r"\{\{-?\s*/\*.*?\*/\s*-?\}\}", re.DOTALL)
FAIL_CALL = re.compile(r'\bfail\s+"((?:[^"\\]|\\.)*)"')
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-/]{2,}")
_SUFFIXES = (".yaml", ".yml", ".tpl")


@dataclass(frozen=True)
class ChangedRun:
    """Consecutive changed lines of one template at one side ("head": added, "base": removed)."""

    path: str
    side: str
    first: int
    last: int
    words: tuple[tuple[str, ...], ...]  # per line with literal text, its words
    # (line, message) of each `fail "message"` on its lines: such a line runs only in a failing render
    failures: tuple[tuple[int, str], ...] = ()

    @property
    def lines(self) -> str:
        return f"{self.first}" if self.first == self.last else f"{self.first}-{self.last}"


def changed_runs(
    files: Iterable[FileChange],
    chart_folders: Iterable[str],
    read: Callable[[str, str], str | None],
) -> list[ChangedRun]:
    """The runs of changed lines in the templates of the given charts (NOTES.txt and tests left out).
    `read(side, path)` gives a file's text at "base" or "head", to tell `{{/* comment */}}` lines."""
    folders = frozenset(chart_folders)
    runs: list[ChangedRun] = []
    for change in files:
        for path, side in ((change.path, "head"), (change.old_path or change.path, "base")):
            if _is_template(path, folders):
                comments = _comment_lines(read(side, path) or "")
                for hunk in change.hunks:
                    runs += [
                        r
                        for r in _runs(path, side, hunk, comments)
                        if r.words or not _all_in(r, comments)
                    ]
    return runs


def _comment_lines(text: str) -> frozenset[int]:
    """Line numbers (1-based) inside Go template comments."""
    lines: set[int] = set()
    for match in _COMMENT.finditer(text):
        first = text.count("\n", 0, match.start()) + 1
        lines.update(range(first, first + match.group(0).count("\n") + 1))
    return frozenset(lines)


def _all_in(run: ChangedRun, lines: frozenset[int]) -> bool:
    return all(n in lines for n in range(run.first, run.last + 1))


def _is_template(path: str, folders: frozenset[str]) -> bool:
    """Whether `path` is a template of the innermost chart folder holding it under `templates/`:
    each `/templates/` in the path is tried, the last first (a review of a whole tree asks this of
    every file: trying each chart folder for each file took 0.4 CPU-s on a 409-chart tree)."""
    at = path.rfind("/templates/")
    while at >= 0:
        if path[:at] in folders:
            return path.endswith(_SUFFIXES)
        at = path.rfind("/templates/", 0, at + len("/templates/") - 1)
    return "" in folders and path.startswith("templates/") and path.endswith(_SUFFIXES)


def _runs(path: str, side: str, hunk: Hunk, comments: frozenset[int]) -> list[ChangedRun]:
    mark, number = ("+", hunk.new_start) if side == "head" else ("-", hunk.old_start)
    skip = "-" if side == "head" else "+"
    runs: list[ChangedRun] = []
    current: list[tuple[int, str]] = []
    for line in hunk.lines:
        if line.startswith(skip):
            continue
        if line.startswith(mark):
            current.append((number, "" if number in comments else line[1:]))
        elif current:
            runs.append(_run(path, side, current))
            current = []
        number += 1
    if current:
        runs.append(_run(path, side, current))
    return runs


def _run(path: str, side: str, lines: list[tuple[int, str]]) -> ChangedRun:
    words = tuple(w for _, text in lines if (w := _literal_words(text)))
    failures = tuple((n, m) for n, text in lines for m in FAIL_CALL.findall(text) if m.strip())
    return ChangedRun(path, side, lines[0][0], lines[-1][0], words, failures)


def _literal_words(line: str) -> tuple[str, ...]:
    text = _ACTION.sub(" ", line).strip()
    if not text or text.startswith("#"):
        return ()
    return tuple(_WORD.findall(text))


def line_coverage(runs: Sequence[ChangedRun], reviews: Sequence[ChartReview]) -> list[ChangedLines]:
    """Each run's lines with the scenarios that ran them, split where some ran and others did not;
    a run no render of a chart holding it produced at that side is left out (that is *not reviewed*).
    Traced lines are judged by their traces; a run no trace marked, by its literal text."""
    coverage: list[ChangedLines] = []
    reach: dict[tuple[str, str], list[ChartReview]] = {}  # per template and side, for all its runs
    texts: dict[tuple[str, str], list[str]] = {}
    lines = _Lines()
    index = _ReachIndex(reviews, lines)
    for run in runs:
        key = (run.path, run.side)
        if key not in reach:
            reach[key] = index.reaching(run.path, run.side)
        reaching = reach[key]
        if not reaching:
            continue
        traced = _traced(run, reaching, lines)
        if traced is not None:
            coverage += _with_failures(traced, run, reviews)
            continue
        if key not in texts:
            texts[key] = _rendered_texts(run.path, run.side, reaching)
        found = texts[key]
        shown = bool(run.words) and any(
            all(w in text for w in words) for words in run.words for text in found
        )
        side = Side(run.side)
        coverage += _with_failures(
            [ChangedLines(run.path, side, run.first, run.last, "text" if shown else "none")],
            run,
            reviews,
        )
    return coverage


def _with_failures(
    groups: list[ChangedLines], run: ChangedRun, reviews: Sequence[ChartReview]
) -> list[ChangedLines]:
    """`groups` where a `fail` line no render ran is exercised by the renders that failed with its
    message (Helm's error quotes it): such a line never runs in a render that succeeds."""
    failed: dict[int, tuple[str, ...]] = {}
    for number, message in run.failures:
        scenarios = tuple(
            dict.fromkeys(
                review.scenario
                for review in reviews
                if message in ((review.head if run.side == "head" else review.base).error or "")
            )
        )
        if scenarios:
            failed[number] = scenarios
    if not failed:
        return groups
    per_line = [(n, g.evidence, g.scenarios) for g in groups for n in range(g.first, g.last + 1)]
    for index, (number, evidence, _) in enumerate(per_line):
        if number in failed and evidence == "none":
            # and the lines of the run just before it that lead there (the `if` that opens to it)
            while index >= 0 and per_line[index][1] == "none":
                per_line[index] = (per_line[index][0], "text", failed[number])
                index -= 1
    return _grouped(run.path, Side(run.side), per_line)


def _grouped(
    path: str, side: Side, per_line: Iterable[tuple[int, str, tuple[str, ...]]]
) -> list[ChangedLines]:
    """Consecutive lines with the same evidence (and first scenario) as one entry."""
    groups: list[ChangedLines] = []
    for number, evidence, scenarios in per_line:
        last = groups[-1] if groups else None
        if last is not None and last.evidence == evidence and last.scenarios[:1] == scenarios[:1]:
            groups[-1] = replace(last, last=number, scenarios=_union(last.scenarios, scenarios))
        else:
            groups.append(ChangedLines(path, side, number, number, evidence, scenarios))
    return groups


class _Lines:
    """Each render's traced and run lines by template path, read once for all the runs: a tree
    reviewed as added traces every line of every template (627 runs × their renders' lines)."""

    def __init__(self) -> None:
        self._traced: dict[int, dict[str, frozenset[int]]] = {}
        self._run: dict[int, dict[str, frozenset[int]]] = {}

    def traced(self, render: ChartRender) -> dict[str, frozenset[int]]:
        if id(render) not in self._traced:
            self._traced[id(render)] = _by_path(render.lines_traced)
        return self._traced[id(render)]

    def run(self, render: ChartRender) -> dict[str, frozenset[int]]:
        if id(render) not in self._run:
            self._run[id(render)] = _by_path(render.lines_run)
        return self._run[id(render)]


def _by_path(lines: Iterable[tuple[str, int]]) -> dict[str, frozenset[int]]:
    found: dict[str, set[int]] = {}
    for path, number in lines:
        found.setdefault(path, set()).add(number)
    return {path: frozenset(numbers) for path, numbers in found.items()}


class _ReachIndex:
    """The reviews that may reach a template, by the three ways one does: its chart's folder holds
    it, the chart's affected path names it, a trace marked it. Asked per template and side, a scan
    of every review was quadratic in a tree reviewed as added (3,488 templates × 1,269 reviews)."""

    def __init__(self, reviews: Sequence[ChartReview], lines: _Lines) -> None:
        self.reviews = reviews
        self.by_chart: dict[str, list[int]] = {}
        self.by_step: dict[str, list[int]] = {}
        self.by_trace: dict[tuple[str, str], list[int]] = {}
        self.left_out: dict[tuple[int, str], set[str]] = {}
        for number, review in enumerate(reviews):
            self.by_chart.setdefault(review.chart, []).append(number)
            for step in {step.id for step in review.affected.path}:
                self.by_step.setdefault(step, []).append(number)
            for side, render in (("base", review.base), ("head", review.head)):
                for path in lines.traced(render):
                    self.by_trace.setdefault((path, side), []).append(number)

    def reaching(self, path: str, side: str) -> list[ChartReview]:
        """The reviews of a chart holding or including the template that rendered it at `side` (a
        chart the change reaches through the template, or whose trace marked it), in their order."""
        folders = [path[:i] for i, c in enumerate(path) if c == "/"]
        candidates = {n for folder in folders for n in self.by_chart.get(folder, ())}
        candidates.update(self.by_step.get(path, ()))
        candidates.update(self.by_trace.get((path, side), ()))
        found = []
        for number in sorted(candidates):
            review = self.reviews[number]
            render = review.head if side == "head" else review.base
            if render.status is RenderStatus.OK and path not in self._left_out(number, side):
                found.append(review)
        return found

    def _left_out(self, number: int, side: str) -> set[str]:
        if (number, side) not in self.left_out:
            self.left_out[(number, side)] = _left_out_at(self.reviews[number], side)
        return self.left_out[(number, side)]


def _traced(
    run: ChangedRun, reaching: Sequence[ChartReview], lines: _Lines
) -> list[ChangedLines] | None:
    """The run's lines by what traces saw, or None when no trace marked any of them. A line no trace
    could mark (the end of a `define`) goes with the line before it."""
    renders = [(r.scenario, r.head if run.side == "head" else r.base) for r in reaching]
    numbers = range(run.first, run.last + 1)
    marked = {n for _, render in renders for n in lines.traced(render).get(run.path, ())}
    if not marked.intersection(numbers):
        return None
    ran: dict[int, list[str]] = {}
    for scenario, render in renders:
        for number in lines.run(render).get(run.path, ()):
            if number in numbers and scenario not in ran.setdefault(number, []):
                ran[number].append(scenario)
    per_line = []
    previous = next(n for n in numbers if n in marked)
    for number in numbers:
        previous = number if number in marked else previous
        scenarios = tuple(ran.get(previous, ()))
        per_line.append((number, "traced" if scenarios else "none", scenarios))
    return _grouped(run.path, Side(run.side), per_line)


def _union(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    return first + tuple(s for s in second if s not in first)


def _rendered_texts(path: str, side: str, reaching: Sequence[ChartReview]) -> list[str]:
    """The JSON of each object the template's renders (`reaching`, `_reaching`'s) produced: objects
    of the template itself, or of every render of a chart the change reaches through it when it
    holds named templates only."""
    texts: list[str] = []
    for review in reaching:
        objects: Sequence[RenderedObject] = (
            review.head_objects if side == "head" else review.base_objects
        )
        own = [o for o in objects if o.template == path]
        chosen = own if own or not _helpers_only(path) else list(objects)
        texts += [json.dumps(o.body, ensure_ascii=False) for o in chosen]
    return texts


def _left_out_at(review: ChartReview, side: str) -> set[str]:
    """The templates the review's render by template left out at `side` (not rendered there)."""
    left_out = {t.template for t in review.templates_not_rendered}
    if side == "base":
        left_out |= {t.template for t in review.templates_fixed_at_head}
    return left_out


def _helpers_only(path: str) -> bool:
    """A `_*.tpl`/`_*.yaml` file or a `.tpl` holds named templates and renders nothing by itself."""
    name = path.rsplit("/", 1)[-1]
    return name.startswith("_") or name.endswith(".tpl")
