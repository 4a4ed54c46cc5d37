"""deep_equal: Go's reflect.DeepEqual over decoded YAML, checked against a plain reference that asks
each value's kind, on random nested values mixing the kinds Python confuses."""

from __future__ import annotations

import copy
import math
import random
from typing import Any

from aftershock.diff.values import deep_equal

_SCALARS: list[Any] = [None, True, False, 0, 1, 1.0, 0.0, "1", "0", "", "a", float("nan")]
_KEYS: list[Any] = ["a", "b", "1", 1, True, 0, False]


def _kind(value: Any) -> str:
    for kind, test in (
        ("null", lambda v: v is None),
        ("bool", lambda v: isinstance(v, bool)),
        ("int", lambda v: isinstance(v, int)),
        ("float", lambda v: isinstance(v, float)),
        ("str", lambda v: isinstance(v, str)),
        ("map", lambda v: isinstance(v, dict)),
        ("list", lambda v: isinstance(v, (list, tuple))),
    ):
        if test(value):
            return kind
    raise AssertionError(value)


def _token(key: Any) -> Any:
    return (_kind(key), key)


def reference(left: Any, right: Any) -> bool:
    kind = _kind(left)
    if kind != _kind(right):
        return False
    if kind == "map":
        tokens = {_token(k): v for k, v in right.items()}
        return len(left) == len(right) and all(
            _token(k) in tokens and reference(v, tokens[_token(k)]) for k, v in left.items()
        )
    if kind == "list":
        return len(left) == len(right) and all(reference(a, b) for a, b in zip(left, right))
    if kind == "float" and math.isnan(left) and math.isnan(right):
        return True
    return bool(left == right)


def _value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth == 0 or roll < 0.4:
        return rng.choice(_SCALARS)
    if roll < 0.7:
        return {rng.choice(_KEYS): _value(rng, depth - 1) for _ in range(rng.randint(0, 3))}
    return [_value(rng, depth - 1) for _ in range(rng.randint(0, 3))]


def _mutated(rng: random.Random, value: Any) -> Any:
    """`value` copied with one node perhaps swapped for another kind (1 for 1.0, True for 1, ...)."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        return {**value, key: _mutated(rng, value[key])}
    if isinstance(value, list) and value and rng.random() < 0.7:
        index = rng.randrange(len(value))
        return [*value[:index], _mutated(rng, value[index]), *value[index + 1 :]]
    return rng.choice([*_SCALARS, copy.deepcopy(value)])


def test_agrees_with_the_reference_on_mixed_kinds() -> None:
    rng = random.Random(35)
    disagreements, equal = [], 0
    for _ in range(20000):
        left = _value(rng, 4)
        right = _mutated(rng, left) if rng.random() < 0.8 else _value(rng, 4)
        expected = reference(left, right)
        equal += expected
        if deep_equal(left, right) != expected or deep_equal(right, left) != reference(right, left):
            disagreements.append((left, right))
    assert disagreements == []
    assert 1000 < equal < 19000  # both answers are exercised


def test_kinds_python_confuses_stay_apart() -> None:
    assert not deep_equal({"a": 1}, {"a": True})
    assert not deep_equal({"a": [1]}, {"a": [1.0]})
    assert not deep_equal({1: "x"}, {True: "x"})
    assert not deep_equal({"1": "x"}, {1: "x"})
    assert deep_equal({"a": float("nan")}, {"a": float("nan")})


def test_shared_subtrees_are_equal_without_a_walk() -> None:
    shared = {"spec": {"versions": [{"name": "v1"}]}}
    assert deep_equal({"kind": "CRD", "body": shared}, {"kind": "CRD", "body": shared})
    assert not deep_equal({"kind": "CRD", "body": shared}, {"kind": "Other", "body": shared})
