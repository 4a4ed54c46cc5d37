"""Encoding `RenderRequest.values` as the JSON document Helm reads (both backends pass JSON)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def _as_json_type(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


def values_json(values: Mapping[str, Any]) -> str:
    """The values as JSON; ValueError or TypeError on NaN, infinity or a non-JSON type."""
    return json.dumps(dict(values), allow_nan=False, default=_as_json_type)


def values_error(exc: Exception) -> str:
    """The outcome error for values that `values_json` refused."""
    return f"values cannot be passed to Helm: {exc}"
