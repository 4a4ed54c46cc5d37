"""The values a helm-unittest test renders with: `set` paths and the merge order."""

from __future__ import annotations

import pytest

from aftershock.helmtest.values import SetPathError, parse_set_path, user_values, value_of_set_path


def test_set_paths_parse_like_helm_unittest():
    assert parse_set_path("a.b") == ["a", "b"]
    assert parse_set_path("a[1].b") == ["a", 1, "b"]
    assert parse_set_path("annotations.[kubernetes.io/name]") == [
        "annotations",
        "kubernetes.io/name",
    ]
    assert value_of_set_path("a[1]", {"x": 1}) == {"a": [None, {"x": 1}]}
    with pytest.raises(SetPathError, match="invalid token found ="):
        parse_set_path("a=b")
    with pytest.raises(SetPathError, match="missing index value"):
        parse_set_path("a[b.c]")


def test_later_sources_win_in_upstream_order():
    suite_file = {"image": {"tag": "file", "repo": "r"}, "list": [1, 2]}
    test_file = {"image": {"tag": "test-file"}}
    merged = user_values(
        [suite_file, test_file],
        {"image.tag": "suite-set", "n": 1},
        {"image.tag": "test-set", "list": [3]},
        "chart",
    )
    assert merged == {"image": {"tag": "test-set", "repo": "r"}, "list": [3], "n": 1}


def test_subchart_suites_scope_values_under_the_subchart():
    merged = user_values([], {"global.x": 1, "y": 2}, {}, "parent/charts/child")
    assert merged == {"global": {"x": 1}, "child": {"global": {"x": 1}, "y": 2}}
