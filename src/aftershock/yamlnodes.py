"""PyYAML node composition that leaves plain scalars untagged, for readers with their own scalar rules.

Helm reads YAML with go-yaml v2 rules (yamlio.py) and helm-unittest with go-yaml v3 rules
(helmtest/goyaml.py). Both compose nodes the same way: a plain scalar is tagged PLAIN_TAG and resolved
later by the reader's own rules, a quoted one is a string. libyaml's parser is used when PyYAML has it.
Both go-yaml versions let a later anchor redefine a name (aliases after it mean the new node), where
PyYAML refuses the text: such a text is composed again with `RedefiningComposer` (`redefines_anchor`).
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import Composer, ComposerError
from yaml.events import AliasEvent
from yaml.nodes import Node, ScalarNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

PLAIN_TAG = "tag:aftershock:plain"  # a plain scalar, resolved later by the reader's own rules
YAML_TAG_PREFIX = "tag:yaml.org,2002:"
C_PARSER_AVAILABLE = bool(getattr(yaml, "__with_libyaml__", False))


class DeferringResolver(BaseResolver):
    """Tags plain scalars PLAIN_TAG and quoted ones as strings; collections as usual."""

    def resolve(self, kind: type[Node], value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            return PLAIN_TAG if implicit[0] else YAML_TAG_PREFIX + "str"
        # Untyped in PyYAML's stub; unused-ignore: only flagged where untyped calls are disallowed.
        tag: str = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call, unused-ignore]
        return tag


class PureComposer(Reader, Scanner, Parser, Composer, DeferringResolver):
    """PyYAML's pure-Python parser producing nodes tagged by `DeferringResolver`."""

    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        DeferringResolver.__init__(self)


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


if C_PARSER_AVAILABLE:
    from yaml._yaml import CParser

    class CComposer(CParser, DeferringResolver):
        """libyaml's parser producing nodes tagged by `DeferringResolver`."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            DeferringResolver.__init__(self)

    COMPOSER: type = CComposer
else:
    COMPOSER = PureComposer
