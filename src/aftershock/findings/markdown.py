"""The findings part of the pull-request comment, from the `findings` document section.

Verdicts first, then the concerns the change introduced or widened, worst first; pre-existing
concerns and what the change narrowed or resolved are folded below them. With the review state's
`lifecycle` section, the concerns are grouped as new and retained since the last review, followed by
those resolved since its head and those dismissed (reason, by, at). The fragment stays within
`max_chars` (the whole comment must stay under GitHub's 65,536 characters): items that do not fit
are counted and left to the JSON output.
"""

from __future__ import annotations

from typing import Any

DEFAULT_MAX_CHARS = 30_000
_TAIL_RESERVE = 200


def findings_markdown(
    section: dict[str, Any], *, max_chars: int = DEFAULT_MAX_CHARS, lifecycle: dict[str, Any] | None = None
) -> str:
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
    if lifecycle is not None:
        shown, budget = _lifecycle_groups(actionable, lifecycle, budget)
        lines += shown
    elif not actionable:
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
    return "\n".join(lines + _repository_says(section)).rstrip() + "\n"


def _repository_says(section: dict[str, Any]) -> list[str]:
    """Notices, then the findings the repository suppresses, folded, each with its reason."""
    lines = [f"> **Note:** {_escape(notice)}" for notice in section.get("notices", [])]
    lines += [""] if lines else []
    suppressed = section.get("suppressed", [])
    if suppressed:
        lines += ["<details>", f"<summary>Suppressed by the repository ({len(suppressed)})</summary>", ""]
        lines += [f"- {_escape(i['message'])} · `{i['rule']}` · {_escape(i['source'])}: {_escape(i['reason'])}" for i in suppressed]
        lines += ["", "</details>", ""]
    return lines


def _lifecycle_groups(actionable: list[dict[str, Any]], lifecycle: dict[str, Any], budget: int) -> tuple[list[str], int]:
    """New, retained, resolved since the last head, dismissed: each group that has members, under its heading."""
    known = {entry["fingerprint"]: entry for state in ("new", "retained") for entry in lifecycle[state]}
    retained = {entry["fingerprint"] for entry in lifecycle["retained"]}
    notes = {i["fingerprint"]: f" · `{i['fingerprint'][:12]}`{_lifecycle_note(known.get(i['fingerprint']))}" for i in actionable}
    since = (lifecycle["previous_head"] or "")[:7]
    groups = [
        ("New", [i for i in actionable if i["fingerprint"] not in retained], True),
        ("Retained", [i for i in actionable if i["fingerprint"] in retained], True),
        (f"Resolved since `{since}`", [e for e in lifecycle["resolved"] if e["actionable"]], False),
        ("Dismissed", lifecycle["dismissed"], False),
    ]
    lines = [f"{lifecycle['headline']}.", ""]
    for title, members, current in groups:
        if not members or budget <= 200:
            continue
        if current:
            shown, budget = _bullets(members, budget - 40, bold=True, notes=notes)
        else:
            shown, budget = _entry_bullets(members, budget - 40)
        lines += [f"#### {title} ({len(members)})", "", *shown, ""]
    return lines, budget


def _lifecycle_note(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return ""
    notes = []
    if entry["carried_forward"]:
        notes.append("carried forward, not re-checked")
    lapsed = entry["lapsed_dismissal"]
    if lapsed:
        notes.append(f"raised again: its evidence changed since {_escape(lapsed['by'] or 'someone')} dismissed it")
    return f" ({'; '.join(notes)})" if notes else ""


def _entry_bullets(entries: list[dict[str, Any]], budget: int) -> tuple[list[str], int]:
    """Resolved or dismissed findings from the lifecycle section (no longer raised at head)."""
    out: list[str] = []
    for index, entry in enumerate(entries):
        line = f"- {entry['severity'].capitalize()}: {_escape(entry['message'])} — `{entry['rule']}` `{entry['fingerprint'][:12]}`"
        dismissal = entry["dismissal"]
        if dismissal:
            line += f" · dismissed by {_escape(dismissal['by'] or 'someone')} on {dismissal['at'][:10]}: {_escape(dismissal['reason'])}"
        if len(line) + 1 > budget - 80:
            out.append(f"- … {len(entries) - index} more in the JSON output")
            return out, 0
        out.append(line)
        budget -= len(line) + 1
    return out, budget


def _bullets(
    items: list[dict[str, Any]], budget: int, *, bold: bool, notes: dict[str, str] | None = None
) -> tuple[list[str], int]:
    out: list[str] = []
    for index, item in enumerate(items):
        line = _bullet(item, bold) + (notes or {}).get(item["fingerprint"], "")
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
