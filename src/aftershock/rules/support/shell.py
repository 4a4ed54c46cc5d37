"""Shell scripts written inside chart templates, and the template actions that splice values into them.

A script is the argument after `-c` of a shell (`sh`, `bash`, `ash`, `dash`, `zsh`) in a container's
command or args, written as a YAML list (block or flow), or the body of an unquoted heredoc
(`<<EOF`; `<<'EOF'`, `<<"EOF"` and `<<\\EOF` do not expand and are skipped). Line-based: templates are
not YAML before rendering, so this reads their text as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_SHELL = r"(?:/usr)?(?:/bin/)?(?:sh|bash|ash|dash|zsh)"
_SHELL_ITEM = re.compile(r"^\s*-\s*[\"']?" + _SHELL + r"[\"']?\s*$")
_C_ITEM = re.compile(r"^(\s*)-\s*[\"']?-c[\"']?\s*$")
_FLOW_SHELL_C = re.compile(r"\[\s*[\"']?" + _SHELL + r"[\"']?\s*,\s*[\"']?-c[\"']?\s*,(.*)")
_FLOW_C = re.compile(r"\[\s*[\"']?-c[\"']?\s*,(.*)")
_FLOW_SHELL_C_ONLY = re.compile(r"\[\s*[\"']?" + _SHELL + r"[\"']?\s*,\s*[\"']?-c[\"']?\s*\]")
_FLOW_SHELL = re.compile(r"\[\s*[\"']?" + _SHELL + r"[\"']?\s*[,\]]")
_ARGS_KEY = re.compile(r"^(\s*)args:\s*$")
_BLOCK_ITEM = re.compile(r"^(\s*)-\s*[|>][-+0-9]*\s*$")
_HEREDOC = re.compile(r"<<-?[ \t]*([A-Za-z_][A-Za-z0-9_]*)")
_TEMPLATE_COMMENT = re.compile(r"\{\{-?\s*/\*.*?\*/\s*-?\}\}", re.S)
_RANGE = re.compile(
    r"\{\{-?\s*range\s+(\$\w+)\s*(?:,\s*(\$\w+)\s*)?:=\s*\$?\.Values((?:\.[A-Za-z_][\w-]*)*)"
)
_QUOTED_HEREDOC = re.compile(r"<<-?[ \t]*(?:'(\w+)'|\"(\w+)\"|\\(\w+))")
ACTION = re.compile(r"\{\{-?(.*?)-?\}\}", re.S)
_VALUES = re.compile(r"\$?\.Values((?:\.[A-Za-z_][\w-]*)*)")
_CONTROL = re.compile(r"^\s*(?:if|else|end|range|with|define|block|/\*)\b|:=|^\s*/\*")
# The last function of a pipeline that makes a value harmless in a shell: numbers, hashes, base64,
# single quotes (a value holding a quote still breaks out; the common idiom is accepted).
SAFE_ENDINGS = frozenset(
    {"int", "int64", "float64", "atoi", "len", "b64enc", "sha256sum", "sha1sum", "squote"}
)
LOOK_BACK = 6  # lines between the shell and its -c


@dataclass(frozen=True)
class Splice:
    """A template action that writes a values path into a shell script."""

    line: int
    values_path: str  # dotted path below .Values ("" for .Values itself)
    function: str  # "tpl", "toYaml", "include" (a named template given values) or "value"
    context: str  # "sh -c" or "heredoc"
    action: str  # the action's text, trimmed


def splices(text: str) -> Iterator[Splice]:
    """Every splice of values into a shell script of one template, in line order, once per line and path."""
    lines = text.split("\n")
    seen: set[tuple[int, str]] = set()
    ranges = range_variables(text)
    for number, context in sorted(script_lines(without_comments(text).split("\n")).items()):
        for action in ACTION.findall(lines[number - 1]):
            splice = _splice(action, number, context, ranges)
            if splice is not None and (number, splice.values_path) not in seen:
                seen.add((number, splice.values_path))
                yield splice


def without_comments(text: str) -> str:
    """The text with template comments (`{{/* … */}}`) blanked, line breaks kept: a comment quoting
    `cat <<EOF` opens no heredoc."""
    return _TEMPLATE_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def range_variables(text: str) -> dict[str, str]:
    """`$name` -> the values path (with `[]`) a `range` binds it to: `range $k, $v := .Values.x`."""
    found: dict[str, str] = {}
    for match in _RANGE.finditer(text):
        key, value, path = match.group(1), match.group(2), match.group(3).lstrip(".")
        for name in (key, value):
            if name:
                found[name] = f"{path}[]" if path else "[]"
    return found


def script_lines(lines: list[str]) -> dict[int, str]:
    """Line numbers (from 1) that belong to a shell script, with the script's context."""
    found: dict[int, str] = {}
    for index, line in enumerate(lines):
        # the look back only for a line that may need it
        flow = _FLOW_SHELL_C.search(line) is not None or (
            _FLOW_C.search(line) is not None and _shell_before(lines, index)
        )
        if flow:
            found.setdefault(index + 1, "sh -c")
        elif _C_ITEM.match(line) and _shell_before(lines, index):
            for number in _next_item(lines, index):
                found.setdefault(number, "sh -c")
        elif _FLOW_SHELL_C_ONLY.search(line):  # command: [sh, -c], the script in args
            for number in _args_script(lines, index):
                found.setdefault(number, "sh -c")
        heredoc = _HEREDOC.search(
            line.split(" #", 1)[0] if not line.lstrip().startswith("#") else ""
        )
        if heredoc:
            for number in _heredoc_body(lines, index, heredoc.group(1)):
                found[number] = "heredoc"
        quoted = _QUOTED_HEREDOC.search(line)
        if quoted:  # the shell does not expand its body, even inside a `-c` script
            delimiter = next(group for group in quoted.groups() if group)
            for number in _heredoc_body(lines, index, delimiter):
                found.pop(number, None)
    return found


