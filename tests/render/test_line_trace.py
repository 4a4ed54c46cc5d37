"""Line traces: markers change no output, and Helm runs exactly the markers of the lines it ran."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from aftershock.render.interface import RenderRequest
from aftershock.render.lookup.line_trace import (
    TRACE_KIND,
    _instrumented,
    instrument,
    marker_name,
    trace_cluster,
    traced_chart,
)
from conftest import CORPUS

# Trim markers both ways, blank lines, a text's trailing `{`, actions over several lines, comments,
# raw strings holding `}}`, CRLF, and a partial whose top level Helm never runs.
TEMPLATE = (
    "apiVersion: v1\n"
    "kind: ConfigMap\n"
    "metadata:\n"
    "  name: x   \n"
    "  labels:\n"
    "    {{- with .Values.labels }}\n"
    "    {{- toYaml . | nindent 4 }}\n"
    "    {{- end }}\n"
    "\n"
    "data:\n"
    "  json: |-\n"
    "    {\n"
    '      "a": {{ .Values.a | quote }}\n'
    "    }\n"
    "  {{- if .Values.off }}\n"
    "  off: yes\n"
    "  {{- end }}\n"
    "  {{- range $i, $v := .Values.items -}}\n"
    "  {{ $i }}: {{ $v | quote -}}\n"
    "\n"
    "  {{ end }}\n"
    '  multi: {{ include "c.name" (dict\n'
    '      "x" `}}` ) | quote }}\n'
    "  {{- /* a comment\n"
    "  over lines */}}\n"
    "  crlf: yes\r\n"
    "  last: {{ .Values.a }}"
)
HELPERS = (
    '{{- define "c.name" -}}\n'
    "name-{{ .x }}\n"
    "{{- end }}\n"
    "\n"
    '{{- define "c.unused" -}}\n'
    "never\n"
    "{{- end }}\n"
)


def _chart(root: Path) -> Path:
    chart = root / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("labels: {team: a}\na: one\noff: false\nitems: [p, q]\n")
    (chart / "templates" / "cm.yaml").write_bytes(TEMPLATE.encode())
    (chart / "templates" / "_helpers.tpl").write_text(HELPERS)
    return chart


def _rendered_both_ways(chart, files, copies, renderer):
    """The traced copy's render, after checking it renders exactly what the chart itself does."""
    traced, markers = traced_chart(chart, files, copies)
    plain, marked = renderer.render_many(
        [
            RenderRequest(str(chart)),
            RenderRequest(str(traced), cluster=trace_cluster(None)),
        ]
    )
    assert plain.ok and marked.ok, (plain.error, marked.error)
    assert marked.manifests == plain.manifests
    return marked, markers


def _every_line(text: str) -> range:
    return range(1, text.count("\n") + 2)


def test_markers_change_no_output_and_mark_the_lines_helm_ran(tmp_path, renderer):
    chart = _chart(tmp_path / "plain")
    files = {
        "templates/cm.yaml": _every_line(TEMPLATE),
        "templates/_helpers.tpl": _every_line(HELPERS),
    }
    marked, markers = _rendered_both_ways(chart, files, tmp_path / "copies", renderer)
    ran = {
        (markers[key.name][0], line)
        for key in marked.lookups
        if key.kind == TRACE_KIND
        for line in markers[key.name][1]
    }
    cm = {line for path, line in ran if path == "templates/cm.yaml"}
    assert {6, 7, 8, 12, 13, 22, 23, 27}.issubset(cm)
    assert 16 not in cm  # under `if .Values.off`: never run
    assert 15 in cm  # the `if` itself: its condition ran
    helpers = {line for path, line in ran if path == "templates/_helpers.tpl"}
    # the define a template includes, its `end` marked just inside it; not c.unused's lines
    assert helpers == {1, 2, 3}
    traceable = {
        line for _, (path, lines) in markers.items() for line in lines if "helpers" in path
    }
    assert 4 not in traceable  # the top level of a partial never runs


RAN = "$__aftershockTrace"
DECLARED = "{{ $__aftershockTrace := dict }}"


def marker(number: int, open_: str = "{{", close: str = "}}") -> str:
    return f'{open_} $_ := set {RAN} "m{number}" true {close}'


def sent(open_: str = "{{") -> str:
    """The end of a scope: one request naming every marker the run set."""
    group = f'(printf "%s.trace.aftershock.dev/v1" (join "-" (keys {RAN})))'
    return f'{open_} if {RAN} }}}}{{{{ if lookup {group} "LineTrace" "" "" }}}}{{{{ end }}}}{{{{ end }}}}'


