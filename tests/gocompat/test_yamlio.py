"""aftershock.gocompat.yamlio parses YAML as Helm does: go-yaml v2 scalars, sigs.k8s.io/yaml keys."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest

from aftershock.gocompat import yamlio, yamlnodes
from aftershock.model.errors import MalformedInputError

COMPOSERS = [yamlnodes.PureComposer]
if yamlio.C_PARSER_AVAILABLE:
    COMPOSERS.append(yamlnodes.CComposer)

# Documents whose reading differs between YAML 1.1/go-yaml v2 and YAML 1.2 or PyYAML's defaults.
TRICKY_DOCUMENTS = {
    "booleans": "a: yes\nb: no\nc: on\nd: off\ne: y\nf: n\ng: Y\nh: N\ni: True\nj: OFF\nk: yES\n",
    "boolean keys": "n: 1\ny: 2\nyes: 3\n",
    "ints": "octal: 0777\nhex: 0x1F\no: 0o17\nbin: 0b101\nunder: 1_000\nplus: +1\nneg: -0b11\n",
    "floats": "e: 1e3\nE: 1.5E3\ndot: .5\nneg: -.5\ntrail: 1.\nbad_octal: 08\n"
    "big: 99999999999999999999\n",
    "strings": "sexagesimal: 1:20\ndate: 2001-12-14\nstamp: 2001-12-14t21:59:43.10-05:00\n"
    "half: 12e\nmixed: yES\nquoted: 'yes'\nversion: 1.2.3\n",
    "nulls": "a: ~\nb: null\nc:\nd: NULL\ne: nULL\n",
    "tags": "a: !!str 123\nb: !!int '0777'\nc: !!float 1\nd: !custom x\ne: !!str yes\n"
    "f: !!binary aGk=\n",
    "merge": "base: &b {x: 1, k: 2}\nother: &o {k: 20, z: 30}\nm:\n  <<: [*b, *o]\n  x: 10\n"
    "late:\n  x: 5\n  <<: *b\n",
    "number keys": "1: a\n1.5: b\n0.1: c\n1e3: d\n1e6: e\n100000: f\n0x10: g\n3.14159265358979: h\n"
    "1234567.0: i\n-0.0: j\n1e-5: k\n",
    "duplicate keys": "a: 1\na: 2\n",
    "first document only": "a: 1\n---\nb: 2\n",
}


def _same(ours: Any, helms: Any) -> bool:
    """Equal as Helm's JSON would carry them: numbers compared by value, bools never numbers."""
    if isinstance(ours, bool) or isinstance(helms, bool):
        return type(ours) is type(helms) and ours == helms
    if isinstance(ours, (int, float)) and isinstance(helms, (int, float)):
        return float(ours) == float(helms)
    if isinstance(ours, dict) and isinstance(helms, dict):
        return ours.keys() == helms.keys() and all(_same(ours[k], helms[k]) for k in ours)
    if isinstance(ours, list) and isinstance(helms, list):
        return len(ours) == len(helms) and all(map(_same, ours, helms))
    return type(ours) is type(helms) and ours == helms


