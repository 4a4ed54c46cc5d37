"""YAML reading with the semantics of go-yaml v3 (`go.yaml.in/yaml/v3`), which helm-unittest uses.

helm-unittest reads its suite files, values files, snapshot files *and Helm's rendered output*
with yaml.v3, not with Helm's own v2/JSON path (`aftershock.gocompat.yamlio`). The differences matter to
assertions: in v3 only `true/True/TRUE/false/...` are booleans (`yes`, `on`, `y` stay strings),
timestamps stay strings, `0777` is still octal, `1_000` is an int, and a duplicate mapping key is
an error. Ints and floats stay distinct Python types, as Go's `int` and `float64` do.

Scalars are composed by PyYAML (libyaml when available) and resolved here, so both parsers agree.
"""

from __future__ import annotations

import base64
import math
import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from aftershock.gocompat.gostrconv import DIGITS, INT64_MAX, INT64_MIN, go_parse_float, go_parse_int
from aftershock.gocompat.yamlnodes import (
    COMPOSER,
    PLAIN_TAG,
    YAML_TAG_PREFIX,
    RedefiningComposer,
    redefines_anchor,
)

_BY_TEXT: dict[str, tuple[str, Any]] = {}
for _tag, _value, _spellings in (
    ("bool", True, ("true", "True", "TRUE")),
    ("bool", False, ("false", "False", "FALSE")),
    ("null", None, ("", "~", "null", "Null", "NULL")),
    ("float", math.nan, (".nan", ".NaN", ".NAN")),
    ("float", math.inf, (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")),
    ("float", -math.inf, ("-.inf", "-.Inf", "-.INF")),
):
    for _spelling in _spellings:
        _BY_TEXT[_spelling] = (_tag, _value)

_HINTS = frozenset("+-0123456789yYnNtTfFoO~.")
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:[Tt][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]{1,9})?(?:Z|[-+][0-9]{2}:[0-9]{2})"
    r"| [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]{1,9})?)?"
)
_RESOLVABLE = frozenset({"", "str", "bool", "int", "float", "null", "timestamp"})


class GoYamlError(ValueError):
    """Text that yaml.v3 would refuse; the message imitates go-yaml's (`yaml: line N: ...`)."""


@dataclass(frozen=True, order=True)
class GoUint:
    """An integer above int64 that go-yaml decodes as uint64 (its Go type name matters)."""

    value: int


def _resolve_number(text: str, tag: str) -> tuple[str, Any] | None:
    """go-yaml v3's branch for plain scalars that start with a digit or a sign."""
    if tag in ("", "timestamp") and _TIMESTAMP.fullmatch(text):
        return "timestamp", text  # decoded into interface{} as the original string
    plain = text.replace("_", "")
    number = go_parse_int(plain, signed=True)
    if number is not None:
        return "int", number
    unsigned = go_parse_int(plain, signed=False)
    if unsigned is not None:
        return "int", GoUint(unsigned)
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        real = go_parse_float(plain)
        if real is not None:
            return "float", real
    for prefix, base in (("0b", 2), ("-0b", 2), ("0o", 8), ("-0o", 8)):
        digits = plain[len(prefix) :]
        if plain.startswith(prefix) and digits and DIGITS[base].fullmatch(digits):
            value = int(digits, base) * (-1 if prefix.startswith("-") else 1)
            if INT64_MIN <= value <= INT64_MAX:
                return "int", value
    return None


def resolve_scalar(tag: str, text: str) -> tuple[str, Any]:
    """go-yaml v3 `resolve`: the short tag and value of a scalar; `tag` is "" when plain."""
    hint = text[:1]
    if tag not in ("str", "binary") and (hint == "" or hint in _HINTS):
        if text in _BY_TEXT:
            return _BY_TEXT[text]
        if hint == ".":
            real = go_parse_float(text)
            if real is not None:
                return "float", real
        elif hint in "+-0123456789":
            resolved = _resolve_number(text, tag)
            if resolved is not None:
                return resolved
    return "str", text


def short_tag(tag: str | None) -> str:
    if tag is None or tag == PLAIN_TAG:
        return ""
    if tag.startswith(YAML_TAG_PREFIX):
        return tag[len(YAML_TAG_PREFIX) :]
    return tag


