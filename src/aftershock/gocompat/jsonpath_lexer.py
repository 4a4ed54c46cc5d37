"""The lexer of the YAML JSONPath dialect helm-unittest uses (helm-unittest/yaml-jsonpath v0.4.0).

A state machine over the path text, like the original: each state consumes some input, may emit
lexemes, and returns the next state; a stack of states handles filters nested in paths nested in
filters. `metadata.name` lexes as an implicit root, an undotted child and a dotted child; keys with
dots go in brackets (`annotations["a.b/c"]` or `['a.b']`); filters are `[?(@.name == 'x')]`.
"""

from __future__ import annotations

from aftershock.gocompat.jsonpath_scan import (
    ORDERING,
    Lex,
    Lexeme,
    PathLexer,
    State,
    enquote,
    go_quote_rune,
    scan_bool_literal,
    scan_null_literal,
    scan_number_literal,
    scan_regex_literal,
    scan_string_literal,
    slice_indices,
)

_CHILD_STOP = frozenset(".[) &|=!><~")
_UNDOTTED_STOP = frozenset(".[]) &|=!><~")
_OPERATOR_START = frozenset(" &|=!><")


def lex(text: str) -> list[Lexeme]:
    """The lexemes of a path, ending with EOF or with one ERROR lexeme."""
    lexer = PathLexer(text)
    state: State | None = lex_path
    while state is not None:
        state = state(lexer)
    return lexer.lexemes


def lex_path(lexer: PathLexer) -> State | None:
    if lexer.empty():
        lexer.emit(Lex.IDENTITY)
        lexer.emit(Lex.EOF)
        return None
    if lexer.has_prefix("$"):
        lexer.pos += 1
        lexer.emit(Lex.ROOT)
        return lex_sub_path
    lexer.emit_synthetic(Lex.ROOT, "$")
    return lex_sub_path


def _child_name_end(lexer: PathLexer, stops: frozenset[str], kind: Lex) -> State | None:
    if not lexer.scan_name(stops):
        lexer.error("child name missing")
        return None
    if lexer.consumed("~"):
        if lexer.peek():
            lexer.error("property name operator may only be used on last child in path")
            return None
        lexer.emit(Lex.PROPERTY_NAME)
        return lex_sub_path
    lexer.emit(kind)
    return lex_optional_array_index


def lex_sub_path(lexer: PathLexer) -> State | None:
    if lexer.has_prefix(")"):
        return lexer.pop()
    if lexer.empty():
        if lexer.stack:
            return lexer.pop()
        lexer.emit(Lex.IDENTITY)
        lexer.emit(Lex.EOF)
        return None
    if lexer.consumed(".."):
        named = lexer.scan_name(frozenset(".["))
        if not named and not lexer.has_prefix("["):
            lexer.error("child name or array access or filter missing after recursive descent")
            return None
        lexer.emit(Lex.RECURSIVE_DESCENT)
        return lex_sub_path
    if lexer.consumed("."):
        return _child_name_end(lexer, _CHILD_STOP, Lex.DOT_CHILD)
    if lexer.peeked_whitespaced("[", "'") or lexer.peeked_whitespaced("[", '"'):
        return _lex_bracket_child(lexer)
    if lexer.consumed("[?("):
        kind = (
            Lex.RECURSIVE_FILTER_BEGIN
            if lexer.last_kind == Lex.RECURSIVE_DESCENT
            else (Lex.FILTER_BEGIN)
        )
        lexer.emit(kind)
        lexer.stack.append(lex_filter_end)
        return lex_filter_expr_initial
    if lexer.has_prefix("["):
        return lex_optional_array_index
    if lexer.last_kind == Lex.EOF:
        return _child_name_end(lexer, _UNDOTTED_STOP, Lex.UNDOTTED_CHILD)
    lexer.error("invalid path syntax")
    return None


def _consumed_escaped_string(lexer: PathLexer, quote: str) -> bool:
    while True:
        if lexer.has_prefix(quote):
            return True
        if lexer.consumed("\\" + quote) or lexer.consumed("\\\\"):
            continue
        if lexer.has_prefix("\\"):
            lexer.error(f"unsupported escape sequence inside {quote}{quote}")
            return False
        if not lexer.next():
            lexer.error(f"unmatched {enquote(quote)}")
            return False


def _lex_bracket_child(lexer: PathLexer) -> State | None:
    lexer.consumed_whitespaced("[")
    while True:
        lexer.skip_whitespace()
        quote = lexer.next()
        if not _consumed_escaped_string(lexer, quote):
            return None
        if not lexer.consumed(quote):
            lexer.error(f"missing {enquote(quote)}")
            return None
        if not lexer.consumed_whitespaced(","):
            break
        if not lexer.peeked_whitespaced("'") and not lexer.peeked_whitespaced('"'):
            lexer.error("missing \"'\" or '\"'")
            return None
    if not lexer.consumed_whitespaced("]"):
        lexer.error('missing "]" or ","')
        return None
    if lexer.consumed("~"):
        lexer.emit(Lex.BRACKET_PROPERTY_NAME)
        if lexer.peek():
            lexer.error("property name operator may only be used on last child in path")
            return None
        return lex_sub_path
    lexer.emit(Lex.BRACKET_CHILD)
    return lex_optional_array_index


