"""Evaluating helm-unittest's YAML JSONPath on decoded documents (GetValueOfSetPath).

A compiled path is a chain of matchers, each mapping one node to the nodes it selects, as in
helm-unittest's fork of yaml-jsonpath. Nodes are the decoded Python values themselves; mapping
keys take part as scalar nodes where the original walks them (recursive descent, `~`).
Before a lookup, helm-unittest encodes the document to YAML and decodes it again, so an
integral float such as `2.0` is found as the int `2`: `values_at` does the same.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from aftershock.gocompat.gofmt import after_yaml_roundtrip, format_scalar
from aftershock.gocompat.jsonpath_filter import Filter, compile_filter
from aftershock.gocompat.jsonpath_lexer import lex
from aftershock.gocompat.jsonpath_scan import Lex, Lexeme, slice_indices


class PathError(ValueError):
    """A path the yaml-jsonpath lexer refuses; the message is the lexer's."""


@dataclass(frozen=True)
class Document:
    """The document node above the root mapping, which `$` steps into."""

    content: Any


@dataclass(frozen=True)
class KeyNode:
    """A mapping key taken as a node (by recursive descent or the `~` operator)."""

    value: Any


Matcher = Callable[[Any, Any], Iterator[Any]]


def node_value(node: Any) -> Any:
    if isinstance(node, KeyNode):
        return node.value
    return node.content if isinstance(node, Document) else node


def _key_text(key: Any) -> str:
    return key if isinstance(key, str) else format_scalar(key)


