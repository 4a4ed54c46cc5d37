"""Filters of helm-unittest's YAML JSONPath: `[?(@.name == 'x' && !@.hidden)]`.

The filter lexemes are parsed into a tree (`||` binds looser than `&&`, `!` and brackets as
usual) and compiled into a predicate over a node. Comparisons are set-wise like the original:
every value on the left must compare true with every value on the right, and an empty side is
false. Values compare by their YAML type: numbers numerically, strings lexically, and values of
incompatible types are "incomparable" (so `!=` is true for them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aftershock.gocompat.gofmt import format_scalar
from aftershock.gocompat.goregex import compile_go
from aftershock.gocompat.goyaml import GoUint
from aftershock.gocompat.jsonpath_scan import COMPARISONS, Lex, Lexeme, regex_literal_pattern

Filter = Callable[[Any, Any], bool]
FindNodes = Callable[[str, Any, Any], list[Any]]  # (path, node, root) -> selected nodes

_LITERALS = {
    Lex.INT_LITERAL,
    Lex.FLOAT_LITERAL,
    Lex.STRING_LITERAL,
    Lex.BOOL_LITERAL,
    Lex.NULL_LITERAL,
    Lex.REGEX_LITERAL,
}
_SUBPATH = {
    Lex.IDENTITY,
    Lex.DOT_CHILD,
    Lex.BRACKET_CHILD,
    Lex.RECURSIVE_DESCENT,
    Lex.ARRAY_SUBSCRIPT,
}
LESS, EQUAL, GREATER, INCOMPARABLE = range(4)
_ACCEPTS: dict[Lex, Callable[[int], bool]] = {
    Lex.EQUAL: lambda c: c == EQUAL,
    Lex.NOT_EQUAL: lambda c: c != EQUAL,
    Lex.GREATER: lambda c: c == GREATER,
    Lex.GREATER_EQUAL: lambda c: c in (GREATER, EQUAL),
    Lex.LESS: lambda c: c == LESS,
    Lex.LESS_EQUAL: lambda c: c in (LESS, EQUAL),
}


@dataclass
class _Tree:
    lexeme: Lexeme
    subpath: list[Lexeme] = field(default_factory=list)
    children: list[_Tree | None] = field(default_factory=list)


@dataclass(frozen=True)
class Typed:
    """A scalar as the filter sees it: its YAML type and its text."""

    kind: str  # string, int, float, bool, null, regex or unknown (a collection)
    text: str

    def numeric(self) -> bool:
        return self.kind in ("int", "float")


def typed_of(value: Any) -> Typed:
    if value is None:
        return Typed("null", "null")
    if isinstance(value, bool):
        return Typed("bool", format_scalar(value))
    if isinstance(value, (int, GoUint)):
        return Typed("int", format_scalar(value))
    if isinstance(value, float):
        return Typed("float", format_scalar(value))
    if isinstance(value, str):
        return Typed("string", value)
    return Typed("unknown", "")


def _literal(lexeme: Lexeme) -> Typed:
    kinds = {
        Lex.INT_LITERAL: "int",
        Lex.FLOAT_LITERAL: "float",
        Lex.BOOL_LITERAL: "bool",
        Lex.NULL_LITERAL: "null",
    }
    if lexeme.kind == Lex.STRING_LITERAL:
        return Typed("string", lexeme.text[1:-1])
    if lexeme.kind == Lex.REGEX_LITERAL:
        return Typed("regex", regex_literal_pattern(lexeme.text))
    return Typed(kinds.get(lexeme.kind, "unknown"), lexeme.text)


class _Parser:
    """The filter grammar of yaml-jsonpath, including its leniencies."""

    def __init__(self, lexemes: list[Lexeme]) -> None:
        self.lexemes = lexemes
        self.pos = 0
        self.stack: list[_Tree | None] = []
        self.tree: _Tree | None = None

    def peek(self) -> Lexeme:
        return self.lexemes[self.pos] if self.pos < len(self.lexemes) else Lexeme(Lex.EOF, "")

    def take(self) -> Lexeme:
        lexeme = self.lexemes[self.pos]
        self.pos += 1
        return lexeme

    def parse(self) -> _Tree | None:
        if self.peek().kind == Lex.EOF:
            return None
        self.expression()
        return self.tree

    def expression(self) -> None:
        self._binary(Lex.FILTER_OR, self.conjunction)

    def conjunction(self) -> None:
        self._binary(Lex.FILTER_AND, self.basic)

    def _binary(self, kind: Lex, operand: Callable[[], None]) -> None:
        operand()
        while self.peek().kind == kind:
            left = self.tree
            lexeme = self.take()
            operand()
            self.tree = _Tree(lexeme, children=[left, self.tree])

    def basic(self) -> None:
        lexeme = self.peek()
        if lexeme.kind == Lex.FILTER_NOT:
            self.take()
            self.basic()
            self.tree = _Tree(lexeme, children=[self.tree])
            return
        if lexeme.kind == Lex.FILTER_OPEN_BRACKET:
            self.take()
            self.expression()
            if self.peek().kind == Lex.FILTER_CLOSE_BRACKET:
                self.take()
            return
        self.term()
        operator = self.peek()
        if operator.kind in COMPARISONS or operator.kind == Lex.MATCHES:
            self.take()
            left = self.tree
            self.term()
            self.tree = _Tree(operator, children=[left, self.tree])

    def term(self) -> None:
        lexeme = self.peek()
        if lexeme.kind in (Lex.EOF, Lex.ERROR):
            self.tree = None
        elif lexeme.kind in (Lex.FILTER_AT, Lex.ROOT):
            self.take()
            self.tree = _Tree(lexeme, subpath=self._subpath())
        elif lexeme.kind in _LITERALS:
            self.take()
            self.tree = _Tree(lexeme)
        # any other lexeme leaves the previous tree in place, as the original does

    def _subpath(self) -> list[Lexeme]:
        subpath: list[Lexeme] = []
        depth = 1
        while True:
            lexeme = self.peek()
            if lexeme.kind == Lex.FILTER_BEGIN:
                depth += 1
            elif lexeme.kind == Lex.FILTER_END:
                depth -= 1
                if depth == 0:
                    break
            elif lexeme.kind == Lex.EOF or (lexeme.kind not in _SUBPATH and depth == 1):
                break
            subpath.append(lexeme)
            self.take()
        return subpath


def _compare(left: Typed, right: Typed) -> int:
    if left.numeric() and right.numeric():
        try:
            a, b = float(left.text), float(right.text)
        except ValueError:
            return INCOMPARABLE
        return LESS if a < b else GREATER if a > b else EQUAL
    if left.kind not in ("string", "int", "float") or right.kind not in ("string", "int", "float"):
        return INCOMPARABLE
    return LESS if left.text < right.text else GREATER if left.text > right.text else EQUAL


def _compatible(a: str, b: str) -> bool:
    numeric = ("int", "float")
    return (a in numeric and b in numeric) or a == b or (a == "string" and b == "regex")


class _Compiler:
    def __init__(self, find_nodes: FindNodes, value_of: Callable[[Any], Any]) -> None:
        self.find_nodes = find_nodes
        self.value_of = value_of

    def compile(self, tree: _Tree | None) -> Filter:
        if tree is None:
            return lambda node, root: False
        kind = tree.lexeme.kind
        if kind in (Lex.FILTER_AT, Lex.ROOT):
            scan = self._scanner(tree)
            return lambda node, root: bool(scan(node, root))
        if kind in COMPARISONS:
            return self._pairwise(tree, self._comparison(kind))
        if kind == Lex.MATCHES:
            return self._pairwise(tree, _matches)
        if kind == Lex.FILTER_NOT:
            inner = self.compile(tree.children[0])
            return lambda node, root: not inner(node, root)
        if kind in (Lex.FILTER_OR, Lex.FILTER_AND):
            left, right = (self.compile(child) for child in tree.children)
            if kind == Lex.FILTER_OR:
                return lambda node, root: left(node, root) or right(node, root)
            return lambda node, root: left(node, root) and right(node, root)
        if kind == Lex.BOOL_LITERAL:
            constant = tree.lexeme.text.lower() == "true"
            return lambda node, root: constant
        return lambda node, root: False

    def _scanner(self, tree: _Tree | None) -> Callable[[Any, Any], list[Typed]]:
        if tree is None:
            return lambda node, root: []
        if tree.lexeme.kind in (Lex.FILTER_AT, Lex.ROOT):
            subpath = "".join(lexeme.text for lexeme in tree.subpath)
            from_item = tree.lexeme.kind == Lex.FILTER_AT

            def scan(node: Any, root: Any) -> list[Typed]:
                start = node if from_item else root
                try:
                    found = self.find_nodes(subpath, start, start)
                except ValueError:
                    return []
                return [typed_of(self.value_of(item)) for item in found]

            return scan
        if tree.lexeme.kind in _LITERALS:
            literal = _literal(tree.lexeme)
            return lambda node, root: [literal]
        return lambda node, root: []

    def _pairwise(self, tree: _Tree, accept: Callable[[Typed, Typed], bool]) -> Filter:
        left, right = (self._scanner(child) for child in tree.children)

        def predicate(node: Any, root: Any) -> bool:
            matched = False
            for a in left(node, root):
                for b in right(node, root):
                    if not accept(a, b):
                        return False
                    matched = True
            return matched

        return predicate

    @staticmethod
    def _comparison(kind: Lex) -> Callable[[Typed, Typed], bool]:
        accepts = _ACCEPTS[kind]

        def accept(a: Typed, b: Typed) -> bool:
            if not _compatible(a.kind, b.kind):
                return accepts(INCOMPARABLE)
            if a.kind == "bool":
                return accepts(EQUAL if a.text.lower() == b.text.lower() else INCOMPARABLE)
            if a.kind == "null":
                return accepts(EQUAL)
            return accepts(_compare(a, b))

        return accept


def _matches(text: Typed, pattern: Typed) -> bool:
    if text.kind != "string" or pattern.kind != "regex":
        return False
    return compile_go(pattern.text).search(text.text)


def compile_filter(
    lexemes: list[Lexeme], find_nodes: FindNodes, value_of: Callable[[Any], Any]
) -> Filter:
    """The predicate of a filter, given its lexemes (without `[?(` and `)]`)."""
    return _Compiler(find_nodes, value_of).compile(_Parser(lexemes).parse())
