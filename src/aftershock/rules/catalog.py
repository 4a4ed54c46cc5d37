"""Rule documentation for people: the list behind `aftershock rules` and the page behind `aftershock explain RULE`."""

from __future__ import annotations

import difflib
import json
import textwrap
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from aftershock.model.errors import ConfigError
from aftershock.model.validated import plain
from aftershock.rules.model import Rule
from aftershock.rules.registry import RULES

WIDTH = 100


def rule_catalog(rules: Sequence[Rule] = RULES) -> list[dict[str, Any]]:
    """Every rule as plain data, in registry order (for `aftershock rules --format json`)."""
    return [
        {
            "id": rule.id,
            "title": rule.title,
            "category": rule.category.value,
            "severity": rule.severity.value,
            "confidence": rule.confidence.value,
            "evidence": rule.evidence.value,
            "needs_sources": rule.needs_sources,
            "options": sorted(f.name for f in fields(rule.options_model))
            if rule.options_model
            else [],
            "documentation": dict(rule.doc.sections()),
            "references": list(rule.references),
        }
        for rule in rules
    ]


def list_rules(rules: Sequence[Rule] = RULES) -> str:
    """One line per rule: id, default severity, category and title."""
    width = max(len(rule.id) for rule in rules)
    lines = [f"{'RULE'.ljust(width)}  {'SEVERITY':8}  {'CATEGORY':13}  TITLE"]
    for rule in rules:
        lines.append(
            f"{rule.id.ljust(width)}  {rule.severity.value:8}  {rule.category.value:13}  {rule.title}"
        )
    lines.append("")
    lines.append(f"{len(rules)} rules. `aftershock explain RULE` prints a rule's documentation.")
    return "\n".join(lines) + "\n"


def explain(rule_id: str, rules: Sequence[Rule] = RULES) -> str:
    """A rule's documentation in its fixed sections; ConfigError for an unknown id."""
    by_id = {rule.id: rule for rule in rules}
    rule = by_id.get(rule_id)
    if rule is None:
        close = difflib.get_close_matches(rule_id, list(by_id), n=1)
        raise ConfigError(
            f"unknown rule {rule_id!r}",
            hint=f"did you mean {close[0]}?" if close else "run `aftershock rules`",
        )
    lines = [
        f"{rule.id}: {rule.title}",
        f"Category {rule.category.value} · default severity {rule.severity.value} · confidence {rule.confidence.value}"
        f" · evidence {rule.evidence.value}{' · reads repository sources' if rule.needs_sources else ''}",
        "",
    ]
    for title, text in rule.doc.sections():
        lines.append(title)
        lines += _paragraph(text)
        lines.append("")
    if rule.options_model is not None:
        lines.append("Options")
        for option in fields(rule.options_model):
            default = json.dumps(plain(option.default))  # as YAML's flow style writes it
            lines.append(f"    {option.name} (default: {default})")
        lines.append("")
    if rule.references:
        lines.append("References")
        lines += [f"    {ref}" for ref in rule.references]
        lines.append("")
    lines.append(
        f"Configure it in .aftershock.yaml under `rules: {{{rule.id}: {{level, enabled, paths, exclude_paths"
        f"{', options' if rule.options_model else ''}}}}}`."
    )
    return "\n".join(lines) + "\n"


def _paragraph(text: str) -> list[str]:
    """Prose wrapped and indented; code blocks (lines indented by four spaces) kept as they are."""
    out: list[str] = []
    for block in text.split("\n\n"):
        if block.startswith("    "):
            out += ["    " + line for line in block.splitlines()]
        else:
            out += textwrap.wrap(block, WIDTH - 4, initial_indent="    ", subsequent_indent="    ")
    return out
