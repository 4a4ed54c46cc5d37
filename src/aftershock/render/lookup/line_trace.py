"""Line traces: which lines of a template a render executed, observed through `lookup`.

A changed line that is template logic only (`{{- with .Values.x }}`, an `include`, a trim marker)
leaves no text of its own in the output, and text can be lost on the way (`fromYaml`, `b64enc`). So
a copy of the chart gets, at the end of each line to trace, a marker action that emits nothing:
`{{ if lookup "m3.trace.aftershock.dev/v1" "LineTrace" "" "" }}{{ end }}`. Rendered against a
cluster (any: the loopback API server, render/lookup/kubeapi.py), each marker Helm executes asks discovery
for its own API group once, which the server records; the group serves nothing, so the lookup finds
an empty map and the output is unchanged. A line counts as run only when Helm ran past its end, except
a line that ends by opening an `if`, `with` or `range`: its marker goes just before that action,
outside the block, as its condition ran whether or not the body does (a condition that fails aborts
the render, which traces nothing). Lines with no control action between them (`if`, `else`, `with`,
`range`, `end`, `break`, `continue`, a `define` or `block`) share one marker at the last one's end:
they run together, as any other action runs to its end or aborts the render, and each marker Helm
runs costs an HTTP request. Markers never change the output: one goes right after the line's last
non-blank character outside an action (trailing blanks stay after it, where a following `{{-` still
trims them; a text's trailing `{` too, which would open an action with the marker's), and takes the
right trim (`-}}`) of an action it follows that had one, or the left trim (`{{-`) of the block it
precedes. A line ending inside an action is marked where that action ends. A marker at the top
level of a partial (`_helpers.tpl` outside any `define`) would never run, as Helm does not execute
partials: the line that ends a `define` is marked just before its `end` instead, and the other lines
there are not traceable.

A marker does not ask the server itself: each scope that holds markers (the template's top level, or
a `define` body: Go gives each its own variables) declares a dict where it starts
(`{{ $__aftershockTrace := dict }}`, taking over the right trim of the `define` before it), a marker
sets its name there (`m12`), and where the scope ends (the text's end, or just before the `define`'s
`end`) one `lookup` asks for the group naming every marker that run of it set (`m3-m12.trace…`),
when any did. A run of a scope costs one request whatever it ran: a line in a `range` of a hundred
items, or the twenty markers of a helper included fifty times, cost what one marker did. A scope
always runs to its end when the render goes on (Go templates have no `return`; `break` and
`continue` leave only a `range`), so a render that succeeded reported every scope it ran; one that
failed traces nothing.

Hand-written, not a library: the markers must sit where Go's text/template lexer puts action
boundaries (strings, raw strings, comments and trim markers as `text/template/parse` reads them).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import threading
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from aftershock.model.errors import AftershockError, RenderError
from aftershock.render.lookup.cluster import ClusterSnapshot
from aftershock.render.lookup.kubeapi import MARKER_SEPARATOR, TRACE_GROUP, TRACE_KIND
from aftershock.render.workspaces.chart_copies import copy_chart

_OPENS = frozenset({"if", "with", "range", "define", "block"})
_BRANCHES = frozenset({"if", "with", "range"})  # their body may not run; their condition did
_DEFINES = frozenset({"define", "block"})
# Actions that decide what runs next; any other action runs to its end or aborts the whole render.
_CONTROL = _OPENS | {"else", "end", "break", "continue"}
_RAN = "$__aftershockTrace"  # a scope's markers already run (a dict), declared once per scope
# What the lexers stop at: a line end or an action's opening; in code, a quote or the action's end.
_TEXT_STOP = re.compile(r"\n|\{\{")
_CODE_STOP = re.compile(r"[\"'`]|\}\}")
_STRING_BODY = {q: re.compile(rf"(?:[^{q}\\\n]|\\[\s\S])*") for q in "\"'"}


@dataclass(frozen=True)
class Instrumented:
    """A template's text with markers, and the lines each marker (by number) stands for."""

    text: str
    markers: tuple[tuple[int, tuple[int, ...]], ...]  # marker number -> the lines it traces


class _Opened(NamedTuple):
    """An `if`, `with` or `range` action: where it starts, its left trim, the controls before it."""

    start: int
    left: bool
    controls: int


