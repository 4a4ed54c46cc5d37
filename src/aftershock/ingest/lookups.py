"""The `lookup` calls a chart's templates make, read statically from their text: what each asks for.

Only calls inside template actions count (`{{ ... }}`, not `{{/* comments */}}` nor the word in YAML
text or prose). Each argument is a literal string, the release's name or namespace (`.Release.Name`,
`$.Release.Namespace`), a values path (`.Values.db.secretName`: known for a render, given its
values), a `print`/`printf "%s"` of those, or not known at all (a variable, a pipeline). A call inside a `define` counts for a chart only when something the chart renders includes
that template (by literal name; a computed `include` name reaches every define): a library helper's
lookup is not every dependent's. Top-level text of a `_*.tpl` partial is not rendered, as in Helm.
"""

from __future__ import annotations

import enum
import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


class ReleaseField(str, enum.Enum):
    """A part of an argument that is the release's identity, known only when the release is."""

    NAME = ".Release.Name"
    NAMESPACE = ".Release.Namespace"


@dataclass(frozen=True)
class ReleaseIdentity:
    """The release a chart renders as; None where it is not known (yet)."""

    name: str | None = None
    namespace: str | None = None


UNKNOWN_RELEASE = ReleaseIdentity()


@dataclass(frozen=True)
class ValuesPath:
    """A part of an argument read from the chart's values (`.Values.a.b`): known for a given render."""

    keys: tuple[str, ...]


Part = str | ReleaseField | ValuesPath


@dataclass(frozen=True)
class LookupArgument:
    """One argument of a call: literal parts and release fields, or None when not known statically."""

    parts: tuple[Part, ...] | None

    @property
    def static(self) -> bool:
        """Whether the argument is known without the values of a render (literal or the release's)."""
        return self.parts is not None and not any(isinstance(p, ValuesPath) for p in self.parts)

    def value(
        self, release: ReleaseIdentity = UNKNOWN_RELEASE, values: Mapping[str, Any] | None = None
    ) -> str | None:
        """The argument's text for `release` and the render's `values`; None when a part of it is
        not known (a values path without values, or one that holds no text or number)."""
        if self.parts is None:
            return None
        text = []
        for part in self.parts:
            if isinstance(part, ValuesPath):
                found = _values_text(values, part.keys)
                if found is None:
                    return None
                text.append(found)
            elif isinstance(part, ReleaseField):
                known = release.name if part is ReleaseField.NAME else release.namespace
                if known is None:
                    return None
                text.append(known)
            else:
                text.append(part)
        return "".join(text)

    def shown(self) -> str:
        if self.parts is None:
            return "?"
        return "".join(_shown(p) for p in self.parts)


def _shown(part: Part) -> str:
    if isinstance(part, ValuesPath):
        return ".Values." + ".".join(part.keys)
    return part.value if isinstance(part, ReleaseField) else part


def _values_text(values: Mapping[str, Any] | None, keys: tuple[str, ...]) -> str | None:
    current: Any = values
    for key in keys:
        if not isinstance(current, Mapping) or key not in current:
            return None
        current = current[key]
    if isinstance(current, bool) or not isinstance(current, (str, int, float)):
        return None
    return str(current)


UNKNOWN = LookupArgument(None)


@dataclass(frozen=True)
class LookupCall:
    """What one `lookup` call asks for, and the repository path of the template holding it."""

    api_version: LookupArgument
    kind: LookupArgument
    namespace: LookupArgument
    name: LookupArgument
    template: str

    def identity(
        self, release: ReleaseIdentity, values: Mapping[str, Any] | None = None
    ) -> tuple[str, str, str, str] | None:
        """(apiVersion, kind, namespace, name) of the one object the call gets, when every argument
        is known (for the render's `values`) and names one object (a name given); None otherwise."""
        known = tuple(
            a.value(release, values) for a in (self.api_version, self.kind, self.namespace)
        )
        name = self.name.value(release, values)
        if any(v is None or v == "" for v in known[:2]) or known[2] is None or not name:
            return None
        api_version, kind, namespace = known
        assert api_version is not None and kind is not None and namespace is not None
        return api_version, kind, namespace, name

    def shown(self) -> str:
        ns, name = self.namespace.shown(), self.name.shown()
        return f"{self.kind.shown()} {ns + '/' if ns else ''}{name or '*'}"


@dataclass(frozen=True)
class TemplateFile:
    """The lookup calls and template includes of one file, outside and inside each `define`."""

    top_calls: tuple[LookupCall, ...] = ()
    top_includes: frozenset[str] = frozenset()
    defines: Mapping[str, tuple[tuple[LookupCall, ...], frozenset[str]]] = field(
        default_factory=dict
    )
    computed_include: bool = False  # an include whose template name is not a literal


_ACTION = re.compile(r"\{\{(.*?)\}\}", re.S)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`|[()|]|[^\s()|"`]+')
_OPENS = ("if", "range", "with", "define", "block")
_VALUES_TOKEN = re.compile(r"\$?\.Values((?:\.[A-Za-z_]\w*)+)")
_RELEASE = {
    ".Release.Name": ReleaseField.NAME,
    "$.Release.Name": ReleaseField.NAME,
    ".Release.Namespace": ReleaseField.NAMESPACE,
    "$.Release.Namespace": ReleaseField.NAMESPACE,
}


def has_lookup_call(text: str) -> bool:
    """Whether a template action of `text` calls `lookup` (cheap: no arguments read)."""
    return "lookup" in text and any(
        "lookup" in _tokens(body) for body in _action_bodies(text) if "lookup" in body
    )


