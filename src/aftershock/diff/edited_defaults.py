"""Values a borrowed context gives, less those that would hide what the change edits in the chart's defaults.

A chart whose defaults cannot render alone is rendered in the values of its tests or chart-testing
files. Where such a file sets a key the change edits in `values.yaml` (`image.tag`, `env`), the edit
would render the same at both refs and never show. Those keys are taken out of the borrowed values,
so the chart's own default at each ref renders there; maps are walked key by key, and a key the
change leaves alone keeps the borrowed value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.diff.values_keys import same_value


def spare_edited(
    borrowed: Mapping[str, Any], before: Mapping[str, Any], after: Mapping[str, Any]
) -> dict[str, Any]:
    """`borrowed` less each key whose default differs between `before` and `after` (base and head
    `values.yaml`), at any depth."""
    kept: dict[str, Any] = {}
    for key, value in borrowed.items():
        old, new = before.get(key), after.get(key)
        if (key not in before and key not in after) or same_value(old, new):
            kept[key] = value
        elif isinstance(value, Mapping) and isinstance(old, Mapping) and isinstance(new, Mapping):
            kept[key] = spare_edited(value, old, new)
        # else: the change edits this default; the borrowed value would hide it
    return kept
