"""Writing YAML exactly as go-yaml v3's Encoder does with `SetIndent(2)` (helm-unittest's output).

helm-unittest stores snapshots as yaml.v3 text and compares them as strings, and prints expected
and actual values in the same form, so this is a port of the parts of libyaml's emitter that a
value decoded from YAML can reach: indentation (sequences indented under a key), the scalar
writers, and `{}`/`[]` for empty collections. Scalar styles and key order: `goyaml_scalars`.
"""

from __future__ import annotations

from typing import Any

from aftershock.gocompat.gofmt import format_scalar
from aftershock.helmtest.goyaml_scalars import (
    BEST_INDENT,
    BEST_WIDTH,
    BREAKS,
    SEQ_ITEM,
    Analysis,
    chomp_hint,
    escape,
    printable,
    select_style,
    sorted_keys,
    string_style,
)


class _Emitter:
    """The output half of libyaml's emitter: column bookkeeping, indentation and scalar writers."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.column = 0
        self.indent = -1
        self.indents: list[int] = []
        self.states: list[str] = []
        self.whitespace = True
        self.indention = True

    # -- primitives ---------------------------------------------------------------------------
    def put(self, text: str) -> None:
        self.out.append(text)
        self.column += len(text)

    def put_break(self) -> None:
        self.out.append("\n")
        self.column = 0
        self.indention = True

    def write_indent(self) -> None:
        indent = max(self.indent, 0)
        if (
            not self.indention
            or self.column > indent
            or (self.column == indent and not self.whitespace)
        ):
            self.put_break()
        if self.column < indent:
            self.put(" " * (indent - self.column))
        self.whitespace = True

    def write_indicator(self, text: str, need_ws: bool, is_ws: bool, is_indention: bool) -> None:
        if need_ws and not self.whitespace:
            self.put(" ")
        self.put(text)
        self.whitespace = is_ws
        self.indention = self.indention and is_indention

    def increase_indent(self, flow: bool) -> None:
        self.indents.append(self.indent)
        if self.indent < 0:
            self.indent = BEST_INDENT if flow else 0
        elif self.states and self.states[-1] == SEQ_ITEM:
            self.indent += 2  # the first indent inside a sequence just skips "- "
        else:
            self.indent = BEST_INDENT * ((self.indent + BEST_INDENT) // BEST_INDENT)

    # -- nodes --------------------------------------------------------------------------------
    def node(self, value: Any, simple_key: bool = False) -> None:
        if isinstance(value, dict):
            self.mapping(value)
        elif isinstance(value, list):
            self.sequence(value)
        elif isinstance(value, str):
            self.scalar(value, string_style(value, Analysis(value), simple_key), simple_key)
        else:
            text = format_scalar(value)
            self.scalar(text, select_style("plain", text, Analysis(text), simple_key), simple_key)

    def empty_flow(self, text: str) -> None:
        self.write_indicator(text[0], True, True, False)
        self.increase_indent(flow=True)
        self.indent = self.indents.pop()
        if self.column == 0:
            self.write_indent()
        self.write_indicator(text[1], False, False, False)

    def sequence(self, items: list[Any]) -> None:
        if not items:
            self.empty_flow("[]")
            return
        self.increase_indent(flow=False)
        for item in items:
            self.write_indent()
            self.write_indicator("-", True, False, True)
            self.states.append(SEQ_ITEM)
            self.node(item)
            self.states.pop()
        self.indent = self.indents.pop()

    def mapping(self, mapping: dict[Any, Any]) -> None:
        if not mapping:
            self.empty_flow("{}")
            return
        self.increase_indent(flow=False)
        for key in sorted_keys(mapping):
            self.write_indent()
            self.states.append("block-mapping-value")
            if self._simple_key(key):
                self.node(key, simple_key=True)
                self.write_indicator(":", False, False, False)
            else:
                self.write_indicator("?", True, False, True)
                self.node(key)
                self.write_indent()
                self.write_indicator(":", True, False, True)
            self.states[-1] = "block-mapping-key"
            self.node(mapping[key])
            self.states.pop()
        self.indent = self.indents.pop()

    @staticmethod
    def _simple_key(key: Any) -> bool:
        text = key if isinstance(key, str) else format_scalar(key)
        return not Analysis(text).multiline and len(text.encode("utf-8")) <= 128

    def scalar(self, text: str, style: str, simple_key: bool) -> None:
        self.increase_indent(flow=True)
        allow_breaks = not simple_key
        if style == "plain":
            self.plain(text, allow_breaks)
        elif style == "single":
            self.single_quoted(text, allow_breaks)
        elif style == "double":
            self.double_quoted(text, allow_breaks)
        else:
            self.literal(text)
        self.indent = self.indents.pop()

    # -- scalar writers -----------------------------------------------------------------------
    def _can_fold(self, allow_breaks: bool, spaces: bool) -> bool:
        return allow_breaks and not spaces and self.column > BEST_WIDTH

    def plain(self, text: str, allow_breaks: bool) -> None:
        if text and not self.whitespace:
            self.put(" ")
        spaces = False
        for i, char in enumerate(text):
            if char == " ":
                if self._can_fold(allow_breaks, spaces) and text[i + 1 : i + 2] != " ":
                    self.write_indent()
                else:
                    self.put(" ")
                spaces = True
            else:
                self.put(char)
                self.indention = False
                spaces = False
        if text:
            self.whitespace = False
        self.indention = False

    def single_quoted(self, text: str, allow_breaks: bool) -> None:
        self.write_indicator("'", True, False, False)
        spaces = False
        last = len(text) - 1
        for i, char in enumerate(text):
            if char == " ":
                inner = 0 < i < last and text[i + 1] != " "
                if self._can_fold(allow_breaks, spaces) and inner:
                    self.write_indent()
                else:
                    self.put(" ")
                spaces = True
            else:
                self.put("''" if char == "'" else char)
                self.indention = False
                spaces = False
        self.write_indicator("'", False, False, False)
        self.whitespace = self.indention = False

    def double_quoted(self, text: str, allow_breaks: bool) -> None:
        self.write_indicator('"', True, False, False)
        spaces = False
        last = len(text) - 1
        for i, char in enumerate(text):
            if not printable(char) or char == "\ufeff" or char in BREAKS or char in '"\\':
                self.put("\\" + escape(char))
                spaces = False
            elif char == " ":
                if self._can_fold(allow_breaks, spaces) and 0 < i < last:
                    self.write_indent()
                    if text[i + 1] == " ":
                        self.put("\\")
                else:
                    self.put(" ")
                spaces = True
            else:
                self.put(char)
                spaces = False
        self.write_indicator('"', False, False, False)
        self.whitespace = self.indention = False

    def literal(self, text: str) -> None:
        self.write_indicator("|", True, False, False)
        if text[:1] == " " or text[:1] in BREAKS:
            self.write_indicator(str(BEST_INDENT), False, False, False)
        chomp = chomp_hint(text)
        if chomp:
            self.write_indicator(chomp, False, False, False)
        self.put_break()
        self.whitespace = True
        breaks = True
        for char in text:
            if char in BREAKS:
                self.put_break() if char == "\n" else self._foreign_break(char)
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.put(char)
                self.indention = False
                breaks = False

    def _foreign_break(self, char: str) -> None:
        self.out.append(char)
        self.column = 0
        self.indention = True


def _strip_leading_newlines(value: Any) -> Any:
    if isinstance(value, str):
        return value.lstrip("\n")
    if isinstance(value, dict):
        return {key: _strip_leading_newlines(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_strip_leading_newlines(item) for item in value]
    return value


def marshal(value: Any) -> str:
    """yaml.v3 Encoder (indent 2) output for one document holding `value`."""
    emitter = _Emitter()
    emitter.node(value)
    emitter.indent = -1
    emitter.write_indent()
    return "".join(emitter.out)


def trusted_marshal(value: Any) -> str:
    """helm-unittest's TrustedMarshalYAML: leading newlines of strings dropped, then `marshal`."""
    return marshal(_strip_leading_newlines(value))