def scalar_value(node: ScalarNode) -> Any:
    """The value go-yaml v3 decodes a scalar into when the target is `interface{}`."""
    tag = short_tag(node.tag)
    if tag == "binary":
        try:
            data = base64.b64decode(re.sub(r"\s", "", node.value), validate=True)
        except ValueError as exc:
            raise node_error(node, f"!!binary value contains invalid base64 data: {exc}") from None
        return data.decode("utf-8", errors="replace")
    if tag not in _RESOLVABLE:
        return node.value  # a local or unknown tag keeps its text
    resolved_tag, value = resolve_scalar(tag, node.value)
    if tag in ("", resolved_tag, "str"):
        return node.value if resolved_tag == "timestamp" else value
    if tag == "float" and resolved_tag == "int" and not isinstance(value, GoUint):
        return float(value)
    raise node_error(node, f"cannot decode !!{resolved_tag} `{node.value}` as a !!{tag}")


def node_error(node: Node, what: str) -> GoYamlError:
    return GoYamlError(f"yaml: line {node.start_mark.line + 1}: {what}")


def is_merge_key(node: Node) -> bool:
    return (
        isinstance(node, ScalarNode)
        and node.value == "<<"
        and node.tag
        in (
            PLAIN_TAG,
            YAML_TAG_PREFIX + "merge",
        )
    )


class _Builder:
    """Turns composed nodes into Python values; an alias yields the same (shared) object."""

    def __init__(self) -> None:
        self._built: dict[int, Any] = {}
        self._building: set[int] = set()

    def build(self, node: Node) -> Any:
        if id(node) in self._built:
            return self._built[id(node)]
        if id(node) in self._building:
            raise node_error(node, "anchor refers to itself")
        self._building.add(id(node))
        try:
            if isinstance(node, ScalarNode):
                value = scalar_value(node)
            elif isinstance(node, SequenceNode):
                value = [self.build(child) for child in node.value]
            else:
                assert isinstance(node, MappingNode)  # the only other kind of node
                value = self._mapping(node)
        finally:
            self._building.discard(id(node))
        self._built[id(node)] = value
        return value

    def _mapping(self, node: MappingNode) -> dict[Any, Any]:
        own: dict[Any, Any] = {}
        merged: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if is_merge_key(key_node):
                self._merge(merged, value_node)
                continue
            key = self.build(key_node)
            if isinstance(key, (dict, list)):
                raise node_error(key_node, "invalid map key: a collection")
            if key in own:
                raise node_error(key_node, f'mapping key "{key}" already defined')
            own[key] = self.build(value_node)
        # Keys written in the mapping itself win over merged ones, as in go-yaml v3.
        return {**merged, **own} if merged else own

    def _merge(self, merged: dict[Any, Any], node: Node) -> None:
        sources = node.value if isinstance(node, SequenceNode) else [node]
        for source in sources:  # in a list, earlier maps take precedence
            if not isinstance(source, MappingNode):
                raise node_error(node, "map merge requires map or sequence of maps as the value")
            for key, value in self.build(source).items():
                merged.setdefault(key, value)


def build_value(node: Node | None) -> Any:
    """The Python value of a composed node (`None` for an absent document)."""
    return None if node is None else _Builder().build(node)


def _syntax_error(exc: yaml.YAMLError) -> GoYamlError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = (getattr(exc, "problem", None) or str(exc)).splitlines()[0]
    if mark is None:
        return GoYamlError(f"yaml: {problem}")
    return GoYamlError(f"yaml: line {mark.line + 1}: {problem}")


def compose_documents(
    text: str, limit: int | None = None, composer_class: type = COMPOSER
) -> list[Node | None]:
    """The node tree of each document of `text` (None for an empty document)."""
    nodes: list[Node | None] = []
    composer = None
    try:
        composer = composer_class(text)
        while (limit is None or len(nodes) < limit) and composer.check_node():
            nodes.append(composer.get_node())
    except yaml.YAMLError as exc:
        if redefines_anchor(exc) and composer_class is not RedefiningComposer:
            return compose_documents(text, limit, RedefiningComposer)
        raise _syntax_error(exc) from None
    except RecursionError:
        raise GoYamlError("yaml: document nested too deeply") from None
    finally:
        if composer is not None:
            composer.dispose()
    return nodes


def load_documents(text: str) -> list[Any]:
    """Every document of `text` as go-yaml v3 decodes it into `interface{}`."""
    return [build_value(node) for node in compose_documents(text)]


def load_first(text: str) -> Any:
    """The first document of `text` (None when there is none), as yaml.v3 Unmarshal reads it."""
    nodes = compose_documents(text, limit=1)
    return build_value(nodes[0]) if nodes else None
