"""Concrete locations: helm-unittest paths and diff field paths meet on the same rendered body."""

from __future__ import annotations

import pytest

from aftershock.evidence.documents import CheckedDocument, DocumentMap
from aftershock.evidence.guards import Located, assertion_ref, same_value
from aftershock.evidence.locations import (
    assertion_locations,
    coverage,
    field_location,
    location_text,
)
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.test_results import AssertionResult
from aftershock.model.tests import Coverage

BODY = {
    "metadata": {"name": "web", "labels": {"app": "web", "app.kubernetes.io/part-of": "platform"}},
    "spec": {
        "replicas": 2,
        "paused": False,
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "sidecar",
                        "image": "envoy:1",
                        "ready": True,
                        "ports": [{"containerPort": 80}],
                    },
                    {
                        "name": "app",
                        "image": "nginx:1",
                        "ready": True,
                        "limit": None,
                        "env": [
                            {"name": "MODE", "value": "fast"},
                            {"name": "LEVEL", "value": "info"},
                        ],
                    },
                ]
            }
        },
    },
}
CONTAINERS = ("spec", "template", "spec", "containers")


@pytest.mark.parametrize(
    "path, expected",
    [
        ("spec.replicas", [("spec", "replicas")]),
        ("spec.template.spec.containers[1].image", [(*CONTAINERS, 1, "image")]),
        (
            'metadata.labels["app.kubernetes.io/part-of"]',
            [("metadata", "labels", "app.kubernetes.io/part-of")],
        ),
        ("metadata.labels['app']", [("metadata", "labels", "app")]),
        ('spec.template.spec.containers[?(@.name == "app")].env', [(*CONTAINERS, 1, "env")]),
        (
            "spec.template.spec.containers[*].name",
            [(*CONTAINERS, 0, "name"), (*CONTAINERS, 1, "name")],
        ),
        ("spec.template.spec.containers[-1:].image", [(*CONTAINERS, 1, "image")]),
        ("..containerPort", [(*CONTAINERS, 0, "ports", 0, "containerPort")]),
        (
            "spec.template.spec.containers[1].env[?(@.value =~ /^in/)].name",
            [(*CONTAINERS, 1, "env", 1, "name")],
        ),
        ("spec.replicas.nothing", []),
        ("", [()]),
    ],
)
def test_helm_unittest_paths_resolve_to_concrete_locations(path, expected):
    assert list(assertion_locations(BODY, path)) == expected


def test_booleans_and_nulls_are_located_by_a_second_evaluation():
    assert assertion_locations(BODY, "spec.paused") == (("spec", "paused"),)
    assert assertion_locations(BODY, "spec.template.spec.containers[*].ready") == (
        (*CONTAINERS, 0, "ready"),
        (*CONTAINERS, 1, "ready"),
    )
    assert assertion_locations(BODY, "spec.template.spec.containers[1].limit") == (
        (*CONTAINERS, 1, "limit"),
    )
    # a filter on a boolean still filters as helm-unittest does (first evaluation)
    assert assertion_locations(BODY, "spec.template.spec.containers[?(@.ready == true)].name") == (
        (*CONTAINERS, 0, "name"),
        (*CONTAINERS, 1, "name"),
    )


def test_an_invalid_path_resolves_to_nothing():
    assert assertion_locations(BODY, "spec.template[[") is None


def test_an_integral_float_is_found_as_helm_unittest_finds_it():
    assert assertion_locations({"spec": {"replicas": 2.0}}, "spec.replicas") == (
        ("spec", "replicas"),
    )


@pytest.mark.parametrize(
    "path, expected",
    [
        (
            "spec.template.spec.containers[name=app].env[name=LEVEL].value",
            (*CONTAINERS, 1, "env", 1, "value"),
        ),
        ("spec.template.spec.containers[0].ports[containerPort=80]", (*CONTAINERS, 0, "ports", 0)),
        (
            'metadata.labels["app.kubernetes.io/part-of"]',
            ("metadata", "labels", "app.kubernetes.io/part-of"),
        ),
        ("spec.template.spec.containers[name=db]", None),
        ('spec.template.spec.containers[port="80"]', None),
        ("spec..broken", None),
        ("", ()),
    ],
)
def test_diff_field_paths_walk_to_concrete_locations(path, expected):
    assert field_location(BODY, path) == expected


