"""Fitting a comment into a character limit by construction, section by section.

A comment is a list of sections in display order, each with a priority. Required sections (the
verdicts, the concerns, the failing tests, what was not reviewed) are placed first and are bounded
by their own builders, so they always fit; the others get what remains in priority order. A section
that does not fit whole keeps the lines that fit and ends with a count of the lines left to the JSON
output, or, when not even that fits, becomes one line naming what was left out. Lines are never
split, so no `<details>` or code block is left open.
"""

from __future__ import annotations

from dataclasses import dataclass

MORE_NOTE = "- … {n} more line(s) of this section are in the JSON output and the HTML report"
MIN_OPTIONAL = 1_500  # what the optional sections get however long the required ones are
ELSEWHERE = "- left out to keep this comment short: in the JSON output and the HTML report"
LEFT_OUT = (
    "*{title}: left out to keep this comment short; it is in the JSON output and the HTML report.*"
)


@dataclass(frozen=True)
class Section:
    """`head` lines always go together (a heading, an opening `<details>`), `body` lines may be cut,
    `tail` lines close what `head` opened. `priority`: lower is placed first; 0 is required."""

    title: str
    head: tuple[str, ...]
    body: tuple[str, ...]
    tail: tuple[str, ...] = ("",)
    priority: int = 0

    @property
    def required(self) -> bool:
        return self.priority == 0

    def size(self, lines: tuple[str, ...]) -> int:
        return sum(len(line) + 1 for line in lines)

    @property
    def full_size(self) -> int:
        return self.size(self.head + self.body + self.tail)


def compose(sections: list[Section], limit: int, target: int | None = None) -> str:
    """The sections joined in display order, the optional ones cut so the text has at most `limit`
    characters, and at most `target` when the required ones leave room (else only those)."""
    placed: dict[int, tuple[str, ...]] = {}
    budget = limit - 1
    if target is not None:  # what the required sections leave of the target, for the others
        required = sum(s.full_size for s in sections if s.required)
        budget = min(budget, max(MIN_OPTIONAL, target - required) + required)
    order = sorted(range(len(sections)), key=lambda i: (sections[i].priority, i))
    for index in order:
        section = sections[index]
        if not section.head and not section.body:
            placed[index] = ()
            continue
        lines = (
            section.head + section.body + section.tail
            if section.required
            else _fit(section, budget)
        )
        placed[index] = lines
        budget -= section.size(lines)
    joined = [line for i in range(len(sections)) for line in placed[i]]
    text = (
        "\n".join(line for n, line in enumerate(joined) if line or n == 0 or joined[n - 1]).rstrip()
        + "\n"
    )
    if (
        len(text) > limit
    ):  # only when required sections alone exceed it: their builders' bounds are wrong
        raise ValueError(
            f"required comment sections take {len(text)} characters, over the limit of {limit}"
        )
    return text


def _fit(section: Section, budget: int) -> tuple[str, ...]:
    if section.full_size <= budget:
        return section.head + section.body + section.tail
    frame = section.size(section.head + section.tail) + len(MORE_NOTE) + 12
    if frame > budget:
        note = LEFT_OUT.format(title=section.title)
        return (note, "") if len(note) + 2 <= budget else ()
    kept: list[str] = []
    room = budget - frame
    for line in section.body:
        if len(line) + 1 > room:
            break
        kept.append(line)
        room -= len(line) + 1
    kept = _close_open_blocks(kept)
    if not kept:  # a drawing or table cut before its first line: say where it is, not a count
        # without a table's header rows, which would show as an empty table
        head = tuple(line for line in section.head if not line.startswith("|"))
        return head + (ELSEWHERE, "") + section.tail
    cut = len(section.body) - len(kept)
    return section.head + tuple(kept) + (MORE_NOTE.format(n=cut), "") + section.tail


def _close_open_blocks(lines: list[str]) -> list[str]:
    """The longest prefix of `lines` that leaves no code fence or `<details>` of the body open; a
    line may be a whole block (a plain diff's `<details>` … `</details>`, one unit of the budget)."""
    fences = details = 0
    balanced = 0
    for index, line in enumerate(lines, 1):
        for part in line.split("\n"):
            fences ^= part.strip().startswith("```")
            details += part.startswith("<details") - part.startswith("</details>")
        if not fences and details <= 0:
            balanced = index
    return lines[:balanced]
