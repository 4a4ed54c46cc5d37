"""The findings part of the pull-request comment, from the `findings` document section.

Verdicts first, then the concerns the change introduced or widened, worst first; pre-existing
concerns and what the change narrowed or resolved are folded below them. The fragment stays within
`max_chars` (the whole comment must stay under GitHub's 65,536 characters): items that do not fit
are counted and left to the JSON output.
"""

from __future__ import annotations

from typing import Any

DEFAULT_MAX_CHARS = 30_000
_TAIL_RESERVE = 200


def findings_markdown(section: dict[str, Any], *, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    lines = ["### Verdicts", ""]
    for key in ("merge", "security"):
        verdict = section["verdicts"][key]
        lines += [f"**{_escape(verdict['title'])}**  ", _escape(verdict["rationale"]), ""]
    items = section["items"]
    actionable = [i for i in items if i["actionable"]]
    pre_existing = [i for i in items if i["delta"] == "pre_existing"]
    improved = [i for i in items if i["delta"] in ("narrowed", "resolved")]
    lines += ["### Concerns", ""]
    budget = max_chars - len("\n".join(lines)) - _TAIL_RESERVE
    if not actionable:
        lines += [f"{section['headline']}.", ""]
    else:
        shown, budget = _bullets(actionable, budget, bold=True)
        lines += shown + [""]
    for title, group in (
        (f"Pre-existing concerns ({len(pre_existing)}), not introduced by this change", pre_existing),
        (f"Narrowed or resolved by this change ({len(improved)})", improved),
    ):
        if group and budget > 200:
            shown, budget = _bullets(group, budget - 80, bold=False)
            lines += ["<details>", f"<summary>{title}</summary>", "", *shown, "", "</details>", ""]
    return "\n".join(lines).rstrip() + "\n"


def _bullets(items: list[dict[str, Any]], budget: int, *, bold: bool) -> tuple[list[str], int]:
    out: list[str] = []
    for index, item in enumerate(items):
        line = _bullet(item, bold)
        if len(line) + 1 > budget - 80:
            out.append(f"- … {len(items) - index} more in the JSON output")
            return out, 0
        out.append(line)
        budget -= len(line) + 1
    return out, budget


def _bullet(item: dict[str, Any], bold: bool) -> str:
    label = f"{item['severity'].capitalize()} · {item['category']} · {item['evidence']}:"
    head = f"**{label}**" if bold else label
    where = ""
    if item["location"]:
        loc = item["location"]
        where = f" · `{loc['file']}{':' + str(loc['line']) if loc['line'] else ''}`"
    delta = " (widened)" if item["delta"] == "widened" else ""
    return f"- {head} {_escape(item['message'])}{delta} — `{item['rule']}`{where}"


def _escape(text: str) -> str:
    """One line, with `<` and `>` kept as text rather than read as HTML."""
    return " ".join(str(text).split()).replace("<", "&lt;").replace(">", "&gt;")
