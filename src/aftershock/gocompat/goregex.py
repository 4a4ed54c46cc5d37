"""Go `regexp` (RE2 syntax) for helm-unittest patterns: google-re2 when installed, else Python `re`.

With the `google-re2` package the syntax and semantics are Go's: no look-around or
back-references (such a pattern is an error, as in helm-unittest), `$` only at the very end of
the text, `\\z`, `(?U)`, POSIX classes and `\\pL`. Without it, Python's `re` is used with `\\z`
mapped to `\\Z`; then look-around compiles instead of failing, `$` also matches before a final
newline, and `(?U)`, `\\pL` and `[[:alpha:]]` are not understood. `ENGINE` says which is in use.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

try:
    import re2 as _re2  # type: ignore[import-untyped]  # google-re2 ships no type information
except ImportError:  # pragma: no cover - depends on the environment
    _re2 = None

ENGINE = "re2" if _re2 is not None else "python-re"


class GoRegexError(ValueError):
    """A pattern Go's regexp.Compile would refuse; the message follows Go's wording."""


@dataclass(frozen=True)
class GoRegex:
    pattern: str
    compiled: Any

    def search(self, text: str) -> bool:
        """regexp.MatchString: is there a match anywhere in `text`."""
        return self.compiled.search(text) is not None

    def sub(self, replacement: str, text: str) -> str:
        return str(self.compiled.sub(replacement, text))


def _re2_options() -> Any:
    options = _re2.Options()
    options.log_errors = False
    return options


def _translate_for_python(pattern: str) -> str:
    """The closest Python `re` pattern: Go's `\\z` is Python's `\\Z`."""
    return pattern.replace(r"\z", r"\Z")


@functools.lru_cache(maxsize=512)
def compile_go(pattern: str) -> GoRegex:
    """Compile `pattern` with Go's syntax; raise GoRegexError as regexp.Compile would."""
    if _re2 is not None:
        try:
            return GoRegex(pattern, _re2.compile(pattern, _re2_options()))
        except _re2.error as exc:
            detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
            raise GoRegexError(f"error parsing regexp: {detail}: `{pattern}`") from None
    try:
        return GoRegex(pattern, re.compile(_translate_for_python(pattern)))
    except re.error as exc:
        raise GoRegexError(f"error parsing regexp: {exc}: `{pattern}`") from None


def quote_meta(text: str) -> str:
    """regexp.QuoteMeta: escape every character that is special in RE2."""
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", text)
