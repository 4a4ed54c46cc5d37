"""Helm's values-schema error read for the keys a chart's schema does not know (render/schemas/schema_errors.py)."""

from __future__ import annotations

from aftershock.render.schemas.schema_errors import sets_every, unknown_keys, without_keys

HEADER = "values don't meet the specifications of the schema(s) in the following chart(s):\n"


def test_helm_4_wording_names_each_unknown_key_under_its_parent():
    error = (
        HEADER + "web:\n- at '/hub': additional properties 'hardened', 'it\\'s' not allowed\n"
        "- at '': additional properties 'tls' not allowed\n"
    )
    assert unknown_keys(error, "web") == (("hub", "hardened"), ("hub", "it's"), ("tls",))


def test_earlier_helm_wording_too():
    error = HEADER + "web:\n- hub: Additional property hardened is not allowed\n"
    assert unknown_keys(error, "web") == (("hub", "hardened"),)
    root = HEADER + "web:\n- (root): Additional property tls is not allowed\n"
    assert unknown_keys(root, "web") == (("tls",),)


def test_any_other_violation_a_subchart_or_another_error_is_not_only_unknown_keys():
    typed = (
        HEADER
        + "web:\n- at '/hub': additional properties 'x' not allowed\n- at '/replicas': got string, want integer\n"
    )
    assert unknown_keys(typed, "web") is None
    sub = HEADER + "redis:\n- at '': additional properties 'x' not allowed\n"
    assert unknown_keys(sub, "web") is None
    assert unknown_keys("execution error at (web/templates/a.yaml:1:2): no", "web") is None


def test_keys_are_left_out_and_maps_they_empty_with_them():
    values = {"hub": {"hardened": True}, "tls": True, "keep": {"a": 1}, "empty": {}}
    paths = (("hub", "hardened"), ("tls",))
    assert sets_every(values, paths) and not sets_every(values, (("keep", "b"),))
    assert without_keys(values, paths) == {"keep": {"a": 1}, "empty": {}}
    assert values["hub"] == {"hardened": True}  # a copy
