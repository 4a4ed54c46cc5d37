"""Where a CustomResourceDefinition holds schemas, and what in them is a value (pure).

A CRD's schema (`spec.versions[].schema`, and v1beta1's `spec.validation`) describes fields: a
property named `password` is the description of a field, not a credential, so `diff.redact` shows
it in clear. Only what a credential-named property's schema gives as a value (`default`, `example`,
`examples`, `const`, `enum`: `credential_text.SCHEMA_VALUES`) is shown as its size. Nothing else
of a CRD, and nothing of any other kind, is exempt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aftershock.diff.paths import KeySegment, Segment
from aftershock.model.objects import ObjectKey
from aftershock.safety.credential_text import SCHEMA_VALUES, is_sensitive_name

CRD_GROUP = "apiextensions.k8s.io"
ANY_ENTRY = None  # a list entry, by position or by name
# The paths of a CRD's schemas: each version's, and v1beta1's one for every version.
SCHEMA_ROOTS: tuple[tuple[str | None, ...], ...] = (
    ("spec", "versions", ANY_ENTRY, "schema"),
    ("spec", "validation"),
)
Roots = tuple[tuple[str | None, ...], ...]


def schema_roots(key: ObjectKey) -> Roots:
    """Where `key`'s object holds schemas: a CRD's roots; none for any other kind."""
    is_crd = key.group == CRD_GROUP and key.kind == "CustomResourceDefinition"
    return SCHEMA_ROOTS if is_crd else ()


def descend(roots: Roots, key: Any) -> Roots:
    """The rest of each root that starts with map key `key` (ANY_ENTRY: with a list entry)."""
    return tuple(root[1:] for root in roots if root and root[0] == key)


def step(segment: Segment) -> str | None:
    """A path segment as `descend` takes it: its key, or ANY_ENTRY for a list entry."""
    return segment.key if isinstance(segment, KeySegment) else ANY_ENTRY


def schema_depth(segments: Sequence[Segment], roots: Roots) -> int | None:
    """How many of `segments` lead to a schema root, when the path is in a schema; else None."""
    remaining = roots
    for depth, segment in enumerate(segments):
        if () in remaining:
            return depth
        remaining = descend(remaining, step(segment))
        if not remaining:
            return None
    return len(segments) if () in remaining else None


def schema_place(inside: Sequence[Segment]) -> tuple[bool, bool] | None:
    """What the path `inside` a schema leads to: (a `properties` map?, a credential-named
    property's schema?); None when it is a value such a property gives (shown as a size)."""
    properties, credential = False, False
    for segment in inside:
        key = segment.key if isinstance(segment, KeySegment) else None
        if properties:
            properties, credential = False, key is not None and is_sensitive_name(key)
        elif credential and key in SCHEMA_VALUES:
            return None
        else:
            properties, credential = key == "properties", False
    return properties, credential


def schema_shown(
    value: Any, sized: Any, *, properties: bool = False, credential: bool = False
) -> Any:
    """`value` (a schema, or a `properties` map) with the values credential-named properties give
    passed through `sized`; the same object when there are none."""
    if isinstance(value, list):
        items = [schema_shown(v, sized) for v in value]
        return items if any(a is not b for a, b in zip(items, value)) else value
    if not isinstance(value, dict):
        return value
    if properties:
        shown = {
            name: schema_shown(
                item, sized, credential=isinstance(name, str) and is_sensitive_name(name)
            )
            for name, item in value.items()
        }
    else:
        shown = {
            k: sized(v)
            if credential and k in SCHEMA_VALUES
            else schema_shown(v, sized, properties=k == "properties")
            for k, v in value.items()
        }
    return shown if any(shown[k] is not value[k] for k in value) else value
