"""The parts a review could not review, grouped as the reports say them: one line for a chart's
missing dependencies (one command fetches them all) or for its scenarios that fail alike, the
context gaps apart, each reason whole enough to keep the advice it ends with."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from aftershock.model.review import is_timeout
from aftershock.report.overview import first_scenarios, one_line

MAX_GAP_CHARS = 640  # a part not reviewed: a Helm error (cut at 300 where kept) and what to do


@dataclass(frozen=True)
class NotReviewedGroup:
    """Parts not reviewed that one line says: a part; a chart's dependencies missing for one reason
    (the one command that fetches them all); or a chart's scenarios that fail alike."""

    part: str  # `chart c`, `dependencies d 1.0, e 2.0 of chart c`, `chart c in 3 scenarios (…)`
    side: str | None
    reason: str


def not_reviewed_groups(
    doc: dict[str, Any], *, context: bool = False
) -> tuple[NotReviewedGroup, ...]:
    """The parts not reviewed (with `context`, the context gaps instead: listed apart), grouped
    where one reason at one side covers several: a chart's dependencies, or a chart's scenarios
    (the default among them)."""
    groups: dict[tuple[str, str, str | None, str], list[str]] = {}
    for n in doc["not_reviewed"]:
        if bool(n.get("context")) is not context:
            continue
        dependency = _DEPENDENCY_PART.fullmatch(n["part"])
        scenario = _SCENARIO_PART.fullmatch(n["part"]) if not dependency else None
        if dependency:
            kind, where, name = "dependency", dependency.group(2), dependency.group(1)
        elif scenario:
            kind, where, name = "scenario", scenario.group(1), scenario.group(2)
        else:
            kind, where, name = "scenario", n["part"], "default"
        groups.setdefault((kind, where, n["side"], n["reason"]), []).append(name)
    return tuple(
        NotReviewedGroup(_part_text(kind, where, names), side, reason)
        for (kind, where, side, reason), names in groups.items()
    )


def labelled_gaps(doc: dict[str, Any]) -> Iterator[tuple[str, NotReviewedGroup]]:
    """Each group of parts not reviewed with its label, the context gaps last ("context not …"); a
    part over its time says so in its label (the machine's load, more often than the change)."""
    for context in (False, True):
        label = "context not reviewed" if context else "not reviewed"
        for group in not_reviewed_groups(doc, context=context):
            yield (f"{label} (timed out)" if is_timeout(group.reason) else label), group


def not_reviewed_lines(doc: dict[str, Any], *, context: bool = False) -> tuple[str, ...]:
    """One line per group of `not_reviewed_groups`, never cutting the advice a reason ends with."""
    return tuple(
        one_line(g.part + (f" at {g.side}" if g.side else "") + f": {g.reason}", MAX_GAP_CHARS)
        for g in not_reviewed_groups(doc, context=context)
    )


_DEPENDENCY_PART = re.compile(r"dependency (.+) of (chart .+)")
_SCENARIO_PART = re.compile(r"(chart .+?) in scenario (.+)")


def _part_text(kind: str, where: str, names: list[str]) -> str:
    """The part of a group: `where` alone (its default scenario), its dependencies, or its scenarios."""
    if kind == "dependency":
        label = "dependency" if len(names) == 1 else "dependencies"
        return f"{label} {', '.join(names)} of {where}"
    scenarios = names
    if scenarios == ["default"]:
        return where
    if len(scenarios) == 1:
        return f"{where} in scenario {scenarios[0]}"
    return f"{where} in {len(scenarios)} scenarios ({first_scenarios(scenarios)})"
