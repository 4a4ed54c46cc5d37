"""The values a rendered template file reads, through the named templates it calls, transitively (pure).

Named templates are global in Helm: a `define` in any chart of the rendered tree (the chart, its
library charts and subcharts) can be called from any template. A named template is evaluated with the
argument the caller passes, so its `.Values` reads land in the caller's values: `TemplateIndex` walks
each call with the caller's binding of the argument (see reads.py) and reports the paths in the value
space of the chart whose template file is rendered.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from aftershock.provenance.gotemplate import OPENERS, Action, actions
from aftershock.provenance.reads import ROOT, Binding, Call, body_reads

_MAX_VISITS = 20_000  # bodies evaluated per index: a guard against pathological call fan-out
# Nested calls followed: a template recursing with a new argument each time (e.g. walking a values tree
# with `dict "path" ... "content" .x`) would otherwise never repeat a (template, argument) pair.
_MAX_DEPTH = 24


@dataclass(frozen=True)
class TemplateRead:
    """A values path (segments; `*` for any key) and the repository path of the file whose text reads it."""

    path: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class TemplateAnalysis:
    """Every values path a rendered template reads, every file it visits (itself and the files
    defining the named templates it calls), and the Chart.yaml fields it reads."""

    reads: frozenset[TemplateRead] = frozenset()
    files: frozenset[str] = frozenset()
    chart_fields: frozenset[str] = (
        frozenset()
    )  # `.Chart.<field>` read, of the rendered template's chart

    def union(self, other: TemplateAnalysis) -> TemplateAnalysis:
        return TemplateAnalysis(
            self.reads | other.reads,
            self.files | other.files,
            self.chart_fields | other.chart_fields,
        )


EMPTY = TemplateAnalysis()
_Body = tuple[str, tuple[Action, ...]]  # (repository path of the file, the body's actions)


@dataclass(frozen=True)
class ParsedFile:
    """A template file split into its top level and the bodies of the templates it defines."""

    top: tuple[Action, ...]
    defines: tuple[tuple[str, tuple[Action, ...]], ...]


@functools.lru_cache(maxsize=4096)
def parse_file(text: str) -> ParsedFile:
    """Split a template into its top-level actions and its `define`/`block` bodies. A top-level
    `block` is also a call where it stands."""
    top: list[Action] = []
    defines: list[tuple[str, tuple[Action, ...]]] = []
    name: str | None = None
    body: list[Action] = []
    depth = 0
    for action in actions(text):
        if name is None:
            if action.kind in ("define", "block") and action.name is not None:
                if action.kind == "block":
                    top.append(Action("template", action.pipeline, action.name))
                name, body, depth = action.name, [], 1
            else:
                top.append(action)
            continue
        depth += 1 if action.kind in OPENERS else -1 if action.kind == "end" else 0
        if depth == 0:
            defines.append((name, tuple(body)))
            name = None
        else:
            body.append(action)
    return ParsedFile(tuple(top), tuple(defines))


@dataclass(frozen=True)
class _BodyResult:
    analysis: TemplateAnalysis  # what the body itself reads, without its calls
    calls: tuple[Call, ...]


class BodyMemo:
    """What each body reads with a given argument, shared by the indexes of one analysis: a library's
    named templates are in every chart tree that depends on it, and read the same in each."""

    def __init__(self) -> None:
        # keyed by the body's identity: it is kept here, so the id stays its own while the memo lives
        self._results: dict[tuple[int, str, Binding], tuple[tuple[Action, ...], _BodyResult]] = {}
        # what visiting a named template found, for every index with the same named templates
        self.visits: dict[
            tuple[str, Binding, frozenset[tuple[str, str, int]]], TemplateAnalysis
        ] = {}
        self._scopes: dict[frozenset[tuple[str, str, int]], frozenset[tuple[str, str, int]]] = {}

    def scope(self, defines: frozenset[tuple[str, str, int]]) -> frozenset[tuple[str, str, int]]:
        """One object for equal sets of named templates, so visit keys compare by identity."""
        return self._scopes.setdefault(defines, defines)

    def result(self, source: str, body: tuple[Action, ...], arg: Binding) -> _BodyResult:
        key = (id(body), source, arg)
        hit = self._results.get(key)
        if hit is None:
            reads = body_reads(list(body), arg)
            found = frozenset(TemplateRead(p, source) for p in reads.paths)
            analysis = TemplateAnalysis(found, frozenset({source}), frozenset(reads.chart_fields))
            hit = (body, _BodyResult(analysis, tuple(reads.calls)))
            self._results[key] = hit
        return hit[1]


class TemplateIndex:
    """The template files of one rendered chart tree, parsed once, with their named templates."""

    def __init__(self, files: Mapping[str, ParsedFile], memo: BodyMemo | None = None) -> None:
        self._tops: dict[str, tuple[Action, ...]] = {path: f.top for path, f in files.items()}
        self._defines: dict[str, list[_Body]] = {}
        for path in sorted(files):
            for name, body in files[path].defines:
                self._defines.setdefault(name, []).append((path, body))
        self._memo: dict[tuple[str, str, Binding, str], TemplateAnalysis] = {}
        self._active: set[tuple[str, str, Binding, str]] = set()
        self._visits = 0
        self._file_calls = 0  # template files called by path so far (their text is this tree's own)
        self._read_files: set[tuple[str, str, Binding, str]] = set()  # visits that called one
        self._bodies_memo = memo if memo is not None else BodyMemo()
        # A named template's result depends on the named templates it can reach (unless it calls a file
        # by path): indexes with the same ones (charts on one library) share those visits.
        self._scope = self._bodies_memo.scope(
            frozenset(
                (name, source, id(body))
                for name, bodies in self._defines.items()
                for source, body in bodies
            )
        )

    def analyse(self, path: str, chart_path: str) -> TemplateAnalysis:
        """What rendering the template file `path` of the chart at `chart_path` reads."""
        if path not in self._tops:
            return EMPTY
        return self._visit("file", path, ROOT, chart_path)

    def _visit(self, kind: str, target: str, arg: Binding, chart_path: str) -> TemplateAnalysis:
        key = (kind, target, arg, chart_path)
        shared = (target, arg, self._scope)  # a named template's visit that reached no file by path
        known = self._memo.get(key)
        if known is not None:
            if key in self._read_files:
                self._file_calls += 1  # the caller depends on this tree's files too
            return known
        known = self._bodies_memo.visits.get(shared) if kind == "define" else None
        if known is not None:
            return known
        if key in self._active or len(self._active) >= _MAX_DEPTH or self._visits >= _MAX_VISITS:
            return EMPTY  # recursion or a guard: what is found so far stands
        self._active.add(key)
        self._visits += 1
        file_calls = self._file_calls
        result = EMPTY
        for source, body in self._bodies(kind, target):
            body_result = self._bodies_memo.result(source, body, arg)
            result = result.union(body_result.analysis)
            for call in body_result.calls:
                result = result.union(self._call(call, chart_path))
        self._active.discard(key)
        self._memo[key] = result
        if self._file_calls != file_calls:
            self._read_files.add(key)
        elif kind == "define":
            self._bodies_memo.visits[shared] = result  # depends on the named templates alone
        return result

    def _call(self, call: Call, chart_path: str) -> TemplateAnalysis:
        if call.name is not None:
            return self._visit("define", call.name, call.arg, chart_path)
        if call.file is not None:
            self._file_calls += 1
            path = f"{chart_path}/{call.file}" if chart_path else call.file
            return self._visit("file", path, call.arg, chart_path) if path in self._tops else EMPTY
        return EMPTY

    def _bodies(self, kind: str, target: str) -> Iterable[_Body]:
        if kind == "file":
            return ((target, self._tops[target]),)
        return self._defines.get(target, ())
