"""Text from the repository (commit titles, names, paths, messages, values) made inert for the format
it enters: a pull-request comment must not run HTML, ping `@everyone` or take a line break from a
file name; a terminal must not receive escape sequences.

- control bytes (C0 but tab and newline, DEL, C1, so ANSI escapes too) are dropped everywhere;
- names and paths keep their newlines visible as `\\n` (`\\r` likewise), prose is folded to one line;
- Markdown prose: HTML entities for `&`, `<`, `>`, a backslash before Markdown's punctuation, and a
  zero-width joiner after `@` so no mention (or team mention) is made;
- Markdown code spans: fenced with more backticks than the text holds, `|` escaped in tables;
- HTML: entities (quotes included) and the broken mention;
- terminal: rich markup escaped.
"""

from __future__ import annotations

import html
import re

ZERO_WIDTH_JOINER = "\u200d"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]{}()#+!|~])")
_BACKTICKS = re.compile(r"`+")
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_SGR_SPLIT = re.compile(r"(\x1b\[[0-9;]*m)")


def drop_control(text: str, *, keep_colors: bool = False) -> str:
    """`text` without control bytes but tab and newline; with `keep_colors`, SGR colour codes
    (`ESC [ … m`, what a console report paints with) stay, every other escape sequence loses its ESC."""
    if not keep_colors:
        return _CONTROL.sub("", text)
    return "".join(
        part if _SGR.fullmatch(part) else _CONTROL.sub("", part) for part in _SGR_SPLIT.split(text)
    )


def visible_name(text: object) -> str:
    """A name or path: control bytes dropped, line breaks shown as `\\n` and `\\r`, tabs as spaces."""
    value = str(text).replace("\r", "\\r").replace("\n", "\\n").replace("\t", " ")
    return _CONTROL.sub("", value)


def one_line(text: object) -> str:
    """Prose: control bytes dropped, every run of whitespace (line breaks included) one space."""
    return " ".join(_CONTROL.sub("", str(text)).split())


def markdown_text(text: object) -> str:
    """Prose in Markdown: one line, no HTML, no Markdown syntax, no mention."""
    escaped = html.escape(one_line(text), quote=False)
    return _break_mentions(_MARKDOWN_PUNCTUATION.sub(r"\\\1", escaped))


def markdown_code(text: object, *, in_table: bool = False) -> str:
    """A whole code span (backticks included) showing `text` as it is, on one line."""
    value = visible_name(text)
    if in_table:
        value = value.replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICKS.findall(value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or not value.strip() else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def code_block_fence(lines: list[str]) -> str:
    """The fence of a code block holding `lines`: longer than any backtick run inside, so none closes it."""
    longest = max((len(run) for line in lines for run in _BACKTICKS.findall(line)), default=0)
    return "`" * max(3, longest + 1)


def html_text(text: object, *, name: bool = True) -> str:
    """Text inside HTML (also the HTML of a Markdown comment): entities, quotes included, and no mention."""
    value = visible_name(text) if name else one_line(text)
    return _break_mentions(html.escape(value, quote=True))


def terminal_text(text: object, *, name: bool = False) -> str:
    """Text for a rich console: control bytes dropped (no escape sequence reaches the terminal), markup escaped."""
    from rich.markup import escape as rich_escape  # loaded by the terminal format alone

    return rich_escape(visible_name(text) if name else _CONTROL.sub("", str(text)))


def _break_mentions(text: str) -> str:
    return text.replace("@", "@" + ZERO_WIDTH_JOINER)
