"""Typed decoding as helm-unittest gets it from Go: yaml.v3 into structs, mapstructure for asserts.

yaml.v3 puts any scalar's *text* into a string field (`it: 1.0` is the name "1.0"), accepts
YAML 1.1 booleans for bool fields, truncates floats into ints, ignores unknown keys and collects
type errors as `line N: cannot unmarshal !!seq into string`. mapstructure (assertion parameters)
matches keys case-insensitively and refuses a value of the wrong type.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from aftershock.gocompat.gofmt import format_scalar, go_type_name, sprint
from aftershock.gocompat.goyaml import GoUint, build_value, resolve_scalar, short_tag

_YES = frozenset(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON"])
_NO = frozenset(["n", "N", "no", "No", "NO", "off", "Off", "OFF"])
_GO_TYPES = {"str": "string", "bool": "bool", "int": "int", "list[str]": "[]string"}


def node_tag(node: Node) -> str:
    """The short tag go-yaml reports in errors (`!!str`, `!!seq`, `!!map`...)."""
    if isinstance(node, SequenceNode):
        return "!!seq"
    if isinstance(node, MappingNode):
        return "!!map"
    tag = short_tag(node.tag)
    if tag in ("", "!"):
        tag = resolve_scalar("", node.value)[0]
    return "!!" + tag


@dataclass
class Decoder:
    """Collects yaml.v3 unmarshal errors while fields are read from mapping nodes."""

    errors: list[str] = field(default_factory=list)

    def fail(self, node: Node, go_type: str) -> None:
        shown = f" `{node.value}`" if isinstance(node, ScalarNode) else ""
        line = node.start_mark.line + 1
        self.errors.append(f"line {line}: cannot unmarshal {node_tag(node)}{shown} into {go_type}")

    def error_text(self) -> str:
        return "yaml: unmarshal errors:\n  " + "\n  ".join(self.errors)

    def fields(self, node: Node | None, go_type: str) -> dict[str, Node]:
        """The key -> value nodes of a mapping (later duplicates win); {} for null."""
        if node is None or _is_null(node):
            return {}
        if not isinstance(node, MappingNode):
            self.fail(node, go_type)
            return {}
        return {self.text(key) or "": value for key, value in node.value}

    def text(self, node: Node | None) -> str | None:
        """A string field: the scalar's text; "" for null; None (and an error) otherwise."""
        if node is None or _is_null(node):
            return ""
        if isinstance(node, ScalarNode):
            return str(node.value)
        self.fail(node, "string")
        return None

    def string(self, node: Node | None) -> str:
        return self.text(node) or ""

    def boolean(self, node: Node | None) -> bool:
        if node is None or _is_null(node):
            return False
        if isinstance(node, ScalarNode):
            value = build_value(node)
            if isinstance(value, bool):
                return value
            if short_tag(node.tag) == "" and node.value in _YES | _NO:
                return node.value in _YES
        self.fail(node, "bool")
        return False

    def integer(self, node: Node | None) -> int | None:
        if node is None or _is_null(node):
            return None
        if isinstance(node, ScalarNode):
            value = build_value(node)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            if isinstance(value, float) and math.isfinite(value):
                return int(value)
        self.fail(node, "int")
        return None

    def strings(self, node: Node | None) -> tuple[str, ...]:
        if node is None or _is_null(node):
            return ()
        if not isinstance(node, SequenceNode):
            self.fail(node, "[]string")
            return ()
        texts = (self.text(item) for item in node.value)
        return tuple(text for text in texts if text is not None)

    def any_map(self, node: Node | None) -> dict[str, Any]:
        """A `map[string]interface{}` field: string keys (their text), values decoded."""
        if node is None or _is_null(node):
            return {}
        if not isinstance(node, MappingNode):
            self.fail(node, "map[string]interface {}")
            return {}
        value = build_value(node)
        return {
            key if isinstance(key, str) else _key_text(key): item for key, item in value.items()
        }


def _key_text(key: Any) -> str:
    return format_scalar(key)


def _is_null(node: Node) -> bool:
    if not isinstance(node, ScalarNode):
        return False
    tag = short_tag(node.tag)
    return tag == "null" or (tag == "" and resolve_scalar("", node.value)[0] == "null")


class ParamError(ValueError):
    """mapstructure's error for assertion parameters of the wrong shape."""


def _go_type_of(value: Any) -> str:
    return go_type_name(value) or "<nil>"


def decode_params(params: Any, spec: dict[str, str]) -> dict[str, Any]:
    """mapstructure.Decode(params, &validator) for a validator whose fields `spec` describes.

    `spec` maps Go field names to "str", "bool", "int", "int?" (a pointer), "list[str]", "any"
    or "pattern?" (a pointer to a struct with a Pattern string). Keys match case-insensitively.
    """
    decoded: dict[str, Any] = {name: _zero(kind) for name, kind in spec.items()}
    if params is None:
        return decoded
    if not isinstance(params, dict):
        raise ParamError(f"'' expected a map, got '{_kind_word(params)}'")
    problems: list[str] = []
    by_lower = {str(key).lower(): value for key, value in params.items()}
    for name, kind in spec.items():
        if name in params:
            raw = params[name]
        elif name.lower() in by_lower:
            raw = by_lower[name.lower()]
        else:
            continue
        try:
            decoded[name] = _convert(name, raw, kind)
        except ParamError as exc:
            problems.append(str(exc))
    if problems:
        points = "\n".join(f"* {problem}" for problem in problems)
        raise ParamError(f"{len(problems)} error(s) decoding:\n\n{points}")
    return decoded


def _zero(kind: str) -> Any:
    return {"str": "", "bool": False, "int": 0, "list[str]": ()}.get(kind)


def _kind_word(value: Any) -> str:
    if isinstance(value, list):
        return "slice"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, GoUint)):
        return "int"
    if isinstance(value, float):
        return "float64"
    return "string" if isinstance(value, str) else "map"


def _unconvertible(name: str, kind: str, raw: Any) -> ParamError:
    return ParamError(
        f"'{name}' expected type '{_GO_TYPES.get(kind, kind)}', got unconvertible "
        f"type '{_go_type_of(raw)}', value: '{sprint(raw)}'"
    )


def _convert(name: str, raw: Any, kind: str) -> Any:
    if raw is None:
        return _zero(kind)
    if kind == "any":
        return raw
    if kind == "str":
        if isinstance(raw, str):
            return raw
        raise _unconvertible(name, kind, raw)
    if kind == "bool":
        if isinstance(raw, bool):
            return raw
        raise _unconvertible(name, kind, raw)
    if kind in ("int", "int?"):
        if (
            isinstance(raw, bool)
            or not isinstance(raw, (int, float, GoUint))
            or raw in (math.inf, -math.inf)
            or raw != raw
        ):
            raise _unconvertible(
                name, "int", raw
            )  # Go's conversion of NaN or ±Inf to int is undefined
        return raw.value if isinstance(raw, GoUint) else int(raw)
    if kind == "list[str]":
        if not isinstance(raw, list):
            raise ParamError(
                f"'{name}': source data must be an array or slice, got {_kind_word(raw)}"
            )
        return tuple(_convert(f"{name}[{i}]", item, "str") for i, item in enumerate(raw))
    if kind == "pattern?":
        return (
            decode_params(raw, {"Pattern": "str"})["Pattern"]
            if isinstance(raw, dict)
            else (_raise_map(name, raw))
        )
    raise ParamError(f"'{name}' has an unknown kind {kind}")


def _raise_map(name: str, raw: Any) -> Any:
    raise ParamError(f"'{name}' expected a map, got '{_kind_word(raw)}'")
