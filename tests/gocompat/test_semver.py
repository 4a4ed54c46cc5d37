"""Chart.yaml kubeVersion constraints (Masterminds/semver v3 syntax, as Helm checks them)."""

from __future__ import annotations

import pytest

from aftershock.gocompat.semver import satisfies


@pytest.mark.parametrize(
    "version, constraint, ok",
    [
        ("v1.30.0", ">=1.22.0-0", True),
        ("v1.21.0", ">=1.22.0-0", False),
        ("v1.22.0", ">=1.22.0-0", True),
        ("v1.30.0", ">= 1.19.0 < 1.31.0", True),
        ("v1.31.0", ">=1.19.0, <1.31.0", False),
        ("v1.30.5", "~1.30.0", True),
        ("v1.31.0", "~1.30.0", False),
        ("v1.36.0", "^1.20", True),
        ("v2.0.0", "^1.20", False),
        ("v1.30.0", "1.30.x", True),
        ("v1.29.9", "1.30.x", False),
        ("v1.25.0", "<1.20 || >=1.24", True),
        ("v1.21.0", "<1.20 || >=1.24", False),
        ("v1.28.0", "1.20 - 1.28", True),
        ("v1.28.9", "1.20 - 1.28", True),
        ("v1.29.0", "1.20 - 1.28", False),
        ("v1.29.0", "!=1.29.0", False),
        ("v1.29.1", "!=1.29.0", True),
        ("v1.30.0-eks.1", ">=1.22.0", False),  # a pre-release needs a condition that names one
        ("v1.30.0-eks.1", ">=1.22.0-0", True),
        ("v1.30.0", ">1.29", True),
        ("v1.29.5", ">1.29", False),
        ("v1.29.5", "<=1.29", True),
        ("v1.30.0", "<=1.29", False),
    ],
)
def test_constraints(version, constraint, ok):
    assert satisfies(version, constraint) is ok


def test_malformed_constraint_is_an_error():
    with pytest.raises(ValueError):
        satisfies("v1.30.0", ">=banana")