def _children(node: Any) -> Iterator[Any]:
    """A node's Content in yaml.v3 order: for a mapping, key then value, pair by pair."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield KeyNode(key)
            yield value
    elif isinstance(node, list):
        yield from node
    elif isinstance(node, Document):
        yield node.content


def _recurse(node: Any) -> Iterator[Any]:
    for child in _children(node):
        yield from _recurse(child)
    yield node


def _then(select: Callable[[Any], Iterator[Any]], rest: Matcher) -> Matcher:
    def matcher(node: Any, root: Any) -> Iterator[Any]:
        for selected in select(node):
            yield from rest(selected, root)

    return matcher


def _identity(node: Any, root: Any) -> Iterator[Any]:
    yield node


def _child(name: str, rest: Matcher) -> Matcher:
    if name == "*":
        return _then(_all_children, rest)
    name = unescape(name)

    def select(node: Any) -> Iterator[Any]:
        if isinstance(node, dict):
            for key, value in node.items():
                if _key_text(key) == name:
                    yield value
                    return

    return _then(select, rest)


def _all_children(node: Any) -> Iterator[Any]:
    if isinstance(node, dict):
        yield from node.values()
    elif isinstance(node, list):
        yield from node


def _bracket_children(names: list[str], rest: Matcher, keys: bool) -> Matcher:
    def select(node: Any) -> Iterator[Any]:
        if isinstance(node, dict):
            for name in names:
                for key, value in node.items():
                    if _key_text(key) == name:
                        yield KeyNode(key) if keys else value

    return _then(select, rest)


def _property_name(name: str, rest: Matcher) -> Matcher:
    name = unescape(name)

    def select(node: Any) -> Iterator[Any]:
        if isinstance(node, dict):
            for key in node:
                if _key_text(key) == name:
                    yield KeyNode(key)
                    return

    return _then(select, rest)


def _subscript(subscript: str, rest: Matcher, keys: bool = False) -> Matcher:
    def select(node: Any) -> Iterator[Any]:
        if isinstance(node, dict) and subscript == "*":
            yield from (KeyNode(key) for key in node) if keys else node.values()
        elif isinstance(node, list) and not keys:
            for index in slice_indices(subscript, len(node)):
                yield node[index]

    return _then(select, rest)


def _filtered(predicate: Filter, rest: Matcher, recursive: bool) -> Matcher:
    def matcher(node: Any, root: Any) -> Iterator[Any]:
        if isinstance(node, list) and not recursive:
            for item in node:
                if predicate(item, root):
                    yield from rest(item, root)
        elif predicate(node, root):
            yield from rest(node, root)

    return matcher


def unescape(raw: str) -> str:
    """Drop backslash escapes: `\\x` is `x`, `\\\\` is a backslash."""
    out, escaped = [], False
    for char in raw:
        if char == "\\":
            if escaped:
                out.append(char)
            escaped = not escaped
            continue
        escaped = False
        out.append(char)
    return "".join(out)


def _balanced(text: str, quote: str) -> bool:
    balanced, previous = True, ""
    for char in text:
        if char == quote and previous != "\\":
            balanced = not balanced
        previous = char
    return balanced


def bracket_child_names(names: str) -> list[str]:
    """The names in `'a', "b.c"`: commas inside quotes kept, quotes and escapes removed."""
    children: list[str] = []
    pending = ""
    for part in names.split(","):
        if _balanced(part, "'") and _balanced(part, '"'):
            if pending:
                pending += "," + part
            else:
                children.append(part)
        elif not pending:
            pending = part
        else:
            children.append(pending + "," + part)
            pending = ""
    if pending:
        children.append(pending)
    unquoted = []
    for child in (c.strip() for c in children):
        if child.startswith("'"):
            child = child[1:].removesuffix("'")
        else:
            child = child.removeprefix('"').removesuffix('"')
        unquoted.append(unescape(child))
    return unquoted


class _Builder:
    """newPath: turns the lexemes into a matcher chain, right to left."""

    def __init__(self, lexemes: list[Lexeme]) -> None:
        self.lexemes = lexemes
        self.index = 0

    def next(self) -> Lexeme:
        lexeme = self.lexemes[self.index] if self.index < len(self.lexemes) else Lexeme(Lex.EOF, "")
        self.index += 1
        return lexeme

    def build(self) -> Matcher:
        lexeme = self.next()
        kind, text = lexeme.kind, lexeme.text
        if kind == Lex.ERROR:
            raise PathError(text)
        if kind in (Lex.IDENTITY, Lex.EOF):
            return _identity
        if kind in (Lex.FILTER_BEGIN, Lex.RECURSIVE_FILTER_BEGIN):
            return self._filter(recursive=kind == Lex.RECURSIVE_FILTER_BEGIN)
        rest = self.build()
        if kind == Lex.ROOT:
            return lambda node, root: rest(
                node.content if isinstance(node, Document) else node, root
            )
        if kind == Lex.RECURSIVE_DESCENT:
            name = text[2:]
            after = (
                _then(_all_children, rest)
                if name == "*"
                else (rest if not name else _child(name, rest))
            )
            return _then(_recurse, after)
        if kind in (Lex.DOT_CHILD, Lex.UNDOTTED_CHILD):
            return _child(text[1:] if kind == Lex.DOT_CHILD else text, rest)
        if kind in (Lex.BRACKET_CHILD, Lex.BRACKET_PROPERTY_NAME):
            inner = text.strip().removesuffix("~").removeprefix("[").removesuffix("]").strip()
            return _bracket_children(
                bracket_child_names(inner), rest, keys=kind == Lex.BRACKET_PROPERTY_NAME
            )
        if kind == Lex.ARRAY_SUBSCRIPT:
            return _subscript(text[1:-1], rest)
        if kind == Lex.SUBSCRIPT_PROPERTY_NAME:
            return _subscript(text[1:-2], rest, keys=True)
        if kind == Lex.PROPERTY_NAME:
            return _property_name(text.removeprefix(".").removesuffix("~"), rest)
        raise PathError("invalid path syntax")

    def _filter(self, recursive: bool) -> Matcher:
        inner: list[Lexeme] = []
        depth = 1
        while True:
            lexeme = self.next()
            if lexeme.kind == Lex.FILTER_BEGIN:
                depth += 1
            elif lexeme.kind == Lex.FILTER_END:
                depth -= 1
                if depth == 0:
                    break
            elif lexeme.kind == Lex.ERROR:
                raise PathError(lexeme.text)
            elif lexeme.kind == Lex.EOF:
                raise PathError("missing end of filter")
            inner.append(lexeme)
        rest = self.build()
        return _filtered(compile_filter(inner, find_nodes, node_value), rest, recursive)


@functools.lru_cache(maxsize=2048)
def compile_path(path: str) -> Matcher:
    """yamlpath.NewPath: raise PathError with the lexer's message for an invalid path."""
    return _Builder(lex(path)).build()


def find_nodes(path: str, node: Any, root: Any) -> list[Any]:
    """The nodes `path` selects from `node`, `root` being what `$` inside filters refers to."""
    return list(compile_path(path)(node, root))


def find(path: str, document: Any) -> list[Any]:
    """Path.Find on a document's content: the selected nodes, in order (repeats possible)."""
    node = Document(document)
    return find_nodes(path, node, node)


def values_at(manifest: Any, path: str, roundtripped: Any = None) -> list[Any]:
    """GetValueOfSetPath: the values `path` selects in `manifest` ([manifest] for "").

    Pass `roundtripped` (the manifest after `after_yaml_roundtrip`) to skip recomputing it.
    """
    if path == "":
        return [manifest]
    view = roundtripped if roundtripped is not None else after_yaml_roundtrip(manifest)
    return [node_value(node) for node in find(path, view)]
