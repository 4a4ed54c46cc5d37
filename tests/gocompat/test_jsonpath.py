"""helm-unittest's YAML JSONPath (yaml-jsonpath v0.4.0 as forked by helm-unittest)."""

from __future__ import annotations

import pytest

from aftershock.gocompat.jsonpath import PathError, values_at
from aftershock.gocompat.jsonpath_lexer import lex

MANIFEST = {
    "metadata": {"name": "web", "annotations": {"kubernetes.io/ingress.class": "nginx"}},
    "spec": {
        "replicas": 2.0,
        "containers": [
            {
                "name": "app",
                "image": "app:1",
                "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
            },
            {
                "name": "side",
                "image": "side:1",
                "ports": [{"containerPort": 80}, {"containerPort": 8443}],
            },
        ],
    },
}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("metadata.name", ["web"]),
        ("$.metadata.name", ["web"]),
        ('metadata.annotations["kubernetes.io/ingress.class"]', ["nginx"]),
        ("metadata.annotations['kubernetes.io/ingress.class']", ["nginx"]),
        ("spec.containers[1].image", ["side:1"]),
        ("spec.containers[-1].name", ["side"]),
        ("spec.containers[*].name", ["app", "side"]),
        ("spec.containers[0:2].image", ["app:1", "side:1"]),
        ('spec.containers[0].env[?(@.name == "B")].value', ["2"]),
        (
            "spec.containers[?(@.name == 'side')].ports[?(@.containerPort > 100)].containerPort",
            [8443],
        ),
        ("spec.containers[?(@.ports)].name", ["side"]),
        ("spec.containers[?(@.name =~ /^ap/)].image", ["app:1"]),
        ("spec.containers[?(@.name != 'app' && @.image)].name", ["side"]),
        ("$..name", ["web", "A", "B", "app", "side"]),
        ("metadata.annotations[*]~", ["kubernetes.io/ingress.class"]),
        ("spec.replicas", [2]),  # the yaml round trip turns 2.0 into the int 2
        ("spec.missing", []),
        ("", [MANIFEST]),
    ],
)
def test_paths(path, expected):
    assert values_at(MANIFEST, path) == expected


def test_path_errors_carry_the_lexer_message():
    with pytest.raises(PathError, match=r"unmatched \[ at position 2"):
        values_at(MANIFEST, "a[")
    with pytest.raises(PathError, match="invalid character ' '"):
        values_at(MANIFEST, "metadata name")


def test_lexer_matches_upstream_lexemes():
    kinds = [(lexeme.kind.name, lexeme.text) for lexeme in lex("a.b[0]['c.d']")]
    assert kinds == [
        ("ROOT", "$"),
        ("UNDOTTED_CHILD", "a"),
        ("DOT_CHILD", ".b"),
        ("ARRAY_SUBSCRIPT", "[0]"),
        ("BRACKET_CHILD", "['c.d']"),
        ("IDENTITY", ""),
        ("EOF", ""),
    ]
