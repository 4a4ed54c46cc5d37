"""What Helm 4's JSON Schema validator (santhosh-tekuri/jsonschema v6) would reach or walk for a schema:
the references it would load from outside the document (its loader fetches `http(s)://` addresses
and opens `file://` paths, a relative reference resolving against `file:///values.schema.json` or
the schema's `$id`; a `$schema` it does not ship is loaded the same way), and whether following the
document's own references makes a walk that would not end in time. Hand-written for fidelity with
that library; pure over a parsed schema.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

# The meta-schemas santhosh-tekuri/jsonschema v6 ships, by address less scheme and fragment.
_SHIPPED_DRAFTS = frozenset(
    f"json-schema.org/{draft}/schema"
    for draft in ("draft-04", "draft-06", "draft-07", "draft/2019-09", "draft/2020-12")
)
_REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")
# Subschemas a schema may expand to through its references: bjw-s' common library schema, the
# largest of the corpora, expands to under 10,000.
MAX_EXPANDED_NODES = 100_000


def outside_references(schema: Any) -> tuple[str, ...]:
    """Each reference of `schema` (already inlined) that its own document does not hold, as
    `keyword address`: what Helm's validator would fetch or open."""
    found: list[str] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        for keyword in _REFERENCES:
            value = node.get(keyword)
            if isinstance(value, str) and not value.startswith("#"):
                found.append(f"{keyword} {value}")
        meta = node.get("$schema")
        if isinstance(meta, str) and not _shipped(meta):
            found.append(f"$schema {meta}")
        stack.extend(node.values())
    return tuple(sorted(set(found)))


def schema_bomb(schema: Any, limit: int = MAX_EXPANDED_NODES) -> str | None:
    """Why validating against `schema` would not end in time, or None: following the document's own
    references (`#/…`) makes more than `limit` subschemas (forty definitions each naming the next
    twice expand to 2^40, and a validator, Helm's or Python's `jsonschema`, walks every one), or
    the nesting is too deep to walk. A reference back into one being expanded counts once:
    recursion is bounded by the values themselves. Linear in the schema: each node is sized once."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: Any) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            return 1
        active.add(key)
        total = 1
        children = (
            node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        )
        for child in children:
            if isinstance(child, (dict, list)):
                total += size(child)
            if total > limit:
                break
        ref = node.get("$ref") if isinstance(node, dict) else None
        if isinstance(ref, str) and ref.startswith("#/") and total <= limit:
            target = pointer(schema, ref[1:])
            if isinstance(target, (dict, list)):
                total += size(target)
        active.discard(key)
        sizes[key] = min(total, limit + 1)
        return sizes[key]

    try:
        over = size(schema) > limit
    except RecursionError:
        return "its subschemas nest too deep to validate"
    return f"its references expand past {limit} subschemas (a reference bomb)" if over else None


def _shipped(address: str) -> bool:
    bare = address.split("#", 1)[0]
    for scheme in ("https://", "http://"):
        bare = bare.removeprefix(scheme)
    return bare in _SHIPPED_DRAFTS


def pointer(document: Any, fragment: str) -> Any:
    """The value a JSON Pointer fragment (`/a/b~1c/0`) names in `document`, or None."""
    current = document
    for raw in [part for part in fragment.split("/") if part] if fragment else []:
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return None
    return current
