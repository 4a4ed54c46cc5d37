"""Which template texts may render differently from one render to the next."""

from __future__ import annotations

import pytest

from aftershock.render.plan import may_be_nondeterministic


@pytest.mark.parametrize(
    "text, varies",
    [
        ("token: {{ randAlphaNum 16 }}", True),
        ("{{- $ips := values .Values.regions }}", True),  # Go's map order
        ("{{ range $k := keys .Values.labels }}{{ $k }}{{ end }}", True),
        ('{{ keys .Values.labels | sortAlpha | join "," }}', False),
        ('{{ .Values.keys }} {{ $values }} {{ dict "values" 1 }}', False),
        ("values: [a, b]\nkeys: {{ .Values.x }}", False),  # words in YAML text call nothing
    ],
)
def test_what_may_vary_between_renders(text, varies):
    assert may_be_nondeterministic([text]) is varies