def _shell_before(lines: list[str], index: int) -> bool:
    for line in lines[max(0, index - LOOK_BACK) : index + 1]:
        if _SHELL_ITEM.match(line) or _FLOW_SHELL.search(line):
            return True
    return False


def _next_item(lines: list[str], index: int) -> list[int]:
    """Line numbers of the list item after the one at `index` (`- -c`)."""
    following = next((n for n in range(index + 1, len(lines)) if lines[n].strip()), None)
    return [] if following is None else _item(lines, following)


def _args_script(lines: list[str], index: int) -> list[int]:
    """Line numbers of the first item of the `args:` list next to a `command: [sh, -c]` line."""
    for number in range(index + 1, min(len(lines), index + 1 + LOOK_BACK)):
        if _ARGS_KEY.match(lines[number]):
            return _next_item(lines, number)
    return []


def _item(lines: list[str], start: int) -> list[int]:
    """Line numbers of the list item at `start`: a block scalar's lines, or the item's one line."""
    if not lines[start].strip().startswith("-"):
        return []
    if not _BLOCK_ITEM.match(lines[start]):
        return [start + 1]
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(number + 1)
    return body


def _heredoc_body(lines: list[str], index: int, delimiter: str) -> list[int]:
    """The lines up to the delimiter; none when no line ends it (quoted prose, not a heredoc)."""
    body: list[int] = []
    for number in range(index + 1, len(lines)):
        if lines[number].strip() == delimiter:
            return body
        body.append(number + 1)
    return []


def _splice(
    action: str, line: int, context: str, ranges: dict[str, str] | None = None
) -> Splice | None:
    body = action.strip()
    if _CONTROL.search(body):
        return None
    values = _VALUES.search(body)
    path = values.group(1).lstrip(".") if values else None
    if path is None:  # a range variable over values: `include "x" $cfg`
        path = next(
            (p for name, p in (ranges or {}).items() if re.search(re.escape(name) + r"\b", body)),
            None,
        )
    if path is None:
        return None
    stages = [stage.split() for stage in body.split("|")]
    last = stages[-1][0] if stages[-1] else ""  # `x | int`, or `int x` alone
    if last in SAFE_ENDINGS:
        return None
    words = set(re.findall(r"\b\w+\b", body))
    function = (
        "tpl"
        if "tpl" in words
        else "toYaml"
        if words & {"toYaml", "toJson"}
        else "include"
        if words & {"include", "template"}
        else "value"
    )
    return Splice(line, path, function, context, body)
