"""A small parser of Go template actions, enough to follow how a Helm template reads its values.

It owns the syntax only: `actions(text)` splits a template into its `{{ ... }}` actions (comments and
the text between actions are dropped) and parses each into an `Action` holding a `Pipeline` of
commands and operands. It never evaluates anything. Unknown or malformed syntax yields an `expr`
action with what could be read, never an error: the analysis over-approximates rather than fails.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

# Keywords that open a control structure closed by `end`.
OPENERS = frozenset({"if", "with", "range", "define", "block"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[+-]?(?:0[xXoObB])?[0-9][0-9A-Za-z_.]*(?:[eEpP][+-]?[0-9]+)?")
_CHAIN = re.compile(r"(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


@dataclass(frozen=True)
class Field:
    """`.a.b` (chain ("a", "b")), or `.` alone (empty chain)."""

    chain: tuple[str, ...]


@dataclass(frozen=True)
class Var:
    """`$name.a.b`; `$` alone has the name ""."""

    name: str
    chain: tuple[str, ...] = ()


@dataclass(frozen=True)
class Paren:
    """`( pipeline ).a.b`."""

    pipeline: Pipeline
    chain: tuple[str, ...] = ()


@dataclass(frozen=True)
class Str:
    value: str


@dataclass(frozen=True)
class Ident:
    """A function name, or true/false/nil."""

    name: str


@dataclass(frozen=True)
class Lit:
    """A number or a character constant, as written."""

    text: str


Operand = Field | Var | Paren | Str | Ident | Lit
Command = tuple[Operand, ...]


@dataclass(frozen=True)
class Pipeline:
    """`$a, $b := cmd | cmd ...`; `declares` is empty without a declaration; `assigns` marks `=`."""

    commands: tuple[Command, ...]
    declares: tuple[str, ...] = ()
    assigns: bool = False


@dataclass(frozen=True)
class Action:
    """One action. `kind` is if, else, else_if, else_with, with, range, end, define, block, template,
    or expr (anything else, e.g. `{{ include "x" . }}`); `name` is the template name of define, block
    and template."""

    kind: str
    pipeline: Pipeline | None = None
    name: str | None = None


@dataclass(frozen=True)
class _Token:
    kind: str  # field, var, str, ident, lit, "(", ")", "|", ",", ":=", "="
    text: str
    chain: tuple[str, ...] = ()
    attached: bool = False  # a field chain written right after `)`


@functools.lru_cache(maxsize=4096)
def actions(text: str) -> tuple[Action, ...]:
    """The parsed actions of a template text, in order; comments are left out. Cached by text: a
    library chart's templates are read once per chart that includes it."""
    return tuple(_action(tokens) for tokens in _action_tokens(text) if tokens)


def _action_tokens(text: str) -> Iterator[list[_Token]]:
    pos = 0
    while True:
        start = text.find("{{", pos)
        if start < 0:
            return
        pos = start + 2
        if text.startswith("-", pos) and pos + 1 < len(text) and text[pos + 1].isspace():
            pos += 1
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if text.startswith("/*", pos):
            end = text.find("*/", pos)
            close = text.find("}}", end if end >= 0 else pos)
            pos = len(text) if close < 0 else close + 2
            continue
        tokens, pos = _scan(text, pos)
        yield tokens


def _scan(text: str, pos: int) -> tuple[list[_Token], int]:
    """Tokens up to the closing `}}` (or `-}}`); returns them and the position after it."""
    tokens: list[_Token] = []
    while pos < len(text):
        ch = text[pos]
        if ch.isspace():
            pos += 1
        elif text.startswith("}}", pos) or (
            text.startswith("-}}", pos) and text[pos - 1].isspace()
        ):
            return tokens, pos + (2 if ch == "}" else 3)
        else:
            token, pos = _token(text, pos, tokens[-1] if tokens else None)
            if token is not None:
                tokens.append(token)
    return tokens, pos


