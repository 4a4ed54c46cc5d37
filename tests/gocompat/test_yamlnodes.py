"""The aliasing bound every YAML read holds (go-yaml's): an alias bomb is refused by each reader, in
milliseconds and without expanding it; ordinary anchors and aliases, even many, still load."""

from __future__ import annotations

import time

import pytest
import yaml

from aftershock.gocompat import yamlio
from aftershock.gocompat.goyaml import GoYamlError, load_documents, load_first
from aftershock.gocompat.yamlnodes import AliasBomb, PureComposer, safe_load, safe_load_all
from aftershock.model.errors import ExcessiveAliasingError, MalformedInputError, OverBoundError
from yamlbombs import billion_laughs, bomb_values


def _refused_quickly(call, error: type[BaseException]) -> BaseException:
    started = time.monotonic()
    with pytest.raises(error) as caught:
        call()
    assert time.monotonic() - started < 2
    return caught.value


@pytest.mark.parametrize(
    "text", [billion_laughs(), bomb_values(), "---\na: 1\n---\n" + billion_laughs()]
)
def test_helm_reads_refuse_an_alias_bomb_as_over_a_bound(text):
    error = _refused_quickly(lambda: yamlio.load_all(text, source="values.yaml"), OverBoundError)
    assert isinstance(error, ExcessiveAliasingError) and isinstance(error, MalformedInputError)
    assert "excessive aliasing" in error.line() and "values.yaml" in error.line()
    _refused_quickly(lambda: yamlio.load_one(bomb_values(), source="v"), ExcessiveAliasingError)


def test_helm_unittest_reads_refuse_it_with_go_yamls_message():
    error = _refused_quickly(lambda: load_documents(billion_laughs()), GoYamlError)
    assert str(error) == "yaml: document contains excessive aliasing"
    _refused_quickly(lambda: load_first(bomb_values()), GoYamlError)


def test_plain_safe_loading_refuses_it_as_a_yaml_error():
    _refused_quickly(lambda: list(safe_load_all(billion_laughs())), yaml.YAMLError)
    _refused_quickly(lambda: safe_load(bomb_values()), AliasBomb)


def test_the_pure_python_parser_holds_the_same_bound():
    composer = PureComposer(billion_laughs())
    assert composer.check_node()
    with pytest.raises(AliasBomb):
        composer.get_node()


def test_a_bomb_that_stays_under_go_yamls_bound_loads():
    text = billion_laughs(levels=3, width=5)  # 125 scalars: go-yaml decodes it too
    assert len(yamlio.load_one(text, source="v")["l3"]) == 5


def test_many_aliases_of_a_small_anchor_load():
    defaults = "defaults: &d {cpu: 100m, memory: 128Mi, labels: {team: a, tier: web}}\n"
    services = "".join(f"s{i}: {{<<: *d, name: s{i}}}\n" for i in range(2000))
    values = yamlio.load_one(defaults + services, source="values.yaml")
    assert values["s1999"] == {
        "cpu": "100m",
        "memory": "128Mi",
        "labels": values["s0"]["labels"],
        "name": "s1999",
    }
    assert safe_load(defaults + services)["s5"]["cpu"] == "100m"
    assert load_first(defaults + services)["s7"]["name"] == "s7"


def test_a_large_document_with_a_few_aliases_loads():
    rows = "".join(f"  - {{name: r{i}, value: {i}}}\n" for i in range(20000))
    text = f"rows: &rows\n{rows}copy: *rows\n"  # half of what it decodes comes through the alias
    assert len(yamlio.load_one(text, source="v")["copy"]) == 20000
