"""Lexemes, the scanning primitives and the literal scanners of the YAML JSONPath lexer.

The dialect is helm-unittest's fork of vmware-labs/yaml-jsonpath (v0.4.0); the states that drive
these primitives are in `jsonpath_lexer`. Array subscripts (`[1]`, `[0:2]`, `[-1]`, `[*]`, `[0,2]`)
are validated and expanded by `slice_indices`.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from aftershock.gocompat.goregex import GoRegexError, compile_go


class Lex(enum.Enum):
    ERROR = enum.auto()
    IDENTITY = enum.auto()
    ROOT = enum.auto()
    DOT_CHILD = enum.auto()
    UNDOTTED_CHILD = enum.auto()
    BRACKET_CHILD = enum.auto()
    RECURSIVE_DESCENT = enum.auto()
    ARRAY_SUBSCRIPT = enum.auto()
    FILTER_BEGIN = enum.auto()
    FILTER_END = enum.auto()
    FILTER_OPEN_BRACKET = enum.auto()
    FILTER_CLOSE_BRACKET = enum.auto()
    FILTER_NOT = enum.auto()
    FILTER_AT = enum.auto()
    FILTER_AND = enum.auto()
    FILTER_OR = enum.auto()
    EQUAL = enum.auto()
    NOT_EQUAL = enum.auto()
    GREATER = enum.auto()
    GREATER_EQUAL = enum.auto()
    LESS_EQUAL = enum.auto()
    LESS = enum.auto()
    MATCHES = enum.auto()
    INT_LITERAL = enum.auto()
    FLOAT_LITERAL = enum.auto()
    STRING_LITERAL = enum.auto()
    BOOL_LITERAL = enum.auto()
    NULL_LITERAL = enum.auto()
    REGEX_LITERAL = enum.auto()
    PROPERTY_NAME = enum.auto()
    BRACKET_PROPERTY_NAME = enum.auto()
    SUBSCRIPT_PROPERTY_NAME = enum.auto()
    RECURSIVE_FILTER_BEGIN = enum.auto()
    EOF = enum.auto()


COMPARISONS = {Lex.EQUAL, Lex.NOT_EQUAL, Lex.GREATER, Lex.GREATER_EQUAL, Lex.LESS, Lex.LESS_EQUAL}
# Longest first, so ">=" is not read as ">".
ORDERING = ((">=", Lex.GREATER_EQUAL), (">", Lex.GREATER), ("<=", Lex.LESS_EQUAL), ("<", Lex.LESS))


@dataclass(frozen=True)
class Lexeme:
    kind: Lex
    text: str


State = Callable[["PathLexer"], Optional["State"]]


def go_quote(text: str) -> str:
    """Go's %q, close enough for error messages."""
    return json.dumps(text, ensure_ascii=False)


def go_quote_rune(char: str) -> str:
    """Go's %q of a rune."""
    return "'" + char.replace("\\", "\\\\").replace("'", "\\'") + "'"


def enquote(quote: str) -> str:
    return '"\'"' if quote == "'" else "'\"'"