def _token(text: str, pos: int, previous: _Token | None) -> tuple[_Token | None, int]:
    ch = text[pos]
    if ch in "\"`'":
        return _quoted(text, pos)
    if ch == ".":
        match = _CHAIN.match(text, pos)
        chain = tuple(match.group(0)[1:].split(".")) if match else ()
        attached = (
            previous is not None and previous.kind == ")" and pos > 0 and text[pos - 1] == ")"
        )
        return _Token(
            "field", "." + ".".join(chain), chain, attached
        ), match.end() if match else pos + 1
    if ch == "$":
        name = _IDENT.match(text, pos + 1)
        end = name.end() if name else pos + 1
        chain_match = _CHAIN.match(text, end)
        parts = tuple(chain_match.group(0)[1:].split(".")) if chain_match else ()
        return _Token("var", name.group(0) if name else "", parts), (
            chain_match.end() if chain_match else end
        )
    if text.startswith(":=", pos):
        return _Token(":=", ":="), pos + 2
    if ch in "()|,=":
        return _Token(ch, ch), pos + 1
    ident = _IDENT.match(text, pos)
    if ident:
        return _Token("ident", ident.group(0)), ident.end()
    number = _NUMBER.match(text, pos)
    if number:
        return _Token("lit", number.group(0)), number.end()
    return None, pos + 1  # an unexpected character: skip it


def _quoted(text: str, pos: int) -> tuple[_Token, int]:
    quote = text[pos]
    if quote == "`":
        end = text.find("`", pos + 1)
        end = len(text) if end < 0 else end
        return _Token("str", text[pos + 1 : end]), end + 1
    out, i = [], pos + 1
    while i < len(text) and text[i] != quote:
        if text[i] == "\\" and i + 1 < len(text):
            out.append(_ESCAPES.get(text[i + 1], text[i + 1]))
            i += 2
        else:
            out.append(text[i])
            i += 1
    return (_Token("str", "".join(out)) if quote == '"' else _Token("lit", "".join(out))), i + 1


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'"}


def _action(tokens: list[_Token]) -> Action:
    first = tokens[0]
    keyword = first.text if first.kind == "ident" else ""
    rest = tokens[1:]
    if keyword in ("if", "with", "range"):
        return Action(keyword, _Parser(rest).pipeline())
    if keyword == "else":
        if rest and rest[0].kind == "ident" and rest[0].text in ("if", "with"):
            return Action(f"else_{rest[0].text}", _Parser(rest[1:]).pipeline())
        return Action("else")
    if keyword in ("end", "break", "continue"):
        return Action(keyword)
    if keyword in ("define", "block", "template"):
        name = rest[0].text if rest and rest[0].kind == "str" else None
        pipeline = _Parser(rest[1:]).pipeline() if len(rest) > 1 else None
        return Action(keyword, pipeline, name)
    return Action("expr", _Parser(tokens).pipeline())


class _Parser:
    """Recursive descent over one action's tokens: pipeline := [vars :=] command { | command }."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> _Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def pipeline(self) -> Pipeline:
        declares, assigns = self._declaration()
        commands: list[Command] = []
        while True:
            command = self._command()
            if command:
                commands.append(command)
            token = self.peek()
            if token is None or token.kind == ")":
                break
            self.pos += 1  # a `|` (or a stray token, skipped)
        return Pipeline(tuple(commands), declares, assigns)

    def _declaration(self) -> tuple[tuple[str, ...], bool]:
        names, i = [], self.pos
        while i < len(self.tokens) and self.tokens[i].kind == "var" and not self.tokens[i].chain:
            names.append(self.tokens[i].text)
            i += 1
            if i < len(self.tokens) and self.tokens[i].kind == ",":
                i += 1
                continue
            break
        if names and i < len(self.tokens) and self.tokens[i].kind in (":=", "="):
            self.pos = i + 1
            return tuple(names), self.tokens[i].kind == "="
        return (), False

    def _command(self) -> Command:
        operands: list[Operand] = []
        while (token := self.peek()) is not None and token.kind not in ("|", ")"):
            operand = self._operand()
            if operand is not None:
                operands.append(operand)
        return tuple(operands)

    def _operand(self) -> Operand | None:
        token = self.tokens[self.pos]
        self.pos += 1
        if token.kind == "field":
            return Field(token.chain)
        if token.kind == "var":
            return Var(token.text, token.chain)
        if token.kind == "str":
            return Str(token.text)
        if token.kind == "ident":
            return Ident(token.text)
        if token.kind == "lit":
            return Lit(token.text)
        if token.kind == "(":
            inner = self.pipeline()
            if (close := self.peek()) is not None and close.kind == ")":
                self.pos += 1
            chain: tuple[str, ...] = ()
            if (after := self.peek()) is not None and after.kind == "field" and after.attached:
                self.pos += 1
                chain = after.chain
            return Paren(inner, chain)
        return None  # `,`, `:=` or `=` out of place
