"""YAML loading with the semantics Helm applies (go-yaml v2, YAML 1.1, via sigs.k8s.io/yaml).

Plain scalars resolve as go-yaml v2 resolves them: `y/Y/yes/no/n/N/on/off` (and their capitalised
forms) are booleans, `0777` is octal, `0x1F`/`0o17`/`0b101` and `1_000` are ints, `1e3` and `.5`
are floats, `1:20` (no sexagesimal) and timestamps such as `2001-12-14` stay strings, `~`/`null`
and an empty value are null, `<<` merges mappings (applied in document order, so a later `<<`
overrides keys set before it, as in Go). Ints and floats stay distinct Python types.

Mapping keys are always strings, converted the way sigs.k8s.io/yaml converts them to JSON:
a boolean key becomes "true"/"false" (so `n: 1` loads as `{"false": 1}`), an int key its decimal
text, a float key Go's shortest 32-bit "%g" text. A null or collection key is an error, as in Helm.
Values `.inf`/`.nan` load as Python floats (Helm's JSON conversion would reject them).

Both PyYAML parsers are libyaml-compatible; the C one (libyaml itself, which go-yaml was ported
from) is used when available, and scalar resolution is done here so both give the same result.
"""

from __future__ import annotations

import base64
import math
import re
import struct
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from aftershock.gocompat.gostrconv import DIGITS, go_parse_float, go_parse_int
from aftershock.gocompat.yamlnodes import (
    C_PARSER_AVAILABLE,
    COMPOSER,
    PLAIN_TAG,
    YAML_TAG_PREFIX,
    AliasBomb,
    RedefiningComposer,
    redefines_anchor,
)
from aftershock.model.errors import ExcessiveAliasingError, MalformedInputError

__all__ = ["C_PARSER_AVAILABLE", "load_all", "load_one"]


_HINT_FIX = "fix the YAML syntax"