def test_instrument_puts_a_marker_after_the_text_and_keeps_trailing_blanks_outside():
    result = instrument("a: b  \n{{- if x }}\n", [1], partial=False)
    assert result.text == DECLARED + "a: b" + marker(0) + "  \n{{- if x }}\n" + sent()
    assert result.markers == ((0, (1,)),)


def test_a_marker_after_a_right_trim_takes_the_trim():
    result = instrument("{{- $v := x -}}\n  y\n", [1], partial=False)
    assert result.text == DECLARED + "{{- $v := x -}}" + marker(0, close="-}}") + "\n  y\n" + sent()


def test_a_line_opening_a_block_is_marked_before_it_taking_its_left_trim():
    # the condition runs whether or not the body does: the marker stays outside the block
    result = instrument("a: b\n  {{- if x -}}\n  y\n  {{ end }}\n", [2], partial=False)
    assert result.text == (
        DECLARED + "a: b\n  " + marker(0, open_="{{-") + "{{- if x -}}\n  y\n  {{ end }}\n" + sent()
    )
    assert result.markers == ((0, (2,)),)


def test_the_end_of_a_define_in_a_partial_is_marked_before_the_end():
    result = instrument('{{- define "x" -}}\na\n{{- end }}\n\n', [3, 4], partial=True)
    # the define's record is declared where its body starts, taking over the define's right trim
    assert result.text == (
        '{{- define "x" -}}{{ $__aftershockTrace := dict -}}\na\n'
        + marker(0, open_="{{-")
        + sent(open_="{{-")
        + "{{- end }}\n\n"
    )
    assert result.markers == ((0, (3,)),)  # line 4, blank at the top level, is not traceable


def test_a_line_ending_inside_an_action_is_marked_where_the_action_ends():
    result = instrument('{{ include "x" (dict\n "a" 1) }}\nz\n', [1], partial=False)
    assert result.markers == ((0, (1,)),)
    assert result.text.startswith(DECLARED + '{{ include "x" (dict\n "a" 1) }}' + marker(0))


def test_the_copy_is_made_once_and_the_markers_are_the_same(tmp_path):
    chart = _chart(tmp_path / "plain")
    # three lines of one text: one marker; the second call reads the chart, not the marked copy
    first = traced_chart(chart, {"templates/cm.yaml": [1, 2, 3]}, tmp_path / "copies")
    second = traced_chart(chart, {"templates/cm.yaml": [1, 2, 3]}, tmp_path / "copies")
    assert first == second and first[1] == {marker_name(0): ("templates/cm.yaml", (1, 2, 3))}
    assert (chart / "templates" / "cm.yaml").read_bytes() == TEMPLATE.encode()  # never edited


@pytest.mark.skipif(
    not (CORPUS / "traefik-helm-chart.bundle").is_file(),
    reason="the shared corpus (../shared/corpus/traefik-helm-chart.bundle) is not here",
)
def test_every_line_of_a_real_chart_traced_renders_the_same(tmp_path, renderer):
    clone = tmp_path / "traefik"
    subprocess.run(
        ["git", "clone", "-q", str(CORPUS / "traefik-helm-chart.bundle"), str(clone)], check=True
    )
    chart = clone / "traefik"
    files = {
        f.relative_to(chart).as_posix(): _every_line(f.read_text())
        for f in (chart / "templates").rglob("*")
        if f.is_file()
    }
    marked, markers = _rendered_both_ways(chart, files, tmp_path / "copies", renderer)
    ran = [key for key in marked.lookups if key.kind == TRACE_KIND]
    assert 0 < len(ran) < len(markers)  # some lines ran, the others sit in blocks left off
    shutil.rmtree(clone)


def test_a_text_is_instrumented_once_and_numbered_for_each_chart(tmp_path):
    """A library's helpers, traced in every chart that includes them: lexed once, numbered from
    each chart's first marker."""
    text = f"# {tmp_path.name}\na: {{{{ .Values.a }}}}\n{{{{- if .Values.b }}}}\nb: 1\n{{{{- end }}}}\n"
    before = _instrumented.cache_info()
    one = instrument(text, range(1, 6), partial=False, first=0)
    two = instrument(text, range(1, 6), partial=False, first=7)
    after = _instrumented.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)
    assert len(one.markers) > 1
    assert [n for n, _ in two.markers] == [n + 7 for n, _ in one.markers]
    assert [lines for _, lines in two.markers] == [lines for _, lines in one.markers]
    assert two.text == re.sub(r'"m(\d+)"', lambda m: f'"m{int(m[1]) + 7}"', one.text)


