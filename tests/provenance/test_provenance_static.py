"""Static analysis of Helm templates: which values paths a rendered template reads, directly and through
the named templates it calls (pure; the Helm-backed tests are in test_provenance_trace.py)."""

from __future__ import annotations

import pytest

from aftershock.provenance.gotemplate import Field, Str, Var, actions
from aftershock.provenance.link import matches, split_key
from aftershock.provenance.templates import BodyMemo, TemplateIndex, parse_file

CHART = "charts/app"


def reads(files: dict[str, str], template: str = "templates/x.yaml") -> set[str]:
    index = TemplateIndex({f"{CHART}/{path}": parse_file(text) for path, text in files.items()})
    return {".".join(r.path) for r in index.analyse(f"{CHART}/{template}", CHART).reads}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("replicas: {{ .Values.replicaCount }}", {"replicaCount"}),
        ("x: {{ $.Values.image.tag | quote }}", {"image.tag"}),
        ('x: {{ index .Values "image" "tag" }}', {"image.tag"}),
        ("x: {{ index .Values.extra $key }}", {"extra.*"}),
        ("x: {{ (.Values.image).tag }}", {"image.tag"}),
        ("{{ with .Values.image }}x: {{ .tag }}{{ end }}", {"image", "image.tag"}),
        (
            "{{ with .Values.sc }}{{ toYaml . }}{{ else }}{{ .Values.other }}{{ end }}",
            {"sc", "other"},
        ),
        ("{{ range .Values.hosts }}- {{ .name }}{{ end }}", {"hosts", "hosts.*.name"}),
        (
            "{{ range $k, $v := .Values.env }}{{ $k }}: {{ $v.value }}{{ end }}",
            {"env", "env.*.value"},
        ),
        ("{{ $v := .Values.image }}x: {{ $v.tag }}", {"image.tag"}),
        ("{{ $v := .Values.image | default dict }}x: {{ $v.tag }}", {"image.tag"}),
        ("{{ .Values.a | default .Values.b }}", {"a", "b"}),
        ("{{ if and .Values.a.enabled (not .Values.b) }}x{{ end }}", {"a.enabled", "b"}),
        ('{{ dig "x" "y" "none" .Values.m }}', {"m.x.y"}),
        ("{{ toYaml .Values }}", {""}),
        ("{{/* {{ .Values.commented }} */}}x: {{ .Values.kept }}", {"kept"}),
        ('x: {{ printf "}}" }} {{ .Values.after }}', {"after"}),
        ("{{- $unused := .Values.nothing -}}x: 1", set()),
    ],
)
def test_direct_reads(text, expected):
    assert reads({"templates/x.yaml": text}) == expected


def test_reads_through_a_named_template_given_a_dict_context_and_an_alias_of_values():
    """The example's library pattern: `include "lib.deployment" (dict "context" .)`, then
    `$ctx := .context`, `$values := $ctx.Values`, `with $values.env`."""
    helpers = """\
{{- define "lib.deployment" -}}
{{- $ctx := .context }}
{{- $values := $ctx.Values }}
replicas: {{ $values.replicaCount }}
{{- with $values.env }}
env: {{ toYaml . }}
{{- end }}
labels: {{ include "lib.labels" $ctx }}
extra: {{ .extra.name }}
{{- end -}}
{{- define "lib.labels" -}}team: {{ .Values.team }}{{- end -}}
"""
    found = reads(
        {
            "templates/_lib.tpl": helpers,
            "templates/x.yaml": '{{ include "lib.deployment" (dict "context" . "extra" .Values.side) }}',
        }
    )
    assert found == {"replicaCount", "env", "team", "side.name"}


def test_named_template_called_with_a_values_node_reads_below_it():
    found = reads(
        {
            "templates/_img.tpl": '{{ define "img" }}{{ .registry }}/{{ .repository }}{{ end }}',
            "templates/x.yaml": 'image: {{ template "img" .Values.image }}',
        }
    )
    assert found == {"image.registry", "image.repository"}


def test_list_context_and_index_back_to_the_root():
    found = reads(
        {
            "templates/_h.tpl": '{{ define "h" }}{{ $root := index . 0 }}{{ $root.Values.a }} {{ (index . 1).b }}{{ end }}',
            "templates/x.yaml": '{{ include "h" (list $ .Values.sub) }}',
        }
    )
    assert found == {"a", "sub.b"}


def test_template_file_included_by_base_path_is_followed():
    """The checksum pattern: `include (print $.Template.BasePath "/configmap.yaml") .`."""
    found = reads(
        {
            "templates/configmap.yaml": "data: {{ toYaml .Values.config }}",
            "templates/x.yaml": '{{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}',
        }
    )
    assert found == {"config"}


