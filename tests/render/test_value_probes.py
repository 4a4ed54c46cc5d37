"""Which values an edit re-expresses, and the probe scenario each is rendered in."""

from __future__ import annotations

from aftershock.render.value_probes import (
    MAX_PROBES,
    Reexpressed,
    probe_scenarios,
    reexpressed_reads,
)
from hunks import one_hunk_change


def test_a_value_read_on_a_removed_and_an_added_line_of_one_hunk_is_reexpressed():
    change = one_hunk_change(
        "c/templates/job.yaml",
        " kind: Job",
        "-  name: job-{{ .Values.image.tag }}",
        '+  name: job-{{ .Values.image.tag | replace "." "-" }}',
        "+  app: {{ .Values.app }}",
        "-  other: {{ $.Values.other }}",
    )
    assert reexpressed_reads([change], "c") == (Reexpressed("image.tag"),)


def test_a_changed_default_of_a_reexpressed_value_is_noted():
    change = one_hunk_change(
        "templates/svc.yaml", "-port: {{ .Values.port | default 80 }}", "+port: {{ .Values.port }}"
    )
    assert reexpressed_reads([change], "") == (Reexpressed("port", defaulted=True),)


def test_a_value_read_by_the_same_action_on_a_line_edited_elsewhere_is_not():
    # the edit adds a namespace; the interface is read as it was
    line = '  net: [{"name": "br"%s, "if": "{{ .Values.nic | default .Values.cp_nic }}"}]'
    ns = ', "namespace": "{{ default .Release.Namespace .Values.global.ns }}"'
    change = one_hunk_change("c/templates/sts.yaml", "-" + line % "", "+" + line % ns)
    assert reexpressed_reads([change], "c") == ()
    spaced = one_hunk_change(
        "c/templates/sts.yaml", "-{{ .Values.a | quote }}", "+{{- .Values.a  | quote -}}"
    )
    assert reexpressed_reads([spaced], "c") == ()


def test_values_read_outside_the_charts_templates_or_on_one_side_only_are_not():
    outside = one_hunk_change(
        "d/templates/job.yaml", "-{{ .Values.a }}", "+{{ .Values.a | quote }}"
    )
    added = one_hunk_change("c/templates/job.yaml", "+{{ .Values.a | quote }}")
    assert reexpressed_reads([outside, added], "c") == ()


def test_a_probe_appends_a_suffix_string_functions_act_on_to_a_string_value_only():
    values = {"image": {"tag": "v1", "pull": True}, "name": "", "n": 3}
    reads = [Reexpressed(p) for p in ("image.tag", "image.pull", "name", "n", "absent")]
    (probe,) = probe_scenarios(reads, values)
    assert probe.name == "probe:image.tag=v1.Probe_1"
    assert probe.overrides == {"image": {"tag": "v1.Probe_1"}}


def test_a_defaulted_value_the_render_sets_is_unset_and_an_empty_one_is_left():
    values = {"port": 80, "name": "", "on": False}
    reads = [Reexpressed(p, defaulted=True) for p in ("port", "name", "on", "absent")]
    (probe,) = probe_scenarios(reads, values)
    assert (probe.name, probe.overrides) == ("probe:port=null", {"port": None})


def test_probes_are_bounded_per_chart():
    values = {f"k{i}": "x" for i in range(MAX_PROBES + 2)}
    assert len(probe_scenarios([Reexpressed(k) for k in values], values)) == MAX_PROBES
