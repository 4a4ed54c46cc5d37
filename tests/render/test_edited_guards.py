"""The conditions a change writes on values keys the chart leaves unset, and the guard scenario each
is opened in."""

from __future__ import annotations

from aftershock.render.edited_guards import (
    MAX_EDITED_GUARDS,
    edited_guard_paths,
    edited_guard_scenarios,
)
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
    assert edited_guard_paths([change], "nova") == (
        "conductor.config_file.cross_hv",
        "old.section",
        "top",
        "a",
    )
    assert edited_guard_paths([change], "other") == ()


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