class _ScopeEnd(NamedTuple):
    """Where a scope sends its markers: the opening delimiter (the trim of the `end` it precedes)."""

    open: str
    close: str = "}}"


def marker_name(number: int) -> str:
    return f"m{number}"


def instrument(text: str, lines: Collection[int], partial: bool, first: int = 0) -> Instrumented:
    """`text` with a marker for each of `lines` (1-based) that can be traced, numbered from `first`."""
    pieces, traced = _instrumented(text, frozenset(lines), partial)
    out = [pieces[0]]
    for number, piece in enumerate(pieces[1:], first):
        out += [marker_name(number), piece]
    return Instrumented("".join(out), tuple(enumerate(traced, first)))


@functools.lru_cache(maxsize=1024)
def _instrumented(
    text: str, lines: frozenset[int], partial: bool
) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """The instrumented text cut where each marker's name goes, and the lines each marker traces:
    made once per text and lines (a library's helpers are traced in every chart that includes
    them, and again in each round), then numbered for the chart at hand."""
    points, ends = _points(text, lines, partial)
    scopes = {p.scope for p in points}
    # each scope's record of the markers run: declared where the scope starts (before its markers),
    # sent where it ends (after them)
    events: list[tuple[int, int, str | _Point | _ScopeEnd]] = [
        (position, 0, _declaration(trims)) for position, trims in scopes
    ]
    events += [(point.position, 1, point) for point in points]
    events += [(ends[s][0], 2, _ScopeEnd("{{-" if ends[s][1] else "{{")) for s in scopes]
    pieces: list[str] = []
    out: list[str] = []
    traced: list[tuple[int, ...]] = []
    done = 0
    for position, _, what in sorted(events, key=lambda event: event[:2]):
        if isinstance(what, str):
            out += [text[done:position], what]
            done = position
            continue
        close = what.close
        while position > done and text[position - 1] == "{":  # `{` then `{{` would open an action
            position, close = position - 1, "}}"
        if isinstance(what, _ScopeEnd):
            out += [text[done:position], _sent(what.open, close)]
        else:
            before, after = _marker(what.open, close)
            pieces.append("".join([*out, text[done:position], before]))
            out = [after]
            traced.append(what.lines)
        done = position
    out.append(text[done:])
    pieces.append("".join(out))
    return tuple(pieces), tuple(traced)


def _declaration(trims: bool) -> str:
    """The record of a scope's markers, taking over the right trim of the action it follows."""
    return f"{{{{ {_RAN} := dict {'-}}' if trims else '}}'}"


def _marker(open_: str, close: str) -> tuple[str, str]:
    """A marker, before and after its name: notes in its scope's record that Helm got here (no
    request of its own)."""
    return f'{open_} $_ := set {_RAN} "', f'" true {close}'


def _sent(open_: str, close: str) -> str:
    """A scope's end: one lookup whose group names the markers this run of the scope set, if any."""
    group = f'(printf "%s.{TRACE_GROUP}/v1" (join "{MARKER_SEPARATOR}" (keys {_RAN})))'
    return (
        f'{open_} if {_RAN} }}}}{{{{ if lookup {group} "{TRACE_KIND}" "" "" }}}}'
        f"{{{{ end }}}}{{{{ end {close}"
    )


class _Point(NamedTuple):
    """Where a marker goes, its delimiters (the trims it takes over), the lines it traces, and where
    its scope (the template's top level, or a `define` body) starts and whether that takes a trim."""

    position: int
    open: str
    close: str
    lines: tuple[int, ...]
    scope: tuple[int, bool]
    controls: int = 0  # the control actions read before it