def _spellings_table() -> dict[str, tuple[str, Any]]:
    """go-yaml v2's fixed spellings: plain text -> (tag, value)."""
    table: dict[str, tuple[str, Any]] = {}
    for tag, value, spellings in (
        ("bool", True, ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON")),
        ("bool", True, ("true", "True", "TRUE")),
        ("bool", False, ("n", "N", "no", "No", "NO", "off", "Off", "OFF")),
        ("bool", False, ("false", "False", "FALSE")),
        ("null", None, ("", "~", "null", "Null", "NULL")),
        ("float", math.nan, (".nan", ".NaN", ".NAN")),
        ("float", math.inf, (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")),
        ("float", -math.inf, ("-.inf", "-.Inf", "-.INF")),
    ):
        table.update(dict.fromkeys(spellings, (tag, value)))
    return table


_BY_TEXT = _spellings_table()
# The first characters of a plain scalar that may not be a string.
_HINTS = frozenset("+-0123456789yYnNtTfFoO~.")
_RESOLVED: dict[str, Any] = {}  # plain scalar text -> value, for those `_HINTS` starts
_KEY_HINTS = _HINTS | {"<"}  # and of a key that may be the merge key `<<`
_STR_TAG = YAML_TAG_PREFIX + "str"
_RESOLVABLE_TAGS = frozenset({"", "str", "bool", "int", "float", "null", "timestamp"})
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:(?:[Tt][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2}))"
    r"|(?: [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?))?"
)


class _ResolveError(ValueError):
    """A scalar cannot be decoded as its explicit tag says (`!!int abc`)."""


def _resolve_numeric(text: str, tag: str) -> tuple[str, Any] | None:
    """go-yaml v2's branch for scalars starting with a digit or a sign."""
    if tag in ("", "timestamp") and _TIMESTAMP.fullmatch(text):
        return "timestamp", text  # decoded into interface{} as the original string
    plain = text.replace("_", "")
    for signed in (True, False):
        number = go_parse_int(plain, signed=signed)
        if number is not None:
            return "int", number
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        real = go_parse_float(plain)
        if real is not None:
            return "float", real
    for prefix, sign in (("0b", 1), ("-0b", -1)):
        if plain.startswith(prefix) and DIGITS[2].fullmatch(plain[len(prefix) :]):
            return "int", sign * int(plain[len(prefix) :], 2)
    return None


def _resolve(tag: str, text: str) -> tuple[str, Any]:
    """go-yaml v2 `resolve`: the tag and value of a scalar, `tag` "" for a plain one."""
    hint = text[:1]
    if tag != "str" and (hint == "" or hint in "+-0123456789yYnNtTfFoO~."):
        if text in _BY_TEXT:
            return _BY_TEXT[text]
        if hint == "." and _DOT_FLOAT.fullmatch(text):
            real = go_parse_float(text)
            if real is not None:
                return "float", real
        elif hint in "+-0123456789":
            resolved = _resolve_numeric(text, tag)
            if resolved is not None:
                return resolved
    return "str", text


def _plain_value(text: str) -> Any:
    """`_decode_scalar("", text)`: most plain scalars start with a letter no other type starts with;
    the others (ports, sizes, booleans) recur, and are resolved once."""
    if text and text[0] not in _HINTS:
        return text
    value = _RESOLVED.get(text, _RESOLVED)
    if value is _RESOLVED:
        value = _resolve("", text)[1]
        if len(text) <= 64:
            if len(_RESOLVED) >= 4096:
                _RESOLVED.clear()
            _RESOLVED[text] = value  # an int, float, bool, None or str: shared safely
    return value


def _decode_scalar(tag: str, text: str) -> Any:
    """The value of a scalar with short tag `tag` ("" when plain and untagged)."""
    if tag == "binary":
        try:
            data = base64.b64decode(re.sub(r"[\r\n]", "", text), validate=True)
        except ValueError as exc:
            raise _ResolveError(f"!!binary value is not valid base64: {exc}") from None
        return data.decode("utf-8", errors="replace")
    if tag not in _RESOLVABLE_TAGS:
        return text  # a local or unknown tag: go-yaml keeps the text
    rtag, value = _resolve(tag, text)
    if tag in ("", rtag, "str"):
        return value
    if tag == "float" and rtag == "int":
        return float(value)
    raise _ResolveError(f"cannot decode !!{rtag} `{text}` as a !!{tag}")


def _short_tag(tag: str) -> str:
    if tag == PLAIN_TAG:
        return ""
    if tag.startswith(YAML_TAG_PREFIX):
        return tag[len(YAML_TAG_PREFIX) :]
    return tag


def _go_float_key(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32) with go-yaml's spellings of inf and nan."""
    if math.isnan(value):
        return ".nan"
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:  # beyond float32: Go's float32() conversion gives an infinity
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    for precision in range(1, 10):  # the shortest digits that read back as the same float32
        text = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    mantissa, exponent_text = text.split("e")
    exponent = int(exponent_text)
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    if exponent < -4 or exponent >= 6:
        fraction = f".{digits[1:]}" if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{fraction}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    whole = digits[: exponent + 1].ljust(exponent + 1, "0")
    fraction = digits[exponent + 1 :]
    return f"{sign}{whole}.{fraction}" if fraction else f"{sign}{whole}"


class _Builder:
    """Turns composed nodes into Python values; an alias yields the same (shared) object."""

    def __init__(self, source: str, line_offset: int) -> None:
        self._source = source
        self._line_offset = line_offset
        self._built: dict[int, Any] = {}
        self._building: set[int] = set()

    def error(self, what: str, node: Node) -> MalformedInputError:
        line = node.start_mark.line + 1 + self._line_offset
        return MalformedInputError(what, where=f"{self._source}:{line}", hint=_HINT_FIX)

    def build(self, node: Node) -> Any:
        if id(node) in self._built:
            return self._built[id(node)]
        if id(node) in self._building:
            raise self.error("an alias refers to a node that contains it", node)
        self._building.add(id(node))
        try:
            if isinstance(node, ScalarNode):
                value = self._scalar(node)
            elif isinstance(node, SequenceNode):
                value = [self.build(child) for child in node.value]
            else:
                assert isinstance(node, MappingNode)  # the third and last kind of node
                value = self._mapping(node)
        finally:
            self._building.discard(id(node))
        self._built[id(node)] = value
        return value

    def _scalar(self, node: ScalarNode) -> Any:
        try:
            return _decode_scalar(_short_tag(node.tag), node.value)
        except _ResolveError as exc:
            raise self.error(str(exc), node) from None

    def _mapping(self, node: MappingNode) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if _is_merge_key(key_node):
                self._merge(result, value_node)
            else:
                result[self._key(key_node)] = self.build(value_node)
        return result

    def _merge(self, result: dict[str, Any], node: Node) -> None:
        # go-yaml applies `<<` where it stands; in a list, earlier maps take precedence.
        sources = list(reversed(node.value)) if isinstance(node, SequenceNode) else [node]
        for source in sources:
            if not isinstance(source, MappingNode):
                raise self.error("map merge requires map or sequence of maps as the value", node)
            result.update(self.build(source))

    def _key(self, node: Node) -> str:
        key = self.build(node)
        if isinstance(key, str):
            return key
        if isinstance(key, bool):
            return "true" if key else "false"
        if isinstance(key, int):
            return str(key)
        if isinstance(key, float):
            return _go_float_key(key)
        kind = "null" if key is None else "a collection"
        raise self.error(f"a mapping key is {kind}, which Helm cannot convert to JSON", node)


class _TreeBuilder(_Builder):
    """A `_Builder` for a document without aliases, where no node is reached twice: nothing is
    remembered, and the common plain and quoted scalars (values and keys) are read inline."""

    def build(self, node: Node) -> Any:
        if isinstance(node, ScalarNode):
            tag = node.tag
            if tag == PLAIN_TAG:
                return _plain_value(node.value)
            return node.value if tag == _STR_TAG else self._scalar(node)
        if isinstance(node, SequenceNode):
            return [self.build(child) for child in node.value]
        assert isinstance(node, MappingNode)  # the third and last kind of node
        return self._mapping(node)

    def _mapping(self, node: MappingNode) -> dict[str, Any]:
        result: dict[str, Any] = {}
        build = self.build
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode):
                text, tag = key_node.value, key_node.tag
                if tag == _STR_TAG or (tag == PLAIN_TAG and text and text[0] not in _KEY_HINTS):
                    result[text] = build(value_node)  # a key that reads as its own text
                    continue
            if _is_merge_key(key_node):
                self._merge(result, value_node)
            else:
                result[self._key(key_node)] = build(value_node)
        return result


