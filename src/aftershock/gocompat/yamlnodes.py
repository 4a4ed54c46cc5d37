"""PyYAML node composition that leaves plain scalars untagged, for readers with their own scalar rules.

Helm reads YAML with go-yaml v2 rules (yamlio.py) and helm-unittest with go-yaml v3 rules
(goyaml.py). Both compose nodes the same way: a plain scalar is tagged PLAIN_TAG and resolved
later by the reader's own rules, a quoted one is a string. libyaml's parser is used when PyYAML has it.
Both go-yaml versions let a later anchor redefine a name (aliases after it mean the new node), where
PyYAML refuses the text: such a text is composed again with `RedefiningComposer` (`redefines_anchor`).

Every document composed here is checked for excessive aliasing (`check_aliasing`) with go-yaml's own
bound, so an alias bomb ("billion laughs") is refused as Helm and helm-unittest refuse it, before
anything walks its expansion; `safe_load_all` applies the same bound to PyYAML's plain safe loading.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Any

import yaml
from yaml.composer import Composer, ComposerError
from yaml.error import MarkedYAMLError
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

PLAIN_TAG = "tag:aftershock:plain"  # a plain scalar, resolved later by the reader's own rules
YAML_TAG_PREFIX = "tag:yaml.org,2002:"
_STR_TAG = YAML_TAG_PREFIX + "str"
_SEQUENCE_TAG: str = BaseResolver.DEFAULT_SEQUENCE_TAG
_MAPPING_TAG: str = BaseResolver.DEFAULT_MAPPING_TAG
C_PARSER_AVAILABLE = bool(getattr(yaml, "__with_libyaml__", False))
_SAFE_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# go-yaml's decoder (v2 since 2.2.4 and v3): past 100 aliased and 1,000 decoded nodes, the share of
# nodes decoded through aliases may be 99% up to 400,000 decoded nodes, falling to 10% at 4,000,000.
_ALIAS_RATIO_LOW, _ALIAS_RATIO_HIGH = 400_000, 4_000_000


class AliasBomb(MarkedYAMLError):
    """A document whose aliases expand beyond go-yaml's bound (an alias bomb); go-yaml's message."""

    def __init__(self, decoded: int) -> None:
        super().__init__(problem="document contains excessive aliasing")
        self.decoded = decoded


def _allowed_alias_ratio(decoded: int) -> float:
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


class _ExpandedSizes:
    """How many nodes decoding a node visits, aliases expanded; memoised, so linear in the text."""

    def __init__(self) -> None:
        self._sizes: dict[int, int] = {}
        self._open: set[int] = set()

    def of(self, node: Node) -> int:
        known = self._sizes.get(id(node))
        if known is not None:
            return known
        if id(node) in self._open:
            return 0  # a node containing an alias to itself: the readers refuse it with their own words
        self._open.add(id(node))
        size = 1 + sum(self.of(child) for child in _children(node))
        self._open.discard(id(node))
        self._sizes[id(node)] = size
        return size


def check_aliasing(root: Node | None) -> None:
    """Raise AliasBomb when decoding `root` would meet go-yaml's aliasing bound.

    PyYAML shares an aliased node, so the first visit of a node in document order is its anchor and
    any later one an alias, which adds the node's whole expansion at once: the share of aliased nodes
    only grows while an expansion is decoded, so checking at its end finds what go-yaml's per-node
    check finds (the alias nodes themselves go uncounted).
    """
    if root is None:
        return
    sizes, seen = _ExpandedSizes(), set()
    decoded = aliased = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            size = sizes.of(node)
            decoded, aliased = decoded + size, aliased + size
            if (
                aliased > 100
                and decoded > 1000
                and aliased / decoded > _allowed_alias_ratio(decoded)
            ):
                raise AliasBomb(decoded)
            continue
        seen.add(id(node))
        decoded += 1
        if decoded == _ALIAS_RATIO_HIGH and aliased / decoded > _allowed_alias_ratio(decoded):
            raise AliasBomb(decoded)
        if not isinstance(node, ScalarNode):
            stack.extend(reversed(_children(node)))
    # Between aliases the share falls and so may the allowed one: the difference is greatest at either
    # end of such a stretch or where the allowed share stops falling (checked above).
    if aliased > 100 and decoded > 1000 and aliased / decoded > _allowed_alias_ratio(decoded):
        raise AliasBomb(decoded)


def safe_load_all(text: str) -> Iterator[Any]:
    """yaml.safe_load_all (libyaml when available) with go-yaml's aliasing bound on each document."""
    loader = _SAFE_LOADER(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            check_aliasing(node)
            yield loader.construct_document(node)
    finally:
        loader.dispose()


def safe_load(text: str) -> Any:
    """The first document of `text` as yaml.safe_load reads it, with the aliasing bound."""
    return next(iter(safe_load_all(text)), None)


class DeferringResolver(BaseResolver):
    """Tags plain scalars PLAIN_TAG and quoted ones as strings; collections as usual.

    The parser calls it at every node: it has no path resolvers, so it answers at once and keeps
    no path (BaseResolver's methods would look for path resolvers each time). Its descend and ascend
    hooks, called around every node and ignored, are C callables that do nothing of note (neither
    binds to the instance): a Python no-op there was a quarter of the parse of rendered manifests."""

    def resolve(self, kind: type[Node], value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            return PLAIN_TAG if implicit[0] else _STR_TAG
        return _SEQUENCE_TAG if kind is SequenceNode else _MAPPING_TAG

    descend_resolver = operator.is_  # type: ignore[assignment]  # (node, index) -> ignored bool
    ascend_resolver = tuple  # type: ignore[assignment]  # () -> an ignored empty tuple


class PureComposer(Reader, Scanner, Parser, Composer, DeferringResolver):
    """PyYAML's pure-Python parser producing nodes tagged by `DeferringResolver`."""

    def __init__(self, stream: str) -> None:
        # an alias is written `*name` and needs an anchor `&name` before it: without both, nothing to bound
        self.may_alias = "*" in stream and "&" in stream
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        DeferringResolver.__init__(self)

    def get_node(self) -> Node | None:
        node: Node | None = super().get_node()  # type: ignore[no-untyped-call, unused-ignore]
        if self.may_alias:
            check_aliasing(node)
        return node


class RedefiningComposer(PureComposer):
    """The pure parser, with an anchor defined again replacing the earlier one, as go-yaml does."""

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if not self.check_event(AliasEvent):
            # as `resolve` above
            anchor = self.peek_event().anchor  # type: ignore[no-untyped-call, unused-ignore]
            if anchor is not None:
                self.anchors.pop(anchor, None)
        return super().compose_node(parent, index)


def redefines_anchor(exc: yaml.YAMLError) -> bool:
    """Whether PyYAML refused a text only because an anchor is defined twice."""
    return isinstance(exc, ComposerError) and "duplicate anchor" in str(exc.context or "")


def key_line(text: str, path: tuple[str, ...]) -> int | None:
    """The 1-based line of the mapping key at `path` (keys from the top) in a YAML text, or None."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    line = None
    for key in path:
        if not isinstance(node, MappingNode):
            return None
        match = next(
            ((k, v) for k, v in node.value if isinstance(k, ScalarNode) and k.value == key),
            None,
        )
        if match is None:
            return None
        line, node = match[0].start_mark.line + 1, match[1]
    return line


if C_PARSER_AVAILABLE:
    from yaml._yaml import CParser

    class CComposer(CParser, DeferringResolver):
        """libyaml's parser producing nodes tagged by `DeferringResolver`."""

        def __init__(self, stream: str) -> None:
            self.may_alias = "*" in stream and "&" in stream  # as PureComposer's
            CParser.__init__(self, stream)
            DeferringResolver.__init__(self)

        def get_node(self) -> Node | None:
            node: Node | None = super().get_node()
            if self.may_alias:
                check_aliasing(node)
            return node

    COMPOSER: type = CComposer
else:
    COMPOSER = PureComposer