class PathLexer:
    """The scanning state shared by the lexer's states: input, positions, state stack, output."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.start = 0
        self.pos = 0
        self.stack: list[State] = []
        self.lexemes: list[Lexeme] = []
        self.last_start = 0
        self.last_kind = Lex.EOF

    # -- primitives ---------------------------------------------------------------------------
    def emit(self, kind: Lex) -> None:
        self.lexemes.append(Lexeme(kind, self.text[self.start : self.pos]))
        self.last_start, self.start, self.last_kind = self.start, self.pos, kind

    def emit_synthetic(self, kind: Lex, text: str) -> None:
        self.lexemes.append(Lexeme(kind, text))

    def error(self, message: str) -> None:
        context = go_quote(self.text[self.last_start : self.pos])
        text = f"{message} at position {self.pos}, following {context}"
        self.lexemes.append(Lexeme(Lex.ERROR, text))

    def raw_error(self, message: str) -> None:
        self.lexemes.append(Lexeme(Lex.ERROR, message))

    def empty(self) -> bool:
        return self.pos >= len(self.text)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def next(self) -> str:
        char = self.peek()
        if char:
            self.pos += 1
        return char

    def has_prefix(self, token: str) -> bool:
        return self.text.startswith(token, self.pos)

    def consumed(self, token: str, *exceptions: str) -> bool:
        if self.has_prefix(token) and not any(self.has_prefix(e) for e in exceptions):
            self.pos += len(token)
            return True
        return False

    def _after_whitespace(self, *tokens: str) -> int | None:
        pos = self.pos
        for token in tokens:
            while True:
                if pos >= len(self.text):
                    return None
                if not self.text[pos].isspace():
                    break
                pos += 1
            if not self.text.startswith(token, pos):
                return None
            pos += len(token)
        return pos

    def peeked_whitespaced(self, *tokens: str) -> bool:
        return self._after_whitespace(*tokens) is not None

    def consumed_whitespaced(self, *tokens: str) -> bool:
        pos = self._after_whitespace(*tokens)
        if pos is None:
            return False
        self.pos = pos
        return True

    def skip_whitespace(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def strip_whitespace(self) -> None:
        self.skip_whitespace()
        self.start = self.pos

    def pop(self) -> State | None:
        if not self.stack:
            self.error("syntax error")
            return None
        return self.stack.pop()

    def scan_name(self, stops: frozenset[str]) -> bool:
        """Consume a child name up to a stop character; whether it was non-empty."""
        begin = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in stops:
            self.pos += 1
        return self.pos > begin


def slice_indices(index: str, length: int) -> list[int]:
    """The indices an array subscript selects in a sequence of `length`; ValueError if invalid."""
    union = index.split(",")
    if len(union) > 1:
        combined: list[int] = []
        for number, member in enumerate(union):
            if member.strip() == "*":
                raise ValueError(
                    f"error in union member {number}: wildcard cannot be used in union"
                )
            try:
                combined.extend(slice_indices(member, length))
            except ValueError as exc:
                raise ValueError(f"error in union member {number}: {exc}") from None
        return combined
    index = index.strip()
    if index == "*":
        return _indices(0, length, 1, length)
    parts = index.split(":")
    if len(parts) > 3:
        raise ValueError("malformed array index, too many colons")
    given: list[int | None] = [None, None, None]
    for position, part in enumerate(parts):
        part = part.strip()
        if part:
            if not _GO_ATOI.fullmatch(part):
                raise ValueError("non-integer array index")
            given[position] = int(part)
    start, stop, step = given
    if len(parts) == 1:
        if start is None:
            raise ValueError("array index missing")
        start = start + length if start < 0 else start
        return _indices(start, start + 1, 1, length)
    if step == 0:
        raise ValueError("array index step value must be non-zero")
    step = 1 if step is None else step
    if start is None:
        start = 0 if step > 0 else length - 1
    elif start < 0:
        start += length
    if stop is None:
        stop = length if step > 0 else -1
    elif stop < 0:
        stop += length
    return _indices(start, stop, step, length)


def _indices(start: int, stop: int, step: int, length: int) -> list[int]:
    if step > 0:
        start, stop = max(start, 0), min(stop, length)
        return [i for i in range(start, stop, step) if 0 <= i < length]
    start, stop = min(start, length), max(stop, -1)
    return [i for i in range(start, stop, step) if 0 <= i < length]


_GO_ATOI = re.compile(r"[+-]?[0-9]+")
_GO_FLOAT_LITERAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def scan_number_literal(lexer: PathLexer) -> bool | None:
    """An int or float literal: True when emitted, False after an error, None when absent."""
    first = lexer.peek()
    if not first or not (first in ".-" or first.isdigit()):
        return None
    is_float = first == "."
    while True:
        lexer.next()
        following = lexer.peek()
        if following and following in ".eE-":
            is_float = True
            continue
        if not following or not following.isdigit():
            break
    text = lexer.text[lexer.start : lexer.pos]
    if is_float:
        if not _GO_FLOAT_LITERAL.fullmatch(text):
            lexer.raw_error(
                f"invalid float literal {go_quote(text)}: strconv.ParseFloat: parsing "
                f"{go_quote(text)}: invalid syntax before position {lexer.pos}"
            )
            return False
        lexer.emit(Lex.FLOAT_LITERAL)
        return True
    if not _GO_ATOI.fullmatch(text) or not -(2**63) <= int(text) < 2**63:
        problem = "value out of range" if _GO_ATOI.fullmatch(text) else "invalid syntax"
        lexer.raw_error(
            f"invalid integer literal {go_quote(text)}: strconv.Atoi: parsing "
            f"{go_quote(text)}: {problem} before position {lexer.pos}"
        )
        return False
    lexer.emit(Lex.INT_LITERAL)
    return True


def scan_string_literal(lexer: PathLexer) -> bool | None:
    """A '...' or "..." literal (no escapes): True, False after an error, None when absent."""
    quote = lexer.peek()
    if quote not in ("'", '"') or not quote:
        return None
    begin, context = lexer.pos, lexer.text[lexer.last_start : lexer.pos]
    while True:
        if not lexer.next():
            lexer.raw_error(
                f"unmatched string delimiter {quote} at position {begin}, "
                f"following {go_quote(context)}"
            )
            return False
        if lexer.has_prefix(quote):
            break
    lexer.next()
    lexer.emit(Lex.STRING_LITERAL)
    return True


def scan_bool_literal(lexer: PathLexer) -> bool | None:
    if lexer.consumed_whitespaced("true") or lexer.consumed_whitespaced("false"):
        lexer.emit(Lex.BOOL_LITERAL)
        return True
    return None


def scan_null_literal(lexer: PathLexer) -> bool | None:
    if lexer.consumed_whitespaced("null"):
        lexer.emit(Lex.NULL_LITERAL)
        return True
    return None


def regex_literal_pattern(text: str) -> str:
    """The Go pattern inside a `/.../` literal, with `\\/` unescaped."""
    return text[1:-1].replace("\\/", "/")


def scan_regex_literal(lexer: PathLexer) -> bool:
    """A `/regex/` literal after `=~`: True when emitted, False after an error."""
    if not lexer.has_prefix("/"):
        lexer.error("regular expression does not start with /")
        return False
    begin, context = lexer.pos, lexer.text[lexer.last_start : lexer.pos]
    escape = False
    while True:
        if not lexer.next():
            lexer.raw_error(
                f"unmatched regular expression delimiter / at position {begin}, "
                f"following {go_quote(context)}"
            )
            return False
        if not escape and lexer.has_prefix("/"):
            break
        escape = not escape and lexer.has_prefix("\\")
    lexer.next()
    try:
        compile_go(regex_literal_pattern(lexer.text[lexer.start : lexer.pos]))
    except GoRegexError as exc:
        lexer.raw_error(
            f"invalid regular expression at position {begin}, following {go_quote(context)}: {exc}"
        )
        return False
    lexer.emit(Lex.REGEX_LITERAL)
    return True