def test_lines_after_a_block_inside_a_define_belong_to_the_define(tmp_path, renderer):
    """A `block` inside a `define` is a scope of its own: the define's lines after it report to the
    define's record (which the block's body cannot see), so the copy still parses and they count."""
    chart = tmp_path / "plain" / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("enabled: true\n")
    helpers = (
        '{{- define "c.data" -}}\n'  # 1
        "{{- if .Values.enabled }}\n"  # 2
        "a: 1\n"  # 3
        "{{- end }}\n"  # 4
        '{{- block "c.inner" . }}\n'  # 5
        "b: 2\n"  # 6
        "{{- end }}\n"  # 7
        "{{- if .Values.enabled }}\n"  # 8
        "c: 3\n"  # 9
        "{{- end }}\n"  # 10
        "{{- end }}\n"  # 11
    )
    (chart / "templates" / "_helpers.tpl").write_text(helpers)
    template = "kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\ndata:\n"
    template += '  {{- include "c.data" . | nindent 2 }}\n'
    (chart / "templates" / "cm.yaml").write_text(template)
    # the define's own lines traced only after the block: its record is declared at its start
    files = {"templates/_helpers.tpl": range(6, 12)}
    marked, markers = _rendered_both_ways(chart, files, tmp_path / "copies", renderer)
    ran = {line for key in marked.lookups for line in markers[key.name][1]}
    assert {6, 8, 9, 11}.issubset(ran)


def test_lines_with_no_control_action_between_them_share_one_marker():
    text = (
        "name: {{ .Values.name }}\n"  # 1
        '{{ include "x" . }}\n'  # 2
        "{{- $v := .Values.v }}\n"  # 3
        "{{- if .Values.on }}\n"  # 4: marked before the `if`, with the lines before it
        "on: {{ .Values.on }}\n"  # 5: inside the block, a marker of its own
        "{{- end }}\n"  # 6
        "{{- range .Values.items }}\n"  # 7
        "- {{ . }}\n"  # 8
        "{{- end }}\n"  # 9
    )
    result = instrument(text, range(1, 10), partial=False)
    assert [lines for _, lines in result.markers] == [(1, 2, 3, 4), (5,), (6, 7), (8,), (9,)]


COUNTED = """
import json, sys
import helm_python as helm
from aftershock.render.helm.sdk_worker import ClusterAccess, _render_chart
from aftershock.render.lookup.cluster import ClusterSnapshot, snapshot_message
helm.disable_logging()
access = ClusterAccess(helm)
config = access.serve(snapshot_message(ClusterSnapshot()))
options = {"name": "r", "namespace": "default", "revision": 1, "is_install": True,
           "is_upgrade": False}
request = {"options": options, "values_json": "{}"}
server = access._server
asked = []  # the trace groups Helm asked discovery for
answer = server.answer
server.answer = lambda path: (asked.append(path) if ".trace." in path else None, answer(path))[1]
_render_chart(helm, helm.Chart.load(sys.argv[1]), request, config)
print(json.dumps(asked))
print(json.dumps([key[3] for key in access._server._returned]))  # every marker run, repeats too
"""


def test_a_run_of_a_scope_asks_once_for_all_the_markers_it_ran(tmp_path):
    """Ten items: a line in the `range` is reported once, not ten times; a `define` included ten
    times is a scope run ten times, each asking once for both its markers, not once per marker."""
    chart = tmp_path / "plain" / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("items: [a, b, c, d, e, f, g, h, i, j]\n")
    template = (
        "kind: ConfigMap\n"
        "data:\n"
        "  {{- range $i, $v := .Values.items }}\n"
        '  k{{ $i }}: {{ include "c.item" $v | quote }}\n'
        "  {{- end }}\n"
    )
    helpers = '{{- define "c.item" -}}\n{{- if . }}\nitem-{{ . }}\n{{- end }}\n{{- end }}\n'
    (chart / "templates" / "cm.yaml").write_text(template)
    (chart / "templates" / "_helpers.tpl").write_text(helpers)
    files = {"templates/cm.yaml": _every_line(template), "templates/_helpers.tpl": [1, 2, 3, 4, 5]}
    traced, markers = traced_chart(chart, files, tmp_path / "copies")
    done = subprocess.run(
        [sys.executable, "-c", COUNTED, str(traced)], capture_output=True, text=True, check=True
    )
    asked, ran = (json.loads(line) for line in done.stdout.splitlines()[-2:])
    runs = Counter(ran)
    in_define = {name for name, (path, _) in markers.items() if path.endswith("_helpers.tpl")}
    assert len(in_define) > 1 and set(runs) - in_define  # markers of both scopes ran
    assert {runs[name] for name in in_define} == {10}
    assert {runs[name] for name in set(runs) - in_define} == {1}  # the range's lines included
    # one request per run of a scope: the define's ten runs, the template's top level once
    assert len(asked) == 11
    groups = [set(path.rpartition("/apis/")[2].split(".")[0].split("-")) for path in asked]
    assert sum(group == in_define for group in groups) == 10
