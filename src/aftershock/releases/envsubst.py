r"""Flux's post-build variable substitution (`spec.postBuild`), hand-written for fidelity with
fluxcd/pkg/envsubst (a fork of drone/envsubst) as the kustomize-controller applies it.

Only `${...}` expands (`$var` without braces is left as it is); `$$` is an escaped `$`, so `$${x}` is
the literal `${x}`. Inside braces: `${var}`, defaults `${var:=d}`, `${var:-d}`, `${var=d}`, `${var-d}`
(a default may itself hold `${...}`), length `${#var}`, case `${var^}`, `${var^^}`, `${var,}`,
`${var,,}`, substrings `${var:off}`, `${var:off:len}`, replacement `${var/pat/rep}` (first),
`${var//pat/rep}` (all), `${var/#pat/rep}` (prefix), `${var/%pat/rep}` (suffix), with `\/` for a
literal slash, and removal of the shortest or longest matching prefix `${var#glob}`, `${var##glob}`
or suffix `${var%glob}`, `${var%%glob}`. An unset variable is the empty string, as in
Flux without strict substitution. Any other operator is an error (the object is then not reviewed
rather than substituted wrongly). Variable names must match Flux's `^[_[:alpha:]][_[:alpha:][:digit:]]*$`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from typing import Any

from aftershock.model.errors import MalformedInputError

VAR_NAME = re.compile(r"^[_A-Za-z][_A-Za-z0-9]*$")
_IDENT = re.compile(r"[_A-Za-z0-9]+")
DISABLED_KEY = "kustomize.toolkit.fluxcd.io/substitute"


def check_names(variables: Mapping[str, str], where: str) -> None:
    for name in variables:
        if not VAR_NAME.match(name):
            raise MalformedInputError(
                f"'{name}' var name is invalid, must match '{VAR_NAME.pattern}'",
                where=where,
                hint="rename the variable in postBuild",
            )


def substitute(text: str, variables: Mapping[str, str]) -> str:
    """`text` with every `${...}` expanded from `variables`; MalformedInputError on a bad expression."""
    out, _ = _text(text, 0, variables, closing=False)
    return out


def disabled(body: Mapping[str, Any]) -> bool:
    """Whether an object opts out with the label or annotation `kustomize.toolkit.fluxcd.io/substitute: disabled`."""
    metadata = body.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    for field in ("labels", "annotations"):
        values = metadata.get(field)
        if isinstance(values, dict) and values.get(DISABLED_KEY) == "disabled":
            return True
    return False


def _text(text: str, i: int, variables: Mapping[str, str], *, closing: bool) -> tuple[str, int]:
    """Literal text with expansions, up to the end (or, for a default value, up to its closing `}`)."""
    parts: list[str] = []
    while i < len(text):
        c = text[i]
        if closing and c == "}":
            return "".join(parts), i
        if c == "$" and text.startswith("$$", i):
            parts.append("$")
            i += 2
        elif c == "$" and text.startswith("${", i):
            value, i = _expression(text, i + 2, variables)
            parts.append(value)
        else:
            parts.append(c)
            i += 1
    if closing:
        raise MalformedInputError("unclosed ${ in a substitution default", hint="close it with }")
    return "".join(parts), i


def _expression(text: str, i: int, variables: Mapping[str, str]) -> tuple[str, int]:
    """The value of `${...}` starting after `${`; returns it and the index after its `}`."""
    length = text.startswith("#", i)
    match = _IDENT.match(text, i + length)
    if match is None:
        raise MalformedInputError(
            f"bad substitution near {text[i - 2 : i + 12]!r}",
            hint="use ${name} or $${name} for a literal",
        )
    name, i = match.group(0), match.end()
    value = variables.get(name, "")
    if length:
        return str(len(value)), _close(text, i)
    for op in (":=", ":-", "=", "-"):
        if text.startswith(op, i):
            default, end = _text(text, i + len(op), variables, closing=True)
            return (value or default), end + 1
    for op, apply in (
        ("^^", str.upper),
        (",,", str.lower),
        ("^", _upper_first),
        (",", _lower_first),
    ):
        if text.startswith(op, i):
            return apply(value), _close(text, i + len(op))
    if text.startswith(":", i):
        return _substring(text, i + 1, value)
    if text.startswith("/", i):
        return _replace(text, i + 1, value)
    if text.startswith(("#", "%"), i):
        return _trim(text, i, value)
    return value, _close(text, i)


def _argument(text: str, i: int, stop: str) -> tuple[str, int]:
    r"""Literal characters up to `stop` or `}`, with `\/` and `\\` unescaped; returns the index of the stop."""
    out: list[str] = []
    while i < len(text) and text[i] not in (stop, "}"):
        if text[i] == "\\" and text[i + 1 : i + 2] in ("/", "\\"):
            i += 1
        out.append(text[i])
        i += 1
    if i >= len(text):
        raise MalformedInputError("unclosed ${ in a substitution", hint="close it with }")
    return "".join(out), i


def _replace(text: str, i: int, value: str) -> tuple[str, int]:
    mode = text[i] if text[i : i + 1] in ("/", "#", "%") else ""
    pattern, i = _argument(text, i + len(mode), "/")
    replacement = ""
    if text[i] == "/":
        replacement, i = _argument(text, i + 1, "}")
    end = _close(text, i)
    if mode == "/":
        return value.replace(pattern, replacement), end
    if mode == "#":
        return (replacement + value[len(pattern) :] if value.startswith(pattern) else value), end
    if mode == "%":
        return (
            value[: len(value) - len(pattern)] + replacement if value.endswith(pattern) else value
        ), end
    return value.replace(pattern, replacement, 1) if pattern else value, end


def _trim(text: str, i: int, value: str) -> tuple[str, int]:
    """`#`/`##` remove the shortest/longest prefix matching a glob, `%`/`%%` the shortest/longest suffix."""
    op = text[i : i + 2] if text[i : i + 2] in ("##", "%%") else text[i]
    pattern, end = _argument(text, i + len(op), "}")
    lengths = range(len(value), -1, -1) if len(op) == 2 else range(len(value) + 1)
    for k in lengths:
        piece = value[:k] if op[0] == "#" else value[len(value) - k :]
        if fnmatch.fnmatchcase(piece, pattern):
            return (value[k:] if op[0] == "#" else value[: len(value) - k]), end + 1
    return value, end + 1


def _substring(text: str, i: int, value: str) -> tuple[str, int]:
    end = text.find("}", i)
    if end < 0:
        raise MalformedInputError("unclosed ${ in a substitution", hint="close it with }")
    fields = text[i:end].split(":")
    try:
        offset = int(fields[0])
        count = int(fields[1]) if len(fields) > 1 else None
    except ValueError:
        raise MalformedInputError(
            f"bad substring {text[i:end]!r}", hint="use ${name:offset:length}"
        ) from None
    piece = value[offset:] if count is None else value[offset : offset + count]
    return piece, end + 1


def _close(text: str, i: int) -> int:
    if not text.startswith("}", i):
        raise MalformedInputError(
            f"unsupported substitution near {text[max(0, i - 10) : i + 10]!r}",
            hint="aftershock supports ${name}, defaults, length, case and substrings",
        )
    return i + 1


def _upper_first(value: str) -> str:
    return value[:1].upper() + value[1:]


def _lower_first(value: str) -> str:
    return value[:1].lower() + value[1:]
