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
        "image": {
            "type": "object",
            "properties": {"tag": {"type": "string"}},
            "additionalProperties": False,
        },
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
    asserts: [{hasDocuments: {count: 1}}]
  - it: breaks a port
    set:
      ports.web.port: eighty
    asserts: [{hasDocuments: {count: 1}}]
  - it: adds an unknown key
    set:
      extra: true
    asserts: [{hasDocuments: {count: 1}}]
  - it: leaves the defaults
    set:
      image.tag: "1.0"
    asserts: [{hasDocuments: {count: 1}}]
"""


def _expected(texts: dict[str, str]) -> set[tuple[str, str, str, str]]:
    """What plain jsonschema says of every case, one full validation each."""
    from aftershock.rules.values.schema_violation import _cases

    validator = jsonschema.Draft7Validator(SCHEMA)
    return {
        (
            source,
            case,
            ".".join(str(p) for p in error.absolute_path) or "(top level)",
            error.validator,
        )
        for source, case, values in _cases(texts, "c")
        for error in validator.iter_errors(values)
    }


def test_every_case_gets_exactly_the_errors_a_full_validation_gives():
    texts = {
        "c/values.schema.json": json.dumps(SCHEMA),
        "c/values.yaml": VALUES,
        "c/tests/s_test.yaml": SUITE,
    }
    found = set(violations(texts, "c"))
    assert found == _expected(texts)
    by_case = {}
    for _source, case, where, keyword in found:
        by_case.setdefault(case, set()).add((where, keyword))
    assert by_case[""] == {("image.tag", "type"), ("replicas", "minimum")}  # the defaults
    assert ("replicas", "minimum") not in by_case["fixes the replicas"]
    assert ("ports.web.port", "type") in by_case["breaks a port"]
    assert ("(top level)", "additionalProperties") in by_case["adds an unknown key"]
    assert by_case["leaves the defaults"] == {("replicas", "minimum")}


HELM_SUITE = """\
suite: helm
tests:
  - it: disables the web port with null
    set:
      ports.web: null
      replicas: 2
    asserts: [{hasDocuments: {count: 1}}]
  - it: reads a values file first
    values: [../values-fix.yaml]
    set:
      image.tag: "2.0"
    asserts: [{hasDocuments: {count: 1}}]
  - it: refuses an unknown key
    set:
      extra: true
    asserts: [{failedTemplate: {errorPattern: "extra"}}]
  - it: is told a web port must be an object
    set:
      ports.web: 80
      replicas: 2
    asserts: [{hasDocuments: {count: 1}}]
"""


def _by_case(texts):
    found = {}
    for _source, case, where, keyword in violations(texts, "c"):
        found.setdefault(case, set()).add((where, keyword))
    return found


def test_values_are_merged_as_helm_merges_them_before_validation():
    """A null deletes the key (Helm coalesces before validating), values files count, and a test that
    expects the render to fail is not a case: each of these gave a false violation before."""
    valid = "image:\n  tag: '1.0'\nreplicas: 1\nports:\n  web:\n    port: 80\n"
    texts = {
        "c/values.schema.json": json.dumps(SCHEMA),
        "c/values.yaml": valid,
        "c/tests/helm_test.yaml": HELM_SUITE,
        "c/tests/values-fix.yaml": "replicas: 3\n",
    }
    by_case = _by_case(texts)
    assert (
        "disables the web port with null" not in by_case
    )  # ports.web deleted, not `None is not of type 'object'`
    assert "reads a values file first" not in by_case  # replicas 3 from the file, tag from `set`
    assert "refuses an unknown key" not in by_case  # written to fail
    assert by_case["is told a web port must be an object"] == {
        ("ports.web", "type")
    }  # a real violation stays


def test_a_schema_split_over_files_of_the_chart_is_resolved_from_the_repository():
    """bjw-s's charts split their schema (`"$ref": "schemas/ingress.json#/x"`): the rule crashed with
    Unresolvable. References to the chart's files resolve from the texts; a URL is never fetched."""
    texts = {
        "c/values.schema.json": json.dumps({"$ref": "schemas/defs.json#/root"}),
        "c/schemas/defs.json": json.dumps(
            {"root": {"type": "object", "properties": {"port": {"$ref": "more.json#/port"}}}}
        ),
        "c/schemas/more.json": json.dumps({"port": {"type": "integer"}}),
        "c/values.yaml": "port: http\n",
    }
    found = violations(texts, "c")
    assert [(v.where, v.keyword) for v in found.values()] == [("port", "type")]
    remote = {
        **texts,
        "c/values.schema.json": json.dumps({"$ref": "https://example.com/schema.json"}),
    }
    assert (
        violations(remote, "c") == {}
    )  # unresolvable offline: not judged here, and nothing downloaded


def _single(schema: dict[str, object], values: str) -> set[tuple[str, str]]:
    texts = {"c/values.schema.json": json.dumps(schema), "c/values.yaml": values}
    return {(v.where, v.keyword) for v in violations(texts, "c").values()}


def test_patterns_are_matched_with_go_s_linear_re2_not_python_s_backtracking_re():
    # POSIX classes are RE2's (and Go's): Python's `re` would read `[[:alpha:]]` as a set, and fail "abc"
    schema = {"properties": {"name": {"pattern": "^[[:alpha:]]+$"}}}
    assert _single(schema, "name: abc\n") == set()
    assert _single(schema, "name: abc1\n") == {("name", "pattern")}
    # the catastrophic pattern answers at once: RE2 does not backtrack
    redos = {"properties": {"name": {"pattern": "^(a+)+$"}}}
    assert _single(redos, f"name: {'a' * 40}!\n") == {("name", "pattern")}


def test_pattern_properties_and_the_properties_additional_properties_leaves_use_re2_too():
    schema = {
        "properties": {
            "env": {
                "type": "object",
                "patternProperties": {"^[[:upper:]_]+$": {"type": "string"}},
                "additionalProperties": False,
            }
        }
    }
    assert _single(schema, "env: {LEVEL: debug}\n") == set()
    assert _single(schema, "env: {LEVEL: 1}\n") == {("env.LEVEL", "type")}
    assert _single(schema, "env: {level: debug}\n") == {("env", "additionalProperties")}


def test_a_reference_bomb_is_not_walked():
    defs: dict[str, object] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(40)
    }
    defs["d40"] = {"type": "integer"}
    schema = {"$defs": defs, "properties": {"name": {"$ref": "#/$defs/d0"}}}
    assert _single(schema, "name: x\n") == set()  # the render refuses the chart, naming the bomb
