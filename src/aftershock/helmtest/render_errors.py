"""Helm's render error text as helm-unittest sees it, and the template it blames.

helm-unittest links Helm v3.20; aftershock renders with Helm v4, which reformats a template
execution error (other than `fail`/`required`) into indented lines:

    chart/templates/x.yaml:7:8
      executing "chart/templates/x.yaml" at <include "y" .>:
        error calling include:
    template: no template "y" associated with template "gotpl"

`as_helm3_text` turns that back into Helm v3's one line (`template: chart/templates/x.yaml:7:8:
executing ... : error calling include: template: no template ...`), which is what suites'
`failedTemplate.errorMessage` values were written against. `blamed_template` is helm-unittest's
parseRenderError: the template named in the error and the message cut out of it.
"""

from __future__ import annotations

import re

_LOCATION = re.compile(r"[^\s][^\n]*:[0-9]+(?::[0-9]+)?")
# helm-unittest's `(?msU)^(?:.+: |.+ \()(?:(.+):\d+:\d+).+(?:.+>)*: (.+)$`, with (?U)'s swapped
# greediness written out, since Python has no ungreedy flag.
_RENDER_ERROR = re.compile(
    r"^(?:.+?: |.+? \()(?:(.+?):\d+?:\d+?).+?(?:.+?>)*?: (.+?)$", re.MULTILINE | re.DOTALL
)
VALUES_STAGE_PREFIXES = ("values don't meet the specifications",)


def _blocks(lines: list[str]) -> list[str] | None:
    """Helm v4's traceable-error blocks rebuilt as Helm v3's `template: ...` pieces."""
    pieces: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line.startswith(" "):
            return None
        if (
            _LOCATION.fullmatch(line)
            and following.startswith("  ")
            and not following.startswith("    ")
        ):
            after = lines[index + 2] if index + 2 < len(lines) else ""
            if after.startswith("    "):
                pieces.append(f"template: {line}: {following.strip()} {after.strip()}")
                index += 3
            else:
                pieces.append(f"template: {line}: {following.strip()}")
                index += 2
        else:
            pieces.append(line)
            index += 1
    return pieces


def as_helm3_text(error: str) -> str:
    """Helm v3's text for a Helm v4 error; other errors are returned unchanged."""
    lines = error.split("\n")
    if len(lines) < 2 or not _LOCATION.fullmatch(lines[0]) or not lines[1].startswith("  "):
        return error
    pieces = _blocks(lines)
    return " ".join(pieces) if pieces else error


def is_values_stage(error: str) -> bool:
    """Whether Helm failed before running templates (values schema), so no template is blamed."""
    return error.startswith(VALUES_STAGE_PREFIXES)


def blamed_template(error: str) -> tuple[str, str]:
    """parseRenderError: (template path, message); ("", "") when the text names no template.

    For a multi-line error the message is everything after the first line, as upstream cuts it.
    """
    match = _RENDER_ERROR.search(error)
    if match is None:
        return "", ""
    _, newline, rest = error.partition("\n")
    return match.group(1), rest if newline else match.group(2)
