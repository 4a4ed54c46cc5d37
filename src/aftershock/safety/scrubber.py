"""The replacement of secret texts inside strings, one automaton for all of them (Aho-Corasick).

A review that renders a whole platform collects thousands of Secret texts: one substring search or
one regular-expression alternative per text made the scrub grow with their number times the
document's size.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import ahocorasick_rs

LEFTMOST_LONGEST = ahocorasick_rs.MatchKind.LeftmostLongest


@dataclass(frozen=True)
class Scrubber:
    """Replaces each occurrence of some texts with `<redacted: N bytes>`, leftmost first and, of the
    texts that start there, the longest, so a value is hidden whole rather than around a shorter one
    inside it."""

    automaton: ahocorasick_rs.AhoCorasick

    @classmethod
    def of(cls, forms: Iterable[str]) -> Scrubber | None:
        patterns = sorted(forms)
        if not patterns:
            return None
        return cls(ahocorasick_rs.AhoCorasick(patterns, matchkind=LEFTMOST_LONGEST))

    def scrub(self, text: str) -> str:
        if not text:
            return text
        found = self.automaton.find_matches_as_indexes(text)
        if not found:
            return text
        parts: list[str] = []
        end = 0
        for _, start, stop in found:
            hidden = len(text[start:stop].encode("utf-8"))
            parts += (text[end:start], f"<redacted: {hidden} bytes>")
            end = stop
        parts.append(text[end:])
        return "".join(parts)


def scrub_strings(scrubber: Scrubber, data: Any) -> Any:
    """`data` (JSON-like) with the strings in it scrubbed; map keys are structure, kept. What holds
    nothing to hide is returned as it is, not copied (a platform's review document is gigabytes of
    Python objects)."""
    if isinstance(data, str):
        return scrubber.scrub(data)
    if isinstance(data, dict):
        changed = {}
        for key, value in data.items():
            new = scrub_strings(scrubber, value)
            if new is not value:
                changed[key] = new
        return {**data, **changed} if changed else data
    if isinstance(data, list):
        items = [scrub_strings(scrubber, v) for v in data]
        return items if any(n is not o for n, o in zip(items, data)) else data
    if isinstance(data, tuple):
        return [scrub_strings(scrubber, v) for v in data]
    return data
