"""The tests part of the pull-request comment, from the `tests` document section.

Short on purpose: one line of counts, the suites that could not run, then the tests newly failing with their failure (marked when
the guard map found them stale), then the changed fields no assertion pins. Each list stops after
`max_items`; the rest is in the JSON output.
"""

from __future__ import annotations

from typing import Any

from aftershock.report.escape import markdown_text, visible_name

DEFAULT_MAX_ITEMS = 15


def test_evidence_markdown(section: dict[str, Any], *, max_items: int = DEFAULT_MAX_ITEMS) -> str:
    lines = ["### Tests", "", _counts(section), ""]
    errors = _run_errors(section)
    if errors:
        lines += ["**Could not run**", ""] + _capped(errors, max_items) + [""]
    failing = [
        (c, t) for c in section["charts"] for t in c["tests"] if t["change"] == "newly_failing"
    ]
    if failing:
        lines += ["**Newly failing**", ""]
        lines += _capped([_failing(c, t) for c, t in failing], max_items)
        lines.append("")
    unguarded = [
        (c, p) for c in section["charts"] for p in c["problems"] if p["kind"] == "unguarded"
    ]
    if unguarded:
        lines += ["**Changed fields no test asserts**", ""]
        lines += _capped(_unguarded_lines(unguarded), max_items)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


test_evidence_markdown.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def tests_summary_line(section: dict[str, Any]) -> str:
    """The one line of counts (and of charts with 0 suites), for the other text formats."""
    return _counts(section).replace("`", "")


def _counts(section: dict[str, Any]) -> str:
    summary = section["summary"]
    tests, problems = summary["tests"], summary["problems"]
    if not section["charts"]:
        text = "No affected chart has helm-unittest suites: 0 suites ran."
    else:
        parts = [
            f"{tests[key]} {label}"
            for key, label in (
                ("newly_failing", "newly failing"),
                ("newly_passing", "newly passing"),
                ("added", "added"),
                ("removed", "removed"),
                ("still_failing", "still failing"),
            )
            if tests[key]
        ]
        # with base outcomes left out, "none changed" would claim what was not compared
        unchanged = (
            ", none newly failing." if tests.get("not_compared") else ", none changed outcome."
        )
        text = f"{summary['head_tests']} tests in {summary['charts']} chart(s) at head" + (
            f": {', '.join(parts)}." if parts else unchanged
        )
        text += (
            f" {summary['guarded_fields']} of {summary['changed_fields']} changed field(s) asserted by a test"
            f" ({problems['unguarded']} unguarded); {problems['stale']} stale and {problems['vacuous']} vacuous assertion(s)."
        )
        if summary["suite_errors"]:
            text += f" {summary['suite_errors']} suite(s) could not run."
        if tests.get("not_compared"):
            text += (
                f" {tests['not_compared']} passing at head were not run at base (no finding needs them):"
                " newly passing tests are not looked for (`--base-tests all`)."
            )
    if section["untested_charts"]:
        searched = {s["chart"]: s["patterns"] for s in section.get("suite_files", [])}
        names = ", ".join(
            f"`{_code(c)}`" + _searched(searched.get(c)) for c in section["untested_charts"][:5]
        )
        more = (
            f" and {len(section['untested_charts']) - 5} more"
            if len(section["untested_charts"]) > 5
            else ""
        )
        text += f" 0 suites (not tested): {names}{more}."
    return text


def _searched(patterns: list[str] | None) -> str:
    return f" (looked for {', '.join(f'`{_code(p)}`' for p in patterns)})" if patterns else ""


def _run_errors(section: dict[str, Any]) -> list[str]:
    """Charts whose suites could not be loaded, and single suites that could not run."""
    out = []
    for chart in section["charts"]:
        for side in ("base", "head"):
            run = chart[side]
            if run["status"] == "errored":
                out.append(
                    f"- `{_code(chart['chart'])}` at {side}: `{_code(run['error'] or 'error')}`"
                )
            else:
                out += [
                    f"- `{_code(chart['chart'])}/{_code(e['suite_file'])}` at {side}: `{_code(e['error'])}`"
                    for e in run["suite_errors"]
                ]
    return out


def _failing(chart: dict[str, Any], test: dict[str, Any]) -> str:
    stale = any(
        p["kind"] == "stale"
        and p["assertion"]
        and (p["assertion"]["suite_file"], p["assertion"]["test"])
        == (test["suite_file"], test["test"])
        for p in chart["problems"]
    )
    failure = test["head"]["failure"] if test["head"] else ""
    mark = " (stale: still expects the base render)" if stale else ""
    return f"- `{_code(chart['chart'])}/{_code(test['suite_file'])}` · {_text(test['test'])}: `{_code(failure)}`{mark}"


MAX_OBJECTS_NAMED = 3


def _unguarded_lines(unguarded: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[str]:
    """One line per field and detail: a field changed alike on many objects is listed once, with the count
    (a whole object new at head, with no field, is a line of its own)."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for chart, problem in unguarded:
        subject = problem["object"] or chart["chart"]
        key = (problem["field"] or "", problem["detail"], "" if problem["field"] else subject)
        groups.setdefault(key, []).append(subject)
    lines = []
    for (field, detail, _), objects in groups.items():
        if len(objects) == 1:
            shown = f" `{_code(field)}`" if field else ""
            lines.append(f"- `{_code(objects[0])}`{shown}: {_text(detail)}")
            continue
        named = ", ".join(f"`{_code(o)}`" for o in objects[:MAX_OBJECTS_NAMED])
        more = (
            f" and {len(objects) - MAX_OBJECTS_NAMED} more"
            if len(objects) > MAX_OBJECTS_NAMED
            else ""
        )
        lines.append(
            f"- `{_code(field)}` on {len(objects)} objects: {_text(detail)} ({named}{more})"
        )
    return lines


def _capped(items: list[str], max_items: int) -> list[str]:
    if len(items) <= max_items:
        return items
    return items[:max_items] + [f"- … {len(items) - max_items} more in the JSON output"]


def _code(text: str) -> str:
    """The inside of a code span: no backtick to close it, no control byte, line breaks shown as `\\n`."""
    return visible_name(text).replace("`", "'")


def _text(text: str) -> str:
    return markdown_text(text)
