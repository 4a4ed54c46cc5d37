"""The conditions a change writes on values keys the chart leaves unset, and the guard scenario each
is opened in."""

from __future__ import annotations

from aftershock.render.edited_guards import (
    MAX_EDITED_GUARDS,
    block_openings,
    edited_guard_paths,
    edited_guard_scenarios,
)
from aftershock.render.scenarios import values_read
from hunks import one_hunk_change


def test_conditions_on_added_and_removed_lines_are_read_hasKey_as_its_key():
    """sapcc's nova: `hasKey $envAll.Values.conductor.config_file "cross_hv"`, on an added line."""
    change = one_hunk_change(
        "nova/templates/etc.yaml",
        " {{- if .Values.unchanged }}",
        '+{{- if hasKey $envAll.Values.conductor.config_file "cross_hv" }}',
        "+  x: {{ .Values.not_a_condition }}",
        "-{{- with .Values.old.section -}}",
        '+{{- else if and .Values.a (hasKey .Values "top") }}',
    )
    assert edited_guard_paths([change], "nova", {}.get) == (
        "conductor.config_file.cross_hv",
        "old.section",
        "top",
        "a",
    )
    assert edited_guard_paths([change], "other", {}.get) == ()


def test_a_key_beside_maps_is_opened_with_a_map_and_another_with_a_text():
    values = {"conductor": {"config_file": {"DEFAULT": {"debug": True}}}, "top": {"x": 1}}
    section, text = edited_guard_scenarios(["conductor.config_file.cross_hv", "top.y"], [values])
    assert section.name == 'guard:conductor.config_file.cross_hv={"aftershock": "aftershock"}'
    assert section.overrides == {
        "conductor": {"config_file": {"cross_hv": {"aftershock": "aftershock"}}}
    }
    assert (text.name, text.overrides) == ("guard:top.y=aftershock", {"top": {"y": "aftershock"}})


def test_a_key_the_values_set_or_one_under_a_text_gets_no_scenario():
    values = {"documented": "", "name": "text", "given": {"on": False}}
    paths = ["documented", "name.sub", "given.on", "absent.deep.key"]
    (only,) = edited_guard_scenarios(paths, [values])
    assert only.name == "guard:absent.deep.key=aftershock"
    # the base documents it: its own toggle opens the removed guard there
    assert edited_guard_scenarios(["legacy.enabled"], [{}, {"legacy": {"enabled": False}}]) == []


def test_edited_guards_are_bounded_per_chart():
    paths = [f"k{i}" for i in range(MAX_EDITED_GUARDS + 2)]
    assert len(edited_guard_scenarios(paths, [{}])) == MAX_EDITED_GUARDS


GARDEN = """\
spec:
{{- if .Values.garden.enabled }}
  settings:
    {{- range .Values.zones }}
    - {{ . }}
    {{- end }}
    {{- if dig "runtimeCluster" "verticalPodAutoscaler" "maxAllowed" nil .Values.garden }}
    maxAllowed: {{ toYaml . | nindent 6 }}
    {{- else if .Values.garden.fallback }}
    fallback: true
    {{- end }}
{{- end }}
status: {}
"""


def test_the_blocks_an_added_line_stands_in_are_read_after_its_own_conditions():
    """sapcc's cc-gardener (9cbad02d51): the line edited under `if dig ... .Values.garden` ran in no
    scenario, the key being one the chart does not document."""
    change = one_hunk_change(
        "gardener/templates/garden.yaml",
        *(f" {line}" for line in GARDEN.splitlines()[:7]),
        "-    maxAllowed: {{ toYaml .Values.garden.runtimeCluster.verticalPodAutoscaler.maxAllowed }}",
        "+    maxAllowed: {{ toYaml . | nindent 6 }}",
        "+    {{- if .Values.garden.label }}x: y{{ end }}",
    )
    read = {"gardener/templates/garden.yaml": GARDEN}.get
    assert edited_guard_paths([change], "gardener", read) == (
        "garden.label",
        "garden.enabled",
        "garden.runtimeCluster.verticalPodAutoscaler.maxAllowed",
    )


def test_block_openings_pair_each_end_and_follow_else_if():
    lines = GARDEN.splitlines()
    at = {text: number for number, text in enumerate(lines, 1)}
    assert block_openings(GARDEN, {at["    - {{ . }}"]}) == ["{{- if .Values.garden.enabled }}"]
    assert block_openings(GARDEN, {at["    fallback: true"]}) == [
        "{{- if .Values.garden.enabled }}",
        "{{- else if .Values.garden.fallback }}",
    ]
    assert block_openings(GARDEN, {at["status: {}"]}) == []


def test_dig_reads_the_nested_path():
    assert values_read('if dig "runtimeCluster" "vpa" "maxAllowed" nil .Values.garden') == [
        "garden.runtimeCluster.vpa.maxAllowed"
    ]
    assert values_read('with dig "a" "b" (dict) $.Values') == ["a.b"]
    assert values_read('dig "a" "" .Values.m') == ["m.a"]