def test_both_kinds_of_path_meet_on_one_location():
    field = field_location(BODY, "spec.template.spec.containers[name=app].image")
    (assertion,) = assertion_locations(
        BODY, 'spec.template.spec.containers[?(@.name == "app")].image'
    )
    assert field == assertion and location_text(field) == "spec.template.spec.containers[1].image"


def test_coverage_is_exact_enclosing_or_partial():
    field = (*CONTAINERS, 1, "image")
    assert coverage(field, field) is Coverage.EXACT
    assert coverage((*CONTAINERS, 1), field) is Coverage.ENCLOSING
    assert coverage((), field) is Coverage.ENCLOSING
    assert coverage((*CONTAINERS, 1, "image", "x"), field) is Coverage.PARTIAL
    assert coverage((*CONTAINERS, 0, "image"), field) is None
    assert location_text(("metadata", "labels", "a/b")) == 'metadata.labels["a/b"]'


def _obj(name: str, template: str, index: int) -> RenderedObject:
    return RenderedObject(
        ObjectKey("", "ConfigMap", "default", name),
        "v1",
        {"kind": "ConfigMap"},
        "c",
        template,
        index,
    )


def test_documents_match_by_rank_among_the_documents_that_hold_objects():
    # the review counts a comment-only document (index 1 holds nothing); helm-unittest does not
    objects = [
        _obj("a", "c/templates/x.yaml", 0),
        _obj("b", "c/templates/x.yaml", 2),
        _obj("i1", "c/templates/list.yaml", 0),
        _obj("i2", "c/templates/list.yaml", 0),
    ]
    documents = DocumentMap(objects)
    assert documents.object_at("c/templates/x.yaml", 0).key.name == "a"
    assert documents.object_at("c/templates/x.yaml", 1).key.name == "b"
    assert documents.object_at("c/templates/x.yaml", 2) is None
    assert documents.object_at("c/templates/list.yaml", 0) is None  # a List: no single object
    assert documents.object_at("c/templates/other.yaml", 0) is None


def _located(path: str, actuals: tuple, assert_type: str = "equal") -> Located:
    doc = CheckedDocument(
        ("tests/t_test.yaml", "t"),
        "s",
        AssertionResult(0, assert_type, False, True, path=path),
        "c/templates/d.yaml",
        0,
        path,
        None,
        actuals,
    )
    (location,) = assertion_locations(BODY, path)
    return Located(doc, assertion_ref(doc, location), location)


def test_same_value_walks_an_enclosing_assertion_down_to_the_field():
    field = field_location(BODY, "spec.template.spec.containers[name=app].env[name=MODE].value")
    env = BODY["spec"]["template"]["spec"]["containers"][1]["env"]
    # the test's own values added an entry: the list differs, the field's value does not
    seen_more = _located(
        "spec.template.spec.containers[1].env", (env + [{"name": "X", "value": "y"}],)
    )
    assert same_value(seen_more, field, BODY)
    other = _located("spec.template.spec.containers[1].env", ([{"name": "MODE", "value": "slow"}],))
    assert not same_value(other, field, BODY)
    exact = _located("spec.template.spec.containers[1].env[0].value", ("fast",))
    assert same_value(exact, field, BODY) and not same_value(
        _located(exact.doc.path, ("slow",)), field, BODY
    )
    length = _located("spec.template.spec.containers[1].env", (2,), "lengthEqual")
    assert same_value(
        length, field_location(BODY, "spec.template.spec.containers[name=app].env"), BODY
    )
    assert not same_value(length, field, BODY)  # a length says nothing about one value
