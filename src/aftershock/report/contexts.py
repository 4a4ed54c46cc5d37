"""The render context of each affected chart in the canonical document, and its one-line text form;
the scenarios each chart rendered in, with a sentence saying what they did."""

from __future__ import annotations

from typing import Any

from aftershock.model.contexts import PLACEHOLDER, ChartContext, HeadNeed, InferredValue
from aftershock.model.review import ChartOutcome, Review, ScenarioSummary
from aftershock.report.text import without_dependencies


def context_document(context: ChartContext) -> dict[str, Any]:
    return {
        "chart": context.chart,
        "kind": context.kind.value if context.kind else None,
        "name": context.name,
        "reason": context.reason,
        "side_tried": context.side_tried,
        "release_name": context.release_name,
        "namespace": context.namespace,
        "lookups": list(context.lookups),
        "inferred": list(context.inferred),
        "inferred_values": [_value(v) for v in context.inferred_values],
        "head_need": _head_need(context.head_need) if context.head_need else None,
        "attempts": [{"name": a.name, "error": a.error} for a in context.attempts],
    }


def _value(value: InferredValue) -> dict[str, Any]:
    return {
        "key": value.key,
        "file": value.file,
        "value": None if value.file else PLACEHOLDER,
        "evidence": "inferred",
    }


def _head_need(need: HeadNeed) -> dict[str, Any]:
    return {
        "values": [_value(v) for v in need.values],
        "error": need.error,
        "template": need.template,
    }


def context_shown(entry: dict[str, Any]) -> bool:
    """Whether a context says more than "the chart's own defaults": chosen over others, or guessed."""
    return bool(
        entry["kind"] != "defaults"
        or entry["attempts"]
        or entry.get("inferred")
        or entry.get("inferred_values")
        or entry.get("head_need")
    )


def context_line(entry: dict[str, Any]) -> str:
    """`chart: rendered in <context> (<why>)`, or that no context rendered it, for Markdown and terminal."""
    if entry["kind"] is None:
        line = f"{entry['chart']}: no context renders it at {entry['side_tried']} ({len(entry['attempts'])} tried)"
        return line + "".join(
            f"; rendered with inferred {_inferred(v)}" for v in entry.get("inferred_values", ())
        )
    identity = ""
    if (entry["release_name"] or entry["namespace"]) and entry[
        "kind"
    ] != "tests":  # the tests' reason says it
        identity = (
            f"; release {entry['release_name'] or 'release'} in {entry['namespace'] or 'default'}"
        )
    tried = f"; {len(entry['attempts'])} context(s) before it failed" if entry["attempts"] else ""
    found = f"; lookup found {', '.join(entry['lookups'])}" if entry["lookups"] else ""
    inferred = entry.get("inferred") or ()
    guessed = f"; inferred: {'; '.join(inferred)}" if inferred else ""
    guessed += "".join(f"; inferred {_inferred(v)}" for v in entry.get("inferred_values", ()))
    need = entry.get("head_need")
    if need:
        guessed += "; at head, which fails without them (the base renders without), inferred "
        guessed += ", ".join(_inferred(v) for v in need["values"])
    return (
        f"{entry['chart']}: rendered in {entry['name']} "
        f"({entry['reason']}{identity}{tried}{found}{guessed})"
    )


def _inferred(value: dict[str, Any]) -> str:
    if value["file"] is None:
        return f"{value['key']} as the placeholder {value['value']!r} (no values file sets it)"
    return f"{value['key']} from {value['file']}"


def scenarios_document(review: Review, summary: ScenarioSummary) -> dict[str, Any]:
    """What each scenario of a chart (its own render, not a release's) did, and a sentence of it."""
    own = [r for r in review.chart_reviews if r.chart == summary.chart and r.release is None]
    changed = [r.scenario for r in own if r.outcome is ChartOutcome.CHANGED]
    failed = [r.scenario for r in own if r.outcome is ChartOutcome.NOT_REVIEWED]
    invalid = [r.scenario for r in own if r.outcome is ChartOutcome.SCENARIO_INVALID]
    fixed = [r.scenario for r in own if r.outcome is ChartOutcome.FIXED]
    own = [r for r in own if r.outcome not in (ChartOutcome.SCENARIO_INVALID, ChartOutcome.FIXED)]
    if failed:
        text = f"not reviewed in scenario(s) {', '.join(failed)}"
    elif not own and fixed:
        text = "rendered at head only"
    elif not own:
        text = "rendered in no scenario"
    elif changed:
        text = f"changes in {len(changed)} of {len(own)} scenario(s): {', '.join(changed)}"
    elif any(r.partial for r in own):  # never "identically" of the templates left out
        text = f"the templates that render render identically in all {len(own)} scenario(s)"
    else:
        text = f"renders identically in all {len(own)} scenario(s)"
    by_template = [r for r in own if r.templates_not_rendered]
    if by_template:
        left_out = sorted({t.template for r in by_template for t in r.templates_not_rendered})
        text += (
            f"; rendered by template in {', '.join(r.scenario for r in by_template)}, "
            f"not rendered: {', '.join(left_out)}"
        )
    without = sorted({d.dependency for r in own for d in r.dependencies_not_rendered})
    if without:
        text += f"; {without_dependencies(', '.join(without), len(without))}"
    new_keys = sorted({k for r in own for k in r.keys_left_out_at_base})
    if new_keys:
        text += (
            f"; at base without {', '.join(new_keys)} (new at head: the base's values schema "
            f"rejects them) in {', '.join(r.scenario for r in own if r.keys_left_out_at_base)}"
        )
    if fixed:
        text += f"; fails at base and renders at head (the change fixes it) in {', '.join(fixed)}"
    if invalid:
        text += f"; {len(invalid)} scenario(s) the chart rejects at base and head alike: {', '.join(invalid)}"
    return {
        "chart": summary.chart,
        "ran": list(summary.ran),
        "cut": list(summary.cut),
        "changed_in": changed,
        "not_reviewed_in": failed,
        "fixed_in": fixed,
        "invalid": invalid,
        "summary": text,
    }
