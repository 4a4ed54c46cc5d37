"""The changed values keys of one render as a tree of their paths (pure), so that the keys a read
matches are found by walking the read, not by testing every key: a review of a values file with tens
of thousands of keys and hundreds of objects would otherwise compare every key with every object.

A key and a read match when one path is a prefix of the other, `*` in a read matching any key part
(as `provenance.link.matches`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from aftershock.provenance.reads import WILDCARD


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    ends: list[int] = field(default_factory=list)  # the keys whose path ends here
    size: int = 0  # keys ending here or below


class KeyIndex:
    """Key paths by position in `paths`; `matching` answers with positions."""

    def __init__(self, paths: Sequence[tuple[str, ...]]) -> None:
        self._root = _Node()
        for position, path in enumerate(paths):
            node = self._root
            node.size += 1
            for part in path:
                node = node.children.setdefault(part, _Node())
                node.size += 1
            node.ends.append(position)

    def matching(self, read: tuple[str, ...], limit: int) -> set[int] | None:
        """The keys `read` matches; None when they are more than `limit`."""
        found: set[int] = set()
        return found if self._collect(self._root, read, 0, found, limit) else None

    def _collect(
        self, node: _Node, read: tuple[str, ...], depth: int, found: set[int], limit: int
    ) -> bool:
        if depth == len(read):  # every key at or under the read
            if len(found) + node.size > limit:
                return False
            _all_under(node, found)
            return True
        found.update(node.ends)  # keys that stop above the read's end: prefixes of it
        if len(found) > limit:
            return False
        part = read[depth]
        children = (
            node.children.values()
            if part == WILDCARD
            else [c for c in (node.children.get(part),) if c]
        )
        return all(self._collect(child, read, depth + 1, found, limit) for child in children)


def _all_under(node: _Node, found: set[int]) -> None:
    stack = [node]
    while stack:
        current = stack.pop()
        found.update(current.ends)
        stack.extend(current.children.values())
