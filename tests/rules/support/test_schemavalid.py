"""The compiled predicate agrees with the schema walk: valid exactly when the walk finds no error."""

from __future__ import annotations

import copy
import random
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


# Values of every JSON type and the edge cases the type checks tell apart (bool against int,
# an integral float against integer, null against every type and enum).
ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    2.0,
    1.5,
    "",
    "x",
    "TCP",
    [],
    [1],
    {},
    {"a": 1},
]


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a node of `value` (maps, lists and scalars alike)."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _leaves(item, (*path, index))
    return found


def _mutations(body: dict[str, Any], rng: random.Random, count: int) -> list[dict[str, Any]]:
    """`count` copies of `body`, each with one node replaced, deleted or given an unknown key."""
    out = []
    paths = [p for p in _leaves(body) if p]
    for _ in range(count):
        copied = copy.deepcopy(body)
        path = rng.choice(paths)
        parent = copied
        for step in path[:-1]:
            parent = parent[step]
        action = rng.random()
        if action < 0.7:
            parent[path[-1]] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif action < 0.85 and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent[path[-1]], dict):
            parent[path[-1]]["bogusField"] = rng.choice(ODD_VALUES)
        out.append(copied)
    return out


CRONJOB: dict[str, Any] = {
    "apiVersion": "batch/v1",
    "kind": "CronJob",
    "metadata": {"name": "nightly", "annotations": {"a": "b"}},
    "spec": {
        "schedule": "0 3 * * *",
        "suspend": False,
        "jobTemplate": {
            "spec": {
                "backoffLimit": 2,
                "template": {
                    "spec": {
                        "restartPolicy": "OnFailure",
                        "containers": [
                            {
                                "name": "job",
                                "image": "busybox",
                                "args": ["run"],
                                "env": [{"name": "A", "value": "1"}],
                                "resources": {"requests": {"cpu": 0.5, "memory": "64Mi"}},
                                "securityContext": {"runAsUser": 1000, "privileged": False},
                            }
                        ],
                        "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
                    }
                },
            }
        },
    },
}
SERVICE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {
        "type": "ClusterIP",
        "selector": {"app": "web"},
        "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}],
    },
}


@pytest.mark.parametrize("body", [DEPLOYMENT, CRONJOB, SERVICE], ids=lambda b: b["kind"])
def test_predicate_matches_walk_on_random_mutations(body: dict[str, Any]) -> None:
    version = kubeschema.schema_version((1, 33))
    schema = kubeschema.builtin_schema(version, body["apiVersion"], body["kind"])
    assert schema is not None
    definitions = kubeschema._definitions(version)
    mutations = _mutations(body, random.Random(f"schemavalid {body['kind']}"), 400)
    verdicts = set()
    for mutation in mutations:
        walked = list(kubeschema._check(mutation, schema, definitions, ""))
        assert compiled_predicate(schema, definitions)(mutation) == (not walked), (mutation, walked)
        verdicts.add(not walked)
    assert verdicts == {True, False}  # both verdicts occur: the mutations test something


def test_predicate_matches_walk_on_crd_types_and_bounds() -> None:
    schema = kubeschema._structural(
        {
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 0},
                "ratio": {"type": "number", "nullable": True},
                "port": {"x-kubernetes-int-or-string": True},
                "on": {"type": "boolean"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "free": {"x-kubernetes-preserve-unknown-fields": True},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "items": {"type": "array", "minItems": 1, "items": {"type": "object"}},
                "either": {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 3}]},
                "both": {"allOf": [{"type": "string"}, {"minLength": 2}]},
                "odd": {"type": ["string", "weird"]},  # a type the walk does not know: anything
            },
        },
        top=True,
    )
    body = {
        "count": 1,
        "ratio": 0.5,
        "port": 80,
        "on": True,
        "mode": "a",
        "free": {"x": [1]},
        "labels": {"a": "b"},
        "items": [{"k": 1}],
        "either": "abc",
        "both": "xy",
        "odd": "s",
    }
    verdicts = set()
    for mutation in _mutations(body, random.Random("schemavalid crd"), 600):
        walked = list(kubeschema._check(mutation, schema, kubeschema.NO_DEFINITIONS, ""))
        predicate = compiled_predicate(schema, kubeschema.NO_DEFINITIONS)
        assert predicate(mutation) == (not walked), (mutation, walked)
        verdicts.add(not walked)
    assert verdicts == {True, False}