@functools.lru_cache(maxsize=4096)  # a library's files are read for every chart depending on it
def parse_template(path: str, text: str) -> TemplateFile:
    """The calls and includes of one template file, by the `define` they sit in."""
    if "lookup" not in text and "include" not in text and "template" not in text:
        return TemplateFile()
    partial = path.rpartition("/")[2].startswith("_")
    stack: list[str | None] = []  # open blocks: a define's name, or None
    top_calls: list[LookupCall] = []
    top_includes: set[str] = set()
    defines: dict[str, tuple[list[LookupCall], set[str]]] = {}
    computed = False
    for body in _action_bodies(text):
        tokens = _tokens(body)
        if not tokens:
            continue
        if tokens[0] == "end":
            if stack:
                stack.pop()
            continue
        inside = next((name for name in reversed(stack) if name is not None), None)
        if tokens[0] in _OPENS:
            name = (
                _string(tokens[1]) if tokens[0] in ("define", "block") and len(tokens) > 1 else None
            )
            stack.append(name)
            if tokens[0] == "block" and name is not None:
                (defines[inside][1] if inside else top_includes).add(name)
        calls = [_call(tokens, i, path) for i, t in enumerate(tokens) if t == "lookup"]
        includes = {n for n in _included(tokens) if n is not None}
        computed = computed or None in _included(tokens)
        if inside is not None:
            entry = defines.setdefault(inside, ([], set()))
            entry[0].extend(calls)
            entry[1].update(includes)
        elif tokens[0] != "define" and not partial:
            top_calls.extend(calls)
            top_includes.update(includes)
        elif tokens[0] == "define" and stack[-1] is not None:
            defines.setdefault(stack[-1], ([], set()))
    return TemplateFile(
        tuple(top_calls),
        frozenset(top_includes),
        {k: (tuple(c), frozenset(i)) for k, (c, i) in defines.items()},
        computed,
    )


def reachable_calls(files: Iterable[TemplateFile]) -> tuple[LookupCall, ...]:
    """The calls a chart's render may run: its files' top-level calls, and those of every define
    its rendered text includes, directly or through other defines."""
    parsed = list(files)
    defines: dict[str, tuple[tuple[LookupCall, ...], frozenset[str]]] = {}
    for file in parsed:
        defines.update(file.defines)
    calls = [c for file in parsed for c in file.top_calls]
    if any(file.computed_include for file in parsed):
        return tuple(calls + [c for found, _ in defines.values() for c in found])
    pending = [name for file in parsed for name in file.top_includes]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen or name not in defines:
            continue
        seen.add(name)
        found, includes = defines[name]
        calls.extend(found)
        pending.extend(includes)
    return tuple(calls)


def _action_bodies(text: str) -> Iterable[str]:
    for match in _ACTION.finditer(text):
        body = match.group(1).strip()
        body = body.removeprefix("-").removesuffix("-").strip()
        if not body.startswith("/*"):
            yield body


def _tokens(body: str) -> list[str]:
    return _TOKEN.findall(body)


def _string(token: str) -> str | None:
    if token.startswith('"') and token.endswith('"') and len(token) >= 2:
        try:
            value = json.loads(token)
        except ValueError:
            return None
        return value if isinstance(value, str) else None
    if token.startswith("`") and token.endswith("`") and len(token) >= 2:
        return token[1:-1]
    return None


def _included(tokens: list[str]) -> list[str | None]:
    """The template names `include`/`template` calls name; None for a computed name."""
    return [
        _string(tokens[i + 1]) if i + 1 < len(tokens) else None
        for i, t in enumerate(tokens)
        if t in ("include", "template")
    ]


def _call(tokens: list[str], at: int, path: str) -> LookupCall:
    """The call whose `lookup` token is at `at`: up to four operands follow it."""
    args: list[LookupArgument] = []
    i = at + 1
    while len(args) < 4 and i < len(tokens) and tokens[i] not in (")", "|"):
        end = _operand_end(tokens, i)
        args.append(_argument(tokens[i:end]))
        i = end
    args += [UNKNOWN] * (4 - len(args))
    api_version, kind, namespace, name = args
    return LookupCall(api_version, kind, namespace, name, path)


def _operand_end(tokens: list[str], start: int) -> int:
    if tokens[start] != "(":
        return start + 1
    depth = 0
    for i in range(start, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[i], 0)
        if depth == 0:
            return i + 1
    return len(tokens)


def _argument(operand: list[str]) -> LookupArgument:
    if len(operand) == 1:
        part = _part(operand[0])
        return LookupArgument(None if part is None else (part,))
    inner = operand[1:-1]
    if inner and inner[0] == "print":
        printed = [_part(t) for t in inner[1:]]
        known = [p for p in printed if p is not None]
        return UNKNOWN if len(known) != len(printed) else LookupArgument(tuple(known))
    if len(inner) >= 2 and inner[0] == "printf" and (form := _string(inner[1])) is not None:
        return _printf(form, [_part(t) for t in inner[2:]])
    return UNKNOWN


def _printf(form: str, values: list[Part | None]) -> LookupArgument:
    """`printf` of `%s` verbs only: the format's pieces with the values between them."""
    pieces = form.split("%s")
    known = [v for v in values if v is not None]
    if len(known) != len(values) or len(pieces) != len(known) + 1 or "%" in "".join(pieces):
        return UNKNOWN
    parts: list[Part] = [pieces[0]]
    for value, piece in zip(known, pieces[1:]):
        parts += [value, piece]
    return LookupArgument(tuple(p for p in parts if p != ""))


def _part(token: str) -> Part | None:
    literal = _string(token)
    if literal is not None:
        return literal
    values = _VALUES_TOKEN.fullmatch(token)
    if values is not None:
        return ValuesPath(tuple(values.group(1).split(".")[1:]))
    return _RELEASE.get(token)
