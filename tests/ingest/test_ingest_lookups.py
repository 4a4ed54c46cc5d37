"""What a chart's `lookup` calls ask for, read from template text: literal and release arguments,
calls only inside actions, and a helper's calls only where something includes it."""

from __future__ import annotations

from aftershock.ingest.lookups import (
    ReleaseIdentity,
    has_lookup_call,
    parse_template,
    reachable_calls,
)

RELEASE = ReleaseIdentity("web", "apps")


def shown(text: str, path: str = "c/templates/x.yaml") -> list[str]:
    return [c.shown() for c in reachable_calls([parse_template(path, text)])]


def test_literal_release_and_printed_arguments_are_known():
    text = (
        '{{ $a := lookup "v1" "ConfigMap" "platform" "settings" }}\n'
        '{{ $b := lookup "v1" "Secret" .Release.Namespace (print .Release.Name "-etc") }}\n'
        '{{ $c := lookup "v1" "Secret" $.Release.Namespace (printf "%s-db" .Release.Name) }}\n'
        '{{ range (lookup "v1" "Service" "" "").items }}{{ end }}\n'
    )
    (a, b, c, d) = reachable_calls([parse_template("c/templates/x.yaml", text)])
    assert a.identity(ReleaseIdentity()) == ("v1", "ConfigMap", "platform", "settings")
    assert b.identity(RELEASE) == ("v1", "Secret", "apps", "web-etc")
    assert b.identity(ReleaseIdentity()) is None  # the release is not known
    assert c.identity(RELEASE) == ("v1", "Secret", "apps", "web-db")
    assert d.identity(RELEASE) is None and d.kind.value() == "Service"  # a list asks for all
    assert d.namespace.value() == "" and d.name.value() == ""


def test_variables_are_not_known_statically():
    (call,) = reachable_calls(
        [parse_template("c/templates/x.yaml", "{{ lookup $version $kind $ns .Values.name }}")]
    )
    assert [a.value(RELEASE) for a in (call.api_version, call.kind, call.namespace, call.name)] == [
        None
    ] * 4


def test_the_word_in_text_or_comments_is_no_call():
    text = (
        "# helm lookup works with the deploy task, not with helm-diff\n"
        "{{/* build a lookup table ordered by kind, and then by name */}}\n"
        '{{- /* lookup "v1" "Secret" "" "" */ -}}\n'
        "data: {{ .Values.lookup | quote }}\n"
        'note: {{ "a lookup field is not available" }}\n'
    )
    assert shown(text) == [] and not has_lookup_call(text)
    assert has_lookup_call('{{ if (lookup "v1" "Namespace" "" "x") }}{{ end }}')


def test_a_helpers_call_counts_only_where_it_is_included():
    helpers = (
        '{{- define "lib.services" -}}\n{{ range (lookup "v1" "Service" "" "").items }}{{ end }}\n'
        "{{- end -}}\n"
        '{{- define "lib.settings" -}}{{ include "lib.inner" . }}{{- end -}}\n'
        '{{- define "lib.inner" -}}{{ lookup "v1" "ConfigMap" "" "x" }}{{- end -}}\n'
        '{{ lookup "v1" "Secret" "" "partial-top-level-is-not-rendered" }}\n'
    )
    lib = parse_template("lib/templates/_helpers.tpl", helpers)
    none = parse_template("app/templates/cm.yaml", "kind: ConfigMap\n")
    assert reachable_calls([lib, none]) == ()
    some = parse_template("app/templates/cm.yaml", '{{ include "lib.settings" . }}\n')
    assert [c.shown() for c in reachable_calls([lib, some])] == ["ConfigMap x"]
    computed = parse_template("app/templates/cm.yaml", "{{ include (print .Values.t) . }}\n")
    assert sorted(c.shown() for c in reachable_calls([lib, computed])) == [
        "ConfigMap x",
        "Service *",
    ]