class _Lexer:
    """Walks a template as Go's lexer does, remembering where the last text or action ended."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.end = 0  # after the last non-blank character outside an action
        self.trims = False  # whether that character closed an action with a right trim
        self.stack: list[str] = []  # open blocks (`if`, `define`, …)
        # where the last `end` of a `define` starts, whether it trims left, and the body it closes;
        # None after a line end
        self.define_end: tuple[int, bool, tuple[int, bool]] | None = None
        self.controls = 0  # control actions (`if`, `else`, `end`, …) read so far
        # the last thing read, when it opened an `if`, `with` or `range`: where that action starts,
        # whether it trims left, and the control actions read before it
        self.opened: _Opened | None = None
        # where each open `define` (or `block`) body started and whether after a trim, innermost last
        self.bodies: list[tuple[int, bool]] = []
        # each scope (where it starts) -> where the `end` that closes it starts, and its left trim
        self.ends: dict[tuple[int, bool], tuple[int, bool]] = {(0, False): (len(text), False)}

    def action(self, start: int) -> int:
        """Read the action or comment opening at `start`; the index after its `}}`."""
        text, i = self.text, start + 2
        self.opened = None
        left = text.startswith("-", i) and text[i + 1 : i + 2] in (" ", "\t", "\n", "\r")
        if left:
            i += 1
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        if text.startswith("/*", i):
            close = text.find("*/", i + 2)
            close = len(text) if close < 0 else text.find("}}", close + 2)
            end = len(text) if close < 0 else close + 2
            self._closed(end, start)
            return end
        word = _word(text, i)
        if word in _CONTROL:
            self.controls += 1
        i = self._skip_code(i)
        if self._keyword(word) in _DEFINES:
            body = self.bodies.pop() if self.bodies else (0, False)
            self.define_end = (start, left, body)
            if body != (0, False):  # the top level ends with the text, never at an `end`
                self.ends[body] = (start, left)
        self._closed(i, start)
        if word in _DEFINES:
            self.bodies.append((i, self.trims))
        elif word in _BRANCHES:
            self.opened = _Opened(start, left, self.controls - 1)
        return i

    def _skip_code(self, i: int) -> int:
        text = self.text
        while (stop := _CODE_STOP.search(text, i)) is not None:
            char, i = stop.group(), stop.start()
            if char == "}}":
                return i + 2
            if char == "`":
                found = text.find("`", i + 1)
                i = len(text) if found < 0 else found + 1
            else:
                i = _string_end(text, i, char)
        return max(i, len(text))

    def _keyword(self, word: str) -> str | None:
        """The block an `end` closes; None for any other action."""
        if word in _OPENS:
            self.stack.append(word)
        elif word == "end" and self.stack:
            return self.stack.pop()
        return None

    def _closed(self, end: int, start: int) -> None:
        self.end = end
        self.trims = self.text[max(start, end - 4) : end] in (" -}}", "\t-}}", "\n-}}", "\r-}}")

    def in_define(self) -> bool:
        return any(word in _DEFINES for word in self.stack)

    @property
    def body(self) -> tuple[int, bool]:
        """Where the innermost `define` body open started (the scope of a marker in it)."""
        return self.bodies[-1] if self.bodies else (0, False)


def _word(text: str, i: int) -> str:
    j = i
    while j < len(text) and (text[j].isalnum() or text[j] == "_"):
        j += 1
    return text[i:j]


def _string_end(text: str, i: int, quote: str) -> int:
    """After the string opening at `i`: its closing quote, or the line end (Go's lexer stops there);
    an escape takes the next character whatever it is."""
    body = _STRING_BODY[quote].match(text, i + 1)
    j = body.end() if body is not None else i + 1
    if j < len(text) and text[j] == "\\":  # an escape with nothing after it
        return j + 3
    return j + 1


def _points(
    text: str, lines: frozenset[int], partial: bool
) -> tuple[list[_Point], dict[tuple[int, bool], tuple[int, bool]]]:
    """Where each marker goes, in text order, and where each scope ends. At the top level of a
    partial, a line that ends the `define` is marked just before its `end` (inside it, taking over
    the `end`'s left trim)."""
    lexer = _Lexer(text)
    points: list[_Point] = []
    pending: list[int] = []
    i, line, last_controls = 0, 1, -1
    while i <= len(text):
        stop = _TEXT_STOP.search(text, i)
        j = stop.start() if stop is not None else len(text)
        if j > i:  # text up to the next line end or action: where its last non-blank ends
            run = text[i:j].rstrip(" \t\r")
            if run:
                lexer.end, lexer.trims, lexer.opened = i + len(run), False, None
            i = j
        if i == len(text) or text[i] == "\n":
            if line in lines:
                pending.append(line)
            if pending:
                point = _point(lexer, partial, tuple(pending))
                if point is not None:  # else at the top level of a partial: never run
                    if points and point.controls == last_controls:
                        # no control action since the last marker: its lines and these run
                        # together (any other action runs to its end or aborts the render)
                        point = point._replace(lines=points.pop().lines + point.lines)
                    points.append(point)
                    last_controls = point.controls
            pending, lexer.define_end, lexer.opened = [], None, None
            i, line = i + 1, line + 1
            continue
        if text.startswith("{{", i):
            end = lexer.action(i)
            spanned = text.count("\n", i, end)
            pending += [n for n in range(line, line + spanned) if n in lines]
            line += spanned
            i = end
    # a scope left open (a `define` without `end`) fails to parse: no end to send it from
    return _merged([p for p in points if p.scope in lexer.ends]), lexer.ends


def _point(lexer: _Lexer, partial: bool, lines: tuple[int, ...]) -> _Point | None:
    """Where the marker of `lines` goes: after the last of them, or just before the `if`, `with` or
    `range` that ends them (taking over its left trim), outside the block whose body may not run."""
    if lexer.in_define() or not partial:
        scope = lexer.body if lexer.in_define() else (0, False)
        if lexer.opened is not None:
            start, left, controls = lexer.opened
            return _Point(start, "{{-" if left else "{{", "}}", lines, scope, controls)
        close = "-}}" if lexer.trims else "}}"
        return _Point(lexer.end, "{{", close, lines, scope, lexer.controls)
    if lexer.define_end is not None:
        start, left, body = lexer.define_end
        return _Point(start, "{{-" if left else "{{", "}}", lines, body, lexer.controls)
    return None


def _merged(points: list[_Point]) -> list[_Point]:
    """One marker per place: blank lines share the marker of the text before them."""
    merged: list[_Point] = []
    for point in points:
        if merged and merged[-1].position == point.position:
            merged[-1] = merged[-1]._replace(lines=merged[-1].lines + point.lines)
        else:
            merged.append(point)
    return merged


def traced_chart(
    chart_dir: Path, files: Mapping[str, Collection[int]], copies: Path
) -> tuple[Path, dict[str, tuple[str, tuple[int, ...]]]]:
    """A copy of the chart at `chart_dir` whose files (paths relative to it) trace `files`' lines, made
    once under `copies`; and each marker's name -> (that relative path, the lines it traces).
    RenderError when the copy cannot be made."""
    wanted = {path: sorted(set(lines)) for path, lines in sorted(files.items())}
    key = hashlib.sha256(json.dumps([str(chart_dir), wanted]).encode()).hexdigest()[:20]
    done = copies / key / chart_dir.name
    building = copies / f".{key}-{os.getpid()}-{threading.get_ident()}"
    markers: dict[str, tuple[str, tuple[int, ...]]] = {}
    try:
        if not done.is_dir():
            shutil.rmtree(building, ignore_errors=True)
            copy_chart(chart_dir, building / chart_dir.name)
        target = done if done.is_dir() else building / chart_dir.name
        for path, lines in wanted.items():
            # read from the chart itself: a copy made before already holds markers
            write = None if target == done else target / path
            markers |= _trace_file(chart_dir / path, path, lines, len(markers), write)
        if target != done:
            try:
                building.rename(copies / key)
            except OSError:  # made meanwhile by another trace of the same lines
                shutil.rmtree(building, ignore_errors=True)
    except (OSError, shutil.Error, AftershockError) as exc:
        shutil.rmtree(building, ignore_errors=True)
        raise RenderError(
            "cannot copy the chart to trace its changed lines", where=str(chart_dir), hint=str(exc)
        ) from exc
    return done, markers


def _trace_file(
    source: Path, path: str, lines: list[int], first: int, write: Path | None
) -> dict[str, tuple[str, tuple[int, ...]]]:
    """The markers of `source`'s lines, written with the text into `write` (the copy's file)."""
    # bytes as they are: no newline translation (`\r\n` stays), undecodable bytes kept
    text = source.read_bytes().decode("utf-8", "surrogateescape")
    result = instrument(text, lines, source.name.startswith("_"), first)
    if write is not None:
        write.unlink()  # a new file: the copy's may be a hard link to the chart's own
        write.write_bytes(result.text.encode("utf-8", "surrogateescape"))
    return {marker_name(number): (path, traced) for number, traced in result.markers}


def trace_cluster(cluster: ClusterSnapshot | None) -> ClusterSnapshot:
    """The cluster a traced render runs against: the render's own, or an empty one (markers need
    the API server, not objects)."""
    return cluster if cluster is not None else ClusterSnapshot()