@pytest.fixture(scope="module")
def helm_readings() -> dict[str, Any]:
    """What the real Helm SDK (values_from_yaml) makes of each tricky document."""
    script = (
        "import json, sys, helm_python\n"
        "docs = json.load(sys.stdin)\n"
        "print(json.dumps({k: helm_python.values_from_yaml(v) for k, v in docs.items()}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(TRICKY_DOCUMENTS),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    readings: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])
    return readings


@pytest.mark.parametrize("name", sorted(TRICKY_DOCUMENTS))
def test_reads_tricky_documents_as_the_helm_sdk_does(name: str, helm_readings: dict) -> None:
    ours = yamlio.load_one(TRICKY_DOCUMENTS[name], source=f"{name}.yaml")
    assert _same(ours, helm_readings[name]), (ours, helm_readings[name])


@pytest.mark.parametrize("composer", COMPOSERS, ids=lambda c: c.__name__)
def test_both_parsers_give_identical_values_and_types(composer: type) -> None:
    for name, text in TRICKY_DOCUMENTS.items():
        expected = yamlio.load_all(text, source=name)
        got = yamlio._load_documents(text, name, 0, None, composer)
        assert json.dumps(got) == json.dumps(expected)
        assert [type(v) for v in _leaves(got)] == [type(v) for v in _leaves(expected)]


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def test_yaml_1_1_scalars_keep_go_types() -> None:
    loaded = yamlio.load_one(
        "a: n\nb: 0777\nc: 1e3\nd: 1:20\ne: 2001-12-14\nf: 10\ng: 1.0\nh: .inf\n", source="v.yaml"
    )
    assert loaded["a"] is False
    assert loaded["b"] == 511
    assert type(loaded["c"]) is float and loaded["c"] == 1000.0
    assert loaded["d"] == "1:20"
    assert loaded["e"] == "2001-12-14"
    assert type(loaded["f"]) is int
    assert type(loaded["g"]) is float
    assert math.isinf(loaded["h"])


def test_non_string_keys_become_the_json_keys_helm_uses() -> None:
    loaded = yamlio.load_one("n: 1\non: 2\n7: 3\n1.5: 4\n1e6: 5\n", source="k.yaml")
    assert loaded == {"false": 1, "true": 2, "7": 3, "1.5": 4, "1e+06": 5}


def test_merge_key_applies_where_it_stands_and_earlier_maps_win() -> None:
    loaded = yamlio.load_one(TRICKY_DOCUMENTS["merge"], source="m.yaml")
    assert loaded["m"] == {"x": 10, "k": 2, "z": 30}
    assert loaded["late"] == {"x": 1, "k": 2}


def test_load_all_keeps_empty_documents_as_none() -> None:
    assert yamlio.load_all("a: 1\n---\n---\n# only a comment\n---\nb: 2\n", source="s") == [
        {"a": 1},
        None,
        None,
        {"b": 2},
    ]
    assert yamlio.load_all("", source="s") == []


def test_load_one_reads_only_the_first_document() -> None:
    assert yamlio.load_one("a: 1\n---\n[unclosed\n", source="s") == {"a": 1}
    assert yamlio.load_one("", source="s") is None


@pytest.mark.parametrize("composer", COMPOSERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a: 1\nb: [1, 2\n", 3),
        ("a: 1\nb: c: d\n", 2),
        ("a:\n\t- x\n", 2),
        ("a: 1\nb: !!int abc\n", 2),
        ("~: 1\n", 1),
        ("x: &a [*a]\n", 1),
    ],
)
def test_errors_name_source_and_line(composer: type, text: str, line: int) -> None:
    with pytest.raises(MalformedInputError) as caught:
        yamlio._load_documents(text, "values.yaml", 10, None, composer)
    message = str(caught.value)
    assert f"(values.yaml:{line + 10})" in message
    assert "fix the YAML syntax" in message
    assert "\n" not in message


def test_control_character_is_a_malformed_input_error() -> None:
    with pytest.raises(MalformedInputError, match="values.yaml"):
        yamlio.load_all("a: \x01\n", source="values.yaml")


def test_an_anchor_defined_again_replaces_the_earlier_one():
    text = "a: &x one\nb: *x\nc: &x two\nd: *x\n"
    assert yamlio.load_one(text, source="t") == {"a": "one", "b": "one", "c": "two", "d": "two"}


# Keys and values of every form the alias-free builder reads inline, and the ones it leaves to the rest.
INLINE_FORMS = (
    "plain: text\n'quoted': 'yes'\n\"dq\": \"0777\"\nyes: no\n7: 0x1F\n~x: ~\n.5: .5\n"
    "m:\n  <<: {a: 1, b: 2}\n  b: 3\n'<<': kept\n<x: y\n!!str 1: !!int '2'\n!custom k: !custom v\n"
    "list: [a, 'b', 1, 1.5, true, null, [x], {k: v}]\nempty:\n"
)


@pytest.mark.parametrize("composer", COMPOSERS, ids=lambda c: c.__name__)
def test_documents_without_aliases_read_as_the_general_builder_reads_them(composer: type) -> None:
    texts = [INLINE_FORMS, *(t for t in TRICKY_DOCUMENTS.values() if "*" not in t)]
    for text in texts:
        reader = composer(text)
        try:
            assert reader.check_node()
            node = reader.get_node()
        finally:
            reader.dispose()
        assert not reader.may_alias
        general = yamlio._Builder("t", 0).build(node)
        inline = yamlio._TreeBuilder("t", 0).build(node)
        assert json.dumps(inline) == json.dumps(general)
        assert [type(v) for v in _leaves(inline)] == [type(v) for v in _leaves(general)]
    loaded = yamlio.load_one(INLINE_FORMS, source="t")
    assert loaded["m"] == {"a": 1, "b": 3} and loaded["<<"] == "kept"
    assert loaded["true"] is False and loaded["7"] == 31 and loaded["1"] == 2