def lex_optional_array_index(lexer: PathLexer) -> State | None:
    if lexer.consumed("[", "['", '["', "[?("):
        subscript = False
        while not lexer.consumed("]"):
            if not lexer.next():
                lexer.error("unmatched [")
                return None
            subscript = True
        if not subscript:
            lexer.raw_error(f"subscript missing from [] before position {lexer.pos}")
            return None
        value = lexer.text[lexer.start : lexer.pos]
        try:
            slice_indices(value[1:-1], 0)
        except ValueError as exc:
            lexer.raw_error(f"invalid array index {value} before position {lexer.pos}: {exc}")
            return None
        if lexer.consumed("~"):
            if lexer.peek():
                lexer.error("property name operator can only be used on last item in path")
                return None
            if value[1:-1] != "*":
                lexer.error("property name operator can only be used on map nodes")
                return None
            lexer.emit(Lex.SUBSCRIPT_PROPERTY_NAME)
            return lex_sub_path
        lexer.emit(Lex.ARRAY_SUBSCRIPT)
    if lexer.peek() and lexer.peek() in _OPERATOR_START:
        if not lexer.stack:
            lexer.error(f"invalid character {go_quote_rune(lexer.peek())}")
            return None
        return lexer.pop()
    return lex_sub_path


def _literal(lexer: PathLexer) -> State | bool | None:
    """Scan a literal if one is next: its next state, or False when none is there."""
    for scan in (scan_number_literal, scan_string_literal, scan_bool_literal, scan_null_literal):
        found = scan(lexer)
        if found is not None:
            return lex_filter_expr if found else None
    return False


def lex_filter_expr_initial(lexer: PathLexer) -> State | None:
    lexer.strip_whitespace()
    literal = _literal(lexer)
    if literal is not False:
        return literal  # type: ignore[return-value]
    if lexer.consumed("("):
        lexer.emit(Lex.FILTER_OPEN_BRACKET)
        lexer.stack.append(lex_filter_expr)
        return lex_filter_expr_initial
    if lexer.has_prefix("!="):
        lexer.error("missing first operand for binary operator !=")
        return None
    if lexer.consumed("!"):
        lexer.emit(Lex.FILTER_NOT)
        return lex_filter_expr_initial
    if lexer.consumed("@"):
        lexer.emit(Lex.FILTER_AT)
        if any(lexer.peeked_whitespaced(token) for token in "=!><"):
            return lex_filter_expr
        lexer.stack.append(lex_filter_expr)
        return lex_sub_path
    if lexer.consumed("$"):
        lexer.emit(Lex.ROOT)
        lexer.stack.append(lex_filter_expr)
        return lex_sub_path
    for operator in ("&&", "||", "==", ">=", ">", "<=", "<"):
        if lexer.has_prefix(operator):
            lexer.error(f"missing first operand for binary operator {operator}")
            return None
    return lexer.pop()


def lex_filter_expr(lexer: PathLexer) -> State | None:
    lexer.strip_whitespace()
    if lexer.empty():
        lexer.error("missing end of filter")
        return None
    if lexer.has_prefix(")]"):
        return lexer.pop()  # the popped state consumes it
    if lexer.consumed(")"):
        lexer.emit(Lex.FILTER_CLOSE_BRACKET)
        return lexer.pop()
    for token, kind in (("&&", Lex.FILTER_AND), ("||", Lex.FILTER_OR)):
        if lexer.consumed(token):
            lexer.emit(kind)
            lexer.strip_whitespace()
            return lex_filter_expr_initial
    for token, kind in (("==", Lex.EQUAL), ("!=", Lex.NOT_EQUAL)):
        if lexer.consumed(token):
            lexer.emit(kind)
            lexer.stack.append(lex_filter_expr)
            return lex_filter_term
    if lexer.has_prefix("=~"):
        if lexer.last_kind in (Lex.STRING_LITERAL, Lex.INT_LITERAL, Lex.FLOAT_LITERAL):
            lexer.error("literal cannot be matched using =~")
            return None
        lexer.pos += 2
        lexer.emit(Lex.MATCHES)
        lexer.strip_whitespace()
        return lex_filter_expr if scan_regex_literal(lexer) else None
    for token, kind in ORDERING:
        if lexer.has_prefix(token):
            return _lex_comparison(lexer, token, kind)
    lexer.error("invalid filter expression")
    return None


def lex_filter_term(lexer: PathLexer) -> State | None:
    lexer.strip_whitespace()
    if lexer.consumed("@"):
        lexer.emit(Lex.FILTER_AT)
        if any(lexer.peeked_whitespaced(token) for token in "|&)"):
            if not lexer.stack:
                lexer.error(f"invalid character {go_quote_rune(lexer.peek())}")
                return None
            return lexer.pop()
        return lex_sub_path
    if lexer.consumed("$"):
        lexer.emit(Lex.ROOT)
        return lex_sub_path
    literal = _literal(lexer)
    if literal is not False:
        return literal  # type: ignore[return-value]
    lexer.error("invalid filter term")
    return None


def lex_filter_end(lexer: PathLexer) -> State | None:
    if lexer.has_prefix(")]"):
        if lexer.last_kind == Lex.FILTER_BEGIN:
            lexer.error("missing filter")
            return None
        lexer.pos += 2
        lexer.emit(Lex.FILTER_END)
        return lex_sub_path
    lexer.error("invalid filter syntax")
    return None


def _lex_comparison(lexer: PathLexer, token: str, kind: Lex) -> State | None:
    if lexer.last_kind == Lex.STRING_LITERAL:
        lexer.error(f"strings cannot be compared using {token}")
        return None
    lexer.pos += len(token)
    lexer.emit(kind)
    lexer.strip_whitespace()
    if lexer.has_prefix("'"):
        lexer.error(f"strings cannot be compared using {token}")
        return None
    lexer.stack.append(lex_filter_expr)
    return lex_filter_term
