"""values-schema-violation validates every case (defaults, ci values, each test's `set`) against the
chart's schema; a subtree shared with the defaults is validated once, and that must not change a
single error of any case."""

from __future__ import annotations

import json

import jsonschema

from aftershock.rules.values.schema_violation import violations

SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["image"],
    "additionalProperties": False,
    "properties": {
        "image": {"type": "object", "properties": {"tag": {"type": "string"}}, "additionalProperties": False},
        "replicas": {"type": "integer", "minimum": 1},
        "ports": {"type": "object", "additionalProperties": {"$ref": "#/definitions/port"}},
    },
    "definitions": {"port": {"type": "object", "properties": {"port": {"type": "integer"}}}},
}
VALUES = "image:\n  tag: 1.0\nreplicas: 0\nports:\n  web:\n    port: 80\n"
SUITE = """\
suite: s
tests:
  - it: fixes the replicas
    set:
      replicas: 2
  - it: breaks a port
    set:
      ports.web.port: eighty
  - it: adds an unknown key
    set:
      extra: true
  - it: leaves the defaults
    set:
      image.tag: "1.0"
"""


def _expected(texts: dict[str, str]) -> set[tuple[str, str, str, str]]:
    """What plain jsonschema says of every case, one full validation each."""
    from aftershock.rules.values.schema_violation import _cases

    validator = jsonschema.Draft7Validator(SCHEMA)
    return {(source, case, ".".join(str(p) for p in error.absolute_path) or "(top level)", error.validator)
            for source, case, values in _cases(texts, "c") for error in validator.iter_errors(values)}


def test_every_case_gets_exactly_the_errors_a_full_validation_gives():
    texts = {"c/values.schema.json": json.dumps(SCHEMA), "c/values.yaml": VALUES, "c/tests/s_test.yaml": SUITE}
    found = set(violations(texts, "c"))
    assert found == _expected(texts)
    by_case = {}
    for source, case, where, keyword in found:
        by_case.setdefault(case, set()).add((where, keyword))
    assert by_case[""] == {("image.tag", "type"), ("replicas", "minimum")}  # the defaults
    assert ("replicas", "minimum") not in by_case["fixes the replicas"]
    assert ("ports.web.port", "type") in by_case["breaks a port"]
    assert ("(top level)", "additionalProperties") in by_case["adds an unknown key"]
    assert by_case["leaves the defaults"] == {("replicas", "minimum")}
