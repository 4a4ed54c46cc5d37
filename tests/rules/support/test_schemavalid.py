"""The compiled predicate agrees with the schema walk: valid exactly when the walk finds no error."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from aftershock.rules.support import kubeschema
from aftershock.rules.support.schemavalid import compiled_predicate

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {
                        "name": "web",
                        "image": "nginx:1.27",
                        "ports": [{"containerPort": 80, "protocol": "TCP"}],
                        "resources": {"limits": {"cpu": "500m", "memory": 128}},
                    }
                ]
            },
        },
    },
}


def _variant(edit: str) -> dict[str, Any]:
    body = copy.deepcopy(DEPLOYMENT)
    container = body["spec"]["template"]["spec"]["containers"][0]
    if edit == "unknown field":
        body["spec"]["bogus"] = 1
    elif edit == "wrong type":
        body["spec"]["replicas"] = "two"
    elif edit == "missing required":
        del container["name"]
    elif edit == "enum":
        container["ports"][0]["protocol"] = "XTP"
    elif edit == "null in enum":
        container["ports"][0]["protocol"] = None
    elif edit == "int or string":
        container["ports"][0]["containerPort"] = "http"
    elif edit == "nested list item":
        container["ports"].append({"containerPort": True})
    return body


EDITS = ["none", "unknown field", "wrong type", "missing required", "enum", "null in enum"]
EDITS += ["int or string", "nested list item"]


@pytest.mark.parametrize("edit", EDITS)
def test_predicate_matches_walk(edit: str) -> None:
    version = kubeschema.schema_version((1, 33))
    schema = kubeschema.builtin_schema(version, "apps/v1", "Deployment")
    assert schema is not None
    definitions = kubeschema._definitions(version)
    body = _variant(edit)
    walked = list(kubeschema._check(body, schema, definitions, ""))
    assert compiled_predicate(schema, definitions)(body) == (not walked)
    assert (edit == "none") <= (not walked)  # the valid Deployment has no error


def test_crd_schema_bounds_and_patterns() -> None:
    schema = kubeschema._structural(
        {
            "type": "object",
            "required": ["size"],
            "properties": {
                "size": {"type": "integer", "minimum": 1, "maximum": 5},
                "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8},
                "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
            },
        },
        top=True,
    )
    cases = [
        {"size": 3, "name": "abc", "tags": ["x"]},
        {"size": 0},
        {"size": 3, "name": "ABC"},
        {"size": 3, "name": "abcdefghij"},
        {"size": 3, "tags": ["a", "b", "c"]},
        {"size": 3, "tags": [1]},
        {"name": "abc"},
    ]
    for body in cases:
        walked = list(kubeschema._check(body, schema, kubeschema.NO_DEFINITIONS, ""))
        predicate = compiled_predicate(schema, kubeschema.NO_DEFINITIONS)
        assert predicate(body) == (not walked), body
    assert compiled_predicate(schema, kubeschema.NO_DEFINITIONS)(cases[0])