def test_recursive_named_templates_terminate_and_blocks_are_calls():
    found = reads(
        {
            "templates/_r.tpl": '{{ define "r" }}{{ .Values.depth }}{{ include "r" . }}{{ end }}',
            "templates/x.yaml": '{{ include "r" . }}{{ block "b" . }}{{ .Values.inBlock }}{{ end }}',
        }
    )
    assert found == {"depth", "inBlock"}


def test_chart_metadata_reads_are_kept_apart_from_values():
    index = TemplateIndex(
        {
            f"{CHART}/templates/_i.tpl": parse_file(
                '{{ define "img" }}{{ .Values.tag | default .Chart.AppVersion }}{{ end }}'
            ),
            f"{CHART}/templates/x.yaml": parse_file(
                'image: {{ include "img" . }} name: {{ .Release.Name }}'
            ),
        }
    )
    analysis = index.analyse(f"{CHART}/templates/x.yaml", CHART)
    assert {r.path for r in analysis.reads} == {("tag",)} and analysis.chart_fields == {
        "AppVersion"
    }


def test_reads_name_the_file_that_reads_them():
    index = TemplateIndex(
        {
            f"{CHART}/templates/_l.tpl": parse_file('{{ define "l" }}{{ .Values.team }}{{ end }}'),
            f"{CHART}/templates/x.yaml": parse_file('{{ include "l" . }}{{ .Values.own }}'),
        }
    )
    analysis = index.analyse(f"{CHART}/templates/x.yaml", CHART)
    assert {(".".join(r.path), r.source) for r in analysis.reads} == {
        ("team", f"{CHART}/templates/_l.tpl"),
        ("own", f"{CHART}/templates/x.yaml"),
    }
    assert analysis.files == {f"{CHART}/templates/_l.tpl", f"{CHART}/templates/x.yaml"}


def test_parser_keeps_variables_strings_and_chains():
    (action,) = list(actions('{{- $x := index $.Values "a" | default .b.c -}}'))
    assert action.kind == "expr" and action.pipeline.declares == ("x",)
    first, second = action.pipeline.commands
    assert first[1:] == (Var("", ("Values",)), Str("a")) and second[1:] == (Field(("b", "c")),)


def test_key_paths_and_matching():
    assert split_key('a."b.c".d') == ("a", "b.c", "d")
    # found by tests/fuzz: the empty key (quoted by the values diff) was dropped, and an empty path crashed
    assert (
        split_key('""') == ("",)
        and split_key('a."".b') == ("a", "", "b")
        and split_key("a..b") == ("a", "b")
    )
    assert matches(("image",), ("image", "tag")) and matches(("image", "tag"), ("image",))
    assert matches(("env", "*", "value"), ("env",)) and matches(
        ("releases", "*", "chart"), ("releases", "web", "chart")
    )
    assert not matches(("image", "repository"), ("image", "tag"))
    assert matches((), ("anything",))


def test_charts_on_one_library_share_its_named_templates_but_never_each_others_files():
    """A named template's reads are found once for every chart tree with the same named templates,
    unless it reaches a template file by path: that file is each chart's own."""
    memo = BodyMemo()
    library = {
        "lib/templates/_labels.tpl": '{{ define "lib.labels" }}tier: {{ .Values.tier }}{{ end }}',
        "lib/templates/_checksum.tpl": '{{ define "lib.checksum" }}{{ include (print $.Template.BasePath "/cm.yaml") . }}{{ end }}',
    }
    parsed = {path: parse_file(text) for path, text in library.items()}

    def analysed(chart: str, configmap: str) -> set[str]:
        files = {
            **parsed,
            f"{chart}/templates/cm.yaml": parse_file(configmap),
            f"{chart}/templates/x.yaml": parse_file(
                '{{ include "lib.labels" . }}{{ include "lib.checksum" . }}'
            ),
        }
        index = TemplateIndex(files, memo)
        return {".".join(r.path) for r in index.analyse(f"{chart}/templates/x.yaml", chart).reads}

    assert analysed("charts/a", "data: {{ .Values.onlyA }}") == {"tier", "onlyA"}
    assert analysed("charts/b", "data: {{ .Values.onlyB }}") == {"tier", "onlyB"}
    shared = [key for key in memo.visits if key[0] == "lib.labels"]
    assert len(shared) == 1 and not [key for key in memo.visits if key[0] == "lib.checksum"]
