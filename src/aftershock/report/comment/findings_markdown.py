"""The findings part of the pull-request comment, from the `findings` document section.

Verdicts first, then the concerns the change introduced or widened, worst first; pre-existing
concerns (the ten most severe, then counts per rule) and what the change narrowed or resolved
are folded below them. With the review state's
`lifecycle` section, the concerns are grouped as new and retained since the last review, followed by
those resolved since its head and those dismissed (reason, by, at); a suppressed finding that the last
review raised says so (suppressed, not resolved). The fragment stays within
`max_chars` (the whole comment must stay under GitHub's 65,536 characters): items that do not fit
are counted and left to the JSON output.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from aftershock.report.concern_groups import grouped
from aftershock.report.escape import markdown_code, markdown_text

DEFAULT_MAX_CHARS = 30_000
MAX_PRE_EXISTING = 10  # the most severe pre-existing concerns listed; the rest are counted per rule
_TAIL_RESERVE = 200


def findings_markdown(
    section: dict[str, Any],
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    lifecycle: dict[str, Any] | None = None,
) -> str:
    verdicts = verdicts_markdown(section)
    return (
        verdicts
        + "\n"
        + concerns_markdown(section, max_chars=max_chars - len(verdicts), lifecycle=lifecycle)
    )


def verdicts_markdown(section: dict[str, Any]) -> str:
    """Each verdict's title and its rationale paragraph."""
    lines = ["### Verdicts", ""]
    for key in ("merge", "security"):
        verdict = section["verdicts"][key]
        lines += [f"**{_escape(verdict['title'])}**  ", _escape(verdict["rationale"]), ""]
    return "\n".join(lines).rstrip() + "\n"


def concerns_markdown(
    section: dict[str, Any],
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    lifecycle: dict[str, Any] | None = None,
    max_pre_existing: int = MAX_PRE_EXISTING,
    touched: frozenset[str] | None = None,
) -> str:
    """The actionable concerns worst first, then the pre-existing ones folded (the most severe, then
    counts per rule; with `touched`, the identities of the objects the change touches, only theirs,
    the others counted in one line), then what the change narrowed or resolved, within `max_chars`."""
    items = section["items"]
    actionable = [i for i in items if i["actionable"]]
    pre_existing = [i for i in items if i["delta"] == "pre_existing"]
    improved = [i for i in items if i["delta"] in ("narrowed", "resolved")]
    lines = ["### Concerns", ""]
    budget = max_chars - len("\n".join(lines)) - _TAIL_RESERVE
    if lifecycle is not None:
        shown, budget = _lifecycle_groups(actionable, lifecycle, budget)
        lines += shown
    elif not actionable:
        lines += [f"{section['headline']}.", ""]
    else:
        shown, budget = _bullets(grouped(actionable), budget, bold=True)
        lines += shown + [""]
    if touched is not None:  # those on objects the change leaves alone are only counted
        apart = [i for i in pre_existing if i["subject"]["id"] not in touched]
        pre_existing = [i for i in pre_existing if i["subject"]["id"] in touched]
        if apart:
            lines += [
                f"{len(apart)} pre-existing concern(s) on objects this change does not touch: "
                "in the JSON output and the HTML report.",
                "",
            ]
    if pre_existing and budget > 200:
        title = f"Pre-existing concerns ({len(pre_existing)}) on objects this change touches"
        listed = grouped(pre_existing)
        shown, budget = _bullets(listed[:max_pre_existing], budget - 80, bold=False)
        shown += _rule_counts(_members(listed[max_pre_existing:]))
        lines += ["<details>", f"<summary>{title}</summary>", "", *shown, "", "</details>", ""]
    if improved and budget > 200:
        shown, budget = _bullets(improved, budget - 80, bold=False)
        lines += [
            "<details>",
            f"<summary>Narrowed or resolved by this change ({len(improved)})</summary>",
            "",
            *shown,
            "",
            "</details>",
            "",
        ]
    return "\n".join(lines + _repository_says(section, lifecycle)).rstrip() + "\n"


def _repository_says(section: dict[str, Any], lifecycle: dict[str, Any] | None) -> list[str]:
    """Notices, then the findings the repository suppresses, folded, each with its reason (and
    with the review state, whether the last review raised it)."""
    lines = [f"> **Note:** {_escape(notice)}" for notice in section.get("notices", [])]
    lines += [""] if lines else []
    suppressed = section.get("suppressed", [])
    if suppressed:
        lines += [
            "<details>",
            f"<summary>Suppressed by the repository ({len(suppressed)})</summary>",
            "",
        ]
        notes = suppression_notes(lifecycle, "`")
        lines += [
            f"- {_escape(i['message'])} · {markdown_code(i['rule'])} · {_escape(i['source'])}: {_escape(i['reason'])}"
            + notes.get(i["fingerprint"], "")
            for i in suppressed
        ]
        lines += ["", "</details>", ""]
    return lines


