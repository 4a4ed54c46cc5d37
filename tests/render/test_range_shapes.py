"""Values that open a `range` shaped as its body reads entries, and guards inside a `with`."""

from __future__ import annotations

from aftershock.releases.values import value_at
from aftershock.render.range_shapes import range_bodies, range_openings
from aftershock.render.scenarios import guard_scenarios

PORTS = """\
{{- range .Values.extraPorts }}
- name: {{ .name }}
  port: {{ .port }}
  {{- if .tls }}
  tls: true
  {{- end }}
  {{- with .labels }}{{ .inner }}{{ end }}
{{- end }}
{{- range $name, $config := .Values.ports }}
  {{- if $config.strictTLSOptions }}strict{{ end }}
{{- end }}
{{- with .Values.core }}
  {{- if .strictTLSOptions }}--core.strictTLSOptions=true{{ end }}
  {{- with .defaultRuleSyntax }}{{ . }}{{ end }}
{{- end }}
"""
DEFAULTS = {
    "extraPorts": [],
    "ports": {"web": {"port": 80}},
    "core": {"strictTLSOptions": False, "defaultRuleSyntax": ""},
}


def test_an_empty_list_opens_with_one_entry_holding_the_fields_the_body_reads():
    openings = dict(range_openings(list(range_bodies(PORTS)), DEFAULTS, value_at))
    # `.inner` is read inside `with .labels`: a field of another object
    assert openings["extraPorts"] == [
        {"name": "aftershock", "port": "aftershock", "tls": True, "labels": "aftershock"}
    ]


def test_a_guard_on_an_entry_field_opens_on_the_first_entry_of_the_defaults():
    openings = dict(range_openings(list(range_bodies(PORTS)), DEFAULTS, value_at))
    assert openings["ports.web.strictTLSOptions"] is True


def test_a_guard_inside_a_with_of_a_values_map_opens_that_field_with_its_type():
    openings = dict(range_openings(list(range_bodies(PORTS)), DEFAULTS, value_at))
    assert openings["core.strictTLSOptions"] is True
    assert openings["core.defaultRuleSyntax"] == "aftershock"


def test_an_undocumented_path_opens_nothing():
    assert range_openings(list(range_bodies(PORTS)), {}, value_at) == []


def test_guard_scenarios_carry_the_range_openings():
    names = [s.name for s in guard_scenarios([PORTS], DEFAULTS)]
    assert "guard:core.defaultRuleSyntax=aftershock" in names
    assert any(n.startswith("guard:extraPorts=") for n in names)