def _is_merge_key(node: Node) -> bool:
    return (
        isinstance(node, ScalarNode)
        and node.value == "<<"
        and node.tag in (PLAIN_TAG, YAML_TAG_PREFIX + "merge")
    )


def _syntax_error(exc: yaml.YAMLError, source: str, line_offset: int) -> MalformedInputError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = (getattr(exc, "problem", None) or str(exc)).splitlines()[0]
    where = f"{source}:{mark.line + 1 + line_offset}" if mark is not None else source
    return MalformedInputError(f"invalid YAML: {problem}", where=where, hint=_HINT_FIX)


def _load_documents(
    text: str, source: str, line_offset: int, limit: int | None, composer_class: type
) -> list[Any]:
    documents: list[Any] = []
    composer = None
    try:
        composer = composer_class(text)
        while (limit is None or len(documents) < limit) and composer.check_node():
            node = composer.get_node()
            builder = _Builder if composer.may_alias else _TreeBuilder
            documents.append(builder(source, line_offset).build(node) if node else None)
    except AliasBomb:
        raise ExcessiveAliasingError(
            "YAML document contains excessive aliasing: its aliases expand past the bound Helm reads YAML with",
            where=source,
            hint="write the repeated parts out instead of nesting aliases",
        ) from None
    except yaml.YAMLError as exc:
        if redefines_anchor(exc) and composer_class is not RedefiningComposer:
            return _load_documents(text, source, line_offset, limit, RedefiningComposer)
        raise _syntax_error(exc, source, line_offset) from None
    except RecursionError:
        raise MalformedInputError("YAML nested too deeply", where=source, hint=_HINT_FIX) from None
    finally:
        if composer is not None:
            composer.dispose()
    return documents


def load_all(text: str, *, source: str, line_offset: int = 0) -> list[Any]:
    """Every document of `text` (None for an empty one), parsed as Helm parses YAML.

    `source` names the text in errors; `line_offset` is added to reported line numbers
    (for text cut out of a larger file). Raises MalformedInputError on invalid YAML.
    """
    return _load_documents(text, source, line_offset, None, COMPOSER)


def load_one(text: str, *, source: str, line_offset: int = 0) -> Any:
    """The first document of `text` (None when there is none), as Go's yaml.Unmarshal reads it.

    Later documents are not read, as in Helm. Raises MalformedInputError on invalid YAML.
    """
    documents = _load_documents(text, source, line_offset, 1, COMPOSER)
    return documents[0] if documents else None