def suppression_notes(lifecycle: dict[str, Any] | None, quote: str) -> dict[str, str]:
    """By fingerprint, what the lifecycle adds to a suppressed finding's line: raised by the last
    review (a sha between `quote`s), or carried forward."""
    notes: dict[str, str] = {}
    for entry in (lifecycle or {}).get("suppressed", []):
        if entry["suppressed_since"]:
            since = f"{quote}{entry['suppressed_since'][:7]}{quote}"
            notes[entry["fingerprint"]] = f" (raised at {since}, suppressed since: not resolved)"
        elif entry["carried_forward"]:
            notes[entry["fingerprint"]] = " (carried forward, not re-checked)"
    return notes


def _members(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each entry once per finding it stands for (a grouped entry for several), for counting."""
    return [e for e in entries for _ in range(e.get("grouped", 1))]


def _rule_counts(rest: list[dict[str, Any]]) -> list[str]:
    """`- and 12 more: 7 schema-violation, 5 image-not-pinned` (the full list is in the JSON output)."""
    if not rest:
        return []
    counts: dict[str, int] = {}
    for item in rest:
        counts[item["rule"]] = counts.get(item["rule"], 0) + 1
    named = ", ".join(
        f"{n} `{rule}`" for rule, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return [f"- and {len(rest)} more (in the JSON output): {named}"]


def _lifecycle_groups(
    actionable: list[dict[str, Any]], lifecycle: dict[str, Any], budget: int
) -> tuple[list[str], int]:
    """New, retained, resolved since the last head, dismissed: each group that has members, under its heading."""
    known = {
        entry["fingerprint"]: entry for state in ("new", "retained") for entry in lifecycle[state]
    }
    retained = {entry["fingerprint"] for entry in lifecycle["retained"]}
    notes = {
        i[
            "fingerprint"
        ]: f" · `{i['fingerprint'][:12]}`{_lifecycle_note(known.get(i['fingerprint']))}"
        for i in actionable
    }
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
        notes.append(
            f"raised again: its evidence changed since {_escape(lapsed['by'] or 'someone')} dismissed it"
        )
    return f" ({'; '.join(notes)})" if notes else ""


def _entry_bullets(entries: list[dict[str, Any]], budget: int) -> tuple[list[str], int]:
    """Resolved or dismissed findings from the lifecycle section (no longer raised at head)."""
    return _fitting((_entry_line(entry) for entry in entries), len(entries), budget)


def _entry_line(entry: dict[str, Any]) -> str:
    line = f"- {entry['severity'].capitalize()}: {_escape(entry['message'])} — `{entry['rule']}` `{entry['fingerprint'][:12]}`"
    dismissal = entry["dismissal"]
    if dismissal:
        line += f" · dismissed by {_escape(dismissal['by'] or 'someone')} on {dismissal['at'][:10]}: {_escape(dismissal['reason'])}"
    return line


def _bullets(
    items: list[dict[str, Any]], budget: int, *, bold: bool, notes: dict[str, str] | None = None
) -> tuple[list[str], int]:
    lines = (_bullet(item, bold) + (notes or {}).get(item["fingerprint"], "") for item in items)
    return _fitting(lines, len(items), budget)


def _fitting(lines: Iterable[str], count: int, budget: int) -> tuple[list[str], int]:
    """The first of the `count` lines that fit in `budget` (80 kept for the line saying how many
    more the JSON holds), and what is left of it; a line after those is never made."""
    out: list[str] = []
    for index, line in enumerate(lines):
        if len(line) + 1 > budget - 80:
            out.append(f"- … {count - index} more in the JSON output")
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
        where = f" · {markdown_code(loc['file'] + (':' + str(loc['line']) if loc['line'] else ''))}"
    delta = " (widened)" if item["delta"] == "widened" else ""
    return f"- {head} {_escape(item['message'])}{delta} — `{item['rule']}`{where}"


def _escape(text: str) -> str:
    """One line, inert: no HTML, Markdown syntax, mention or control byte (aftershock.report.escape)."""
    return markdown_text(text)
