"""A changed file's text diff in the review document, bounded: `MAX_FILE_LINES` lines of hunks per file
and `MAX_DOCUMENT_CHARS` of them in one document.

The repository holds the text itself; the document keeps what a reader (the HTML explorer shows 300
lines of a file) or a tool reads of it. Cutting keeps every hunk's header and says how many lines were
left out (`lines_omitted`), so a whole tree reviewed as added (14,732 lines of one CRD file) does not
turn into a copy of the repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aftershock.model.change import FileChange
from aftershock.report.redaction import redact_hunk_lines

MAX_FILE_LINES = 300
MAX_DOCUMENT_CHARS = 4_000_000


@dataclass
class HunkBudget:
    """What is left of the document's characters for hunk lines (spent file by file, in order)."""

    chars: int = MAX_DOCUMENT_CHARS


def hunk_documents(
    change: FileChange, secret_file: bool, secret_keys: frozenset[str], budget: HunkBudget
) -> tuple[list[dict[str, Any]], int]:
    """The file's hunks as JSON data, and how many of their lines were left out."""
    hunks, shown, omitted = [], 0, 0
    for hunk in change.hunks:
        lines = list(
            redact_hunk_lines(hunk.lines, secret_file=secret_file, secret_keys=secret_keys)
        )
        kept: list[str] = []
        for line in lines:
            if shown >= MAX_FILE_LINES or budget.chars < len(line):
                break
            kept.append(line)
            shown += 1
            budget.chars -= len(line)
        omitted += len(lines) - len(kept)
        hunks.append(
            {
                "old_start": hunk.old_start,
                "old_lines": hunk.old_lines,
                "new_start": hunk.new_start,
                "new_lines": hunk.new_lines,
                "header": hunk.header,
                "lines": kept,
            }
        )
    return hunks, omitted
