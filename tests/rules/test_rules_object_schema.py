"""The schema validator of object-schema-invalid against `kubernetes_validate.validate` (jsonschema over
the same schema files): both must accept and reject the same objects, at the same field."""

from __future__ import annotations

import copy

import kubernetes_validate
import pytest

from aftershock.rules.support.kubeschema import (
    builtin_schema,
    schema_version,
    schema_versions,
    validate_builtin,
)

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "strategy": {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0},
        },
        "template": {
            "metadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}},
            "spec": {
                "containers": [
                    {
                        "name": "app",
                        "image": "registry.example.com/app:1.2.3",
                        "ports": [{"name": "http", "containerPort": 8080}],
                        "env": [
                            {
                                "name": "A",
                                "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}},
                            }
                        ],
                        "resources": {"limits": {"cpu": "500m", "memory": 1073741824}},
                        "livenessProbe": {"httpGet": {"path": "/", "port": "http"}},
                        "securityContext": {
                            "capabilities": {"drop": ["ALL"]},
                            "readOnlyRootFilesystem": True,
                        },
                    }
                ],
                "volumes": [{"name": "tmp", "emptyDir": {}}],
            },
        },
    },
}


def mutated(path: list, value, delete: bool = False) -> dict:
    body = copy.deepcopy(DEPLOYMENT)
    node = body
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return body


CONTAINER = ["spec", "template", "spec", "containers", 0]
CASES = {
    "valid": (DEPLOYMENT, None),
    "unknown field": (
        mutated(["spec", "template", "spec", "bogus"], 1),
        "spec.template.spec.bogus",
    ),
    "string for an integer": (mutated(["spec", "replicas"], "2"), "spec.replicas"),
    "integer for a string": (
        mutated([*CONTAINER, "image"], 5),
        "spec.template.spec.containers[0].image",
    ),
    "map for a list": (
        mutated([*CONTAINER, "ports"], {"http": 8080}),
        "spec.template.spec.containers[0].ports",
    ),
    "missing required": (
        mutated([*CONTAINER, "name"], None, delete=True),
        "spec.template.spec.containers[0].name",
    ),
    "free text where the schema has no enum": (
        mutated(["spec", "strategy", "type"], "Rolling"),
        None,
    ),
    "int-or-string as a list": (
        mutated(["spec", "strategy", "rollingUpdate", "maxSurge"], [1]),
        "spec.strategy.rollingUpdate.maxSurge",
    ),
    "nested unknown field": (
        mutated([*CONTAINER, "livenessProbe", "httpGet", "url"], "/"),
        "spec.template.spec.containers[0].livenessProbe.httpGet.url",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_validator_agrees_with_kubernetes_validate(name):
    body, wrong_field = CASES[name]
    version = schema_version((1, 31))
    errors = validate_builtin(body, builtin_schema(version, "apps/v1", "Deployment"), version)
    try:
        kubernetes_validate.validate(copy.deepcopy(body), "1.31", strict=True)
        reference_valid = True
    except kubernetes_validate.ValidationError:
        reference_valid = False
    assert (not errors) == reference_valid == (wrong_field is None), errors
    if wrong_field is not None:
        assert [e.path for e in errors] == [wrong_field]


def test_daemonset_replicas_and_versions():
    daemonset = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "a"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"a": "b"}},
            "template": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "a", "image": "x"}]},
            },
        },
    }
    version = schema_version((1, 99))
    assert version == schema_versions()[-1] and schema_version((1, 10)) == schema_versions()[0]
    errors = validate_builtin(daemonset, builtin_schema(version, "apps/v1", "DaemonSet"), version)
    assert [(e.path, e.message) for e in errors] == [
        ("spec.replicas", "is not a field of this object")
    ]
    assert builtin_schema(version, "example.com/v1", "Widget") is None
    assert builtin_schema(version, "extensions/v1beta1", "Ingress") is None  # removed in 1.22
