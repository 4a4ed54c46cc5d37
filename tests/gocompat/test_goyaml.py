"""helmtest's go-yaml v3 reading and writing: helm-unittest's view of YAML values and text."""

from __future__ import annotations

import math

import pytest

from aftershock.gocompat.gofmt import after_yaml_roundtrip, deep_equal, format_float, go_type_name
from aftershock.gocompat.goyaml import GoYamlError, load_documents, load_first
from aftershock.helmtest.goyaml_emit import marshal, trusted_marshal


def test_v3_scalars_differ_from_yaml_1_1():
    doc = load_first(
        "a: yes\nb: on\nc: True\nd: 0777\ne: 1_000\nf: 1.0\ng: 2001-12-14\nh: ~\ni: .inf\n"
        "j: 0x1F\nk: '12'\nl: 1e3\nm: 0o17\n"
    )
    assert doc["a"] == "yes" and doc["b"] == "on"  # YAML 1.1 booleans stay strings in v3
    assert doc["c"] is True
    assert doc["d"] == 511 and doc["e"] == 1000 and doc["j"] == 31 and doc["m"] == 15
    assert isinstance(doc["f"], float) and isinstance(doc["l"], float)
    assert doc["g"] == "2001-12-14"  # a timestamp decodes into interface{} as its text
    assert doc["h"] is None and math.isinf(doc["i"]) and doc["k"] == "12"


def test_duplicate_keys_and_merge_keys():
    with pytest.raises(GoYamlError, match="already defined"):
        load_first("a: 1\na: 2\n")
    doc = load_first("base: &b {x: 1, y: 2}\nchild:\n  <<: *b\n  y: 3\n")
    assert doc["child"] == {"x": 1, "y": 3}
    assert load_documents("a: 1\n---\n---\nb: 2\n") == [{"a": 1}, None, {"b": 2}]


def test_go_deep_equality_keeps_types_apart():
    assert not deep_equal(1, 1.0)
    assert not deep_equal(True, 1)
    assert deep_equal({"a": [1, "x", None]}, {"a": [1, "x", None]})
    assert not deep_equal({"a": 1}, {"a": 1, "b": None})
    assert go_type_name({"a": 1}) == "map[string]interface {}"
    assert go_type_name([1]) == "[]interface {}" and go_type_name(None) == ""


def test_floats_print_and_round_trip_as_go_does():
    assert [format_float(v) for v in (1.0, 0.5, 1e6, 123456789.0, 1e-5, -0.0)] == [
        "1",
        "0.5",
        "1e+06",
        "1.23456789e+08",
        "1e-05",
        "-0",
    ]
    # yaml.v3 writes 2.0 as "2", which reads back as an int: helm-unittest paths see the int.
    assert after_yaml_roundtrip({"a": [2.0, 2.5, 1e6]}) == {"a": [2, 2.5, 1e6]}
    assert isinstance(after_yaml_roundtrip(2.0), int)


def test_marshal_matches_yaml_v3_layout():
    value = {
        "b": ["x", {"k": "v", "j": []}],
        "a10": 1,
        "a9": {},
        "port": "80",
        "flag": "yes",
        "empty": "",
        "none": None,
        "text": "line one\nline two\n",
        "colon": "a: b",
        "f": 1.5,
    }
    assert marshal(value) == (
        "a9: {}\n"
        "a10: 1\n"
        "b:\n"
        "  - x\n"
        "  - j: []\n"
        "    k: v\n"
        "colon: 'a: b'\n"
        'empty: ""\n'
        "f: 1.5\n"
        'flag: "yes"\n'
        "none: null\n"
        'port: "80"\n'
        "text: |\n"
        "  line one\n"
        "  line two\n"
    )
    assert marshal("plain") == "plain\n"
    assert marshal("x" * 200) == "x" * 200 + "\n"  # the encoder never folds lines
    assert trusted_marshal({"raw": "\n\nnotes"}) == "raw: notes\n"
    assert marshal({"emoji": "ok \U0001f600"}) == 'emoji: "ok \\U0001F600"\n'


def test_an_anchor_defined_again_replaces_the_earlier_one():
    # go-yaml v3 accepts a redefined anchor (later aliases mean the new node); PyYAML refuses it
    text = "a: &port 8081\nb: *port\nc: &port 1880\nd: *port\n"
    assert load_documents(text) == [{"a": 8081, "b": 8081, "c": 1880, "d": 1880}]
