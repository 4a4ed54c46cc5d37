"""Values scenarios for a chart: its defaults, the values files beside it, and boolean toggles flipped.

A change can be invisible with defaults and appear only when a toggle is on, so each affected chart is
rendered in a bounded set of named scenarios at base and head.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aftershock.diff.values_keys import flatten
from aftershock.helmtest.suite_values import SuiteValueSet
from aftershock.model.contexts import WHOLE_CHART, TemplateSelection
from aftershock.model.review import UPGRADE_PREFIX
from aftershock.releases.values import merge_maps, value_at
from aftershock.render.range_shapes import opened_value, range_bodies, range_openings

# A `.Values.x.y` read inside an `if`/`with`/`and`/`or`/`not` action: a condition the value toggles.
_CONDITION = re.compile(r"\{\{-?\s*(?:if|else if|with)\b([^}]*)\}\}")
# `.Values.a.b`, and `(.Values.a).b` (the nil-safe form) read as `a.b`.
_VALUES_PATH = re.compile(r"\.Values((?:\.[A-Za-z_]\w*)+)\)?((?:\.[A-Za-z_]\w*)*)")
# `dig "b" "c" DEFAULT .Values.a`: the nested value `a.b.c` (sprig's dig, its keys literal and its
# default a single word: nil, "", 0, false, a variable)
_DIG = re.compile(
    r'\bdig\s+(?P<keys>(?:"[A-Za-z_][\w-]*"\s+)+)(?:[\w$."]+|""|\(\s*(?:dict|list)\s*\))\s+'
    r"\(?\$?\.Values(?P<map>(?:\.[A-Za-z_]\w*)*)\)?"
)
_KEY = re.compile(r'"([A-Za-z_][\w-]*)"')
# `{{- $values := .Values }}`: a variable naming the values, read as `$values.alerts.enabled`
_VALUES_ALIAS = re.compile(r"\{\{-?\s*\$(\w+)\s*:?=\s*\$?\.Values\s*-?\}\}")

DEFAULT = "default"


@dataclass(frozen=True)
class Scenario:
    """A named set of values: chart-relative values files merged in order, then `overrides`."""

    name: str
    values_files: tuple[str, ...] = ()
    overrides: Mapping[str, Any] = field(default_factory=dict, hash=False)
    templates: TemplateSelection = WHOLE_CHART  # a test's: its suite's templates only
    # Read the values files from the base ref on both sides: the values an existing install passes,
    # rendered against head (an upgrade), even where the change edited the file.
    values_from_base: bool = False
    # the release a test sets (helm-unittest's `release:`), over the context's; None keeps it
    release_name: str | None = None
    namespace: str | None = None


@dataclass(frozen=True)
class ScenarioSet:
    ran: tuple[Scenario, ...]
    cut: tuple[str, ...]  # names of scenarios over the cap, not rendered


def values_file_scenarios(chart_files: Iterable[str]) -> list[Scenario]:
    """`values-*.yaml` beside Chart.yaml and chart-testing's `ci/*.yaml`, by file name."""
    found = []
    for rel in sorted(chart_files):
        name = posixpath.basename(rel)
        beside = (
            "/" not in rel
            and name.startswith("values")
            and name != "values.yaml"
            and name.endswith((".yaml", ".yml"))
        )
        ci = rel.startswith("ci/") and rel.count("/") == 1 and name.endswith((".yaml", ".yml"))
        if beside or ci:
            found.append(Scenario(name=f"file:{rel}", values_files=(rel,)))
    return found


def conditions(text: str) -> list[str]:
    """The template's conditions, a variable set to `.Values` read as `.Values` itself."""
    for name in set(_VALUES_ALIAS.findall(text)):
        text = re.sub(rf"\${name}(?=\.[A-Za-z_])", ".Values", text)
    return _CONDITION.findall(text)


def values_read(text: str) -> list[str]:
    """The values paths a text reads (`.Values.a.b`, `(.Values.a).b`: `a.b`; `dig "b" "c" nil
    .Values.a`: `a.b.c`), in order."""
    text = _DIG.sub(
        lambda m: f".Values{m.group('map')}.{'.'.join(_KEY.findall(m.group('keys')))}", text
    )
    return [(inner + outer)[1:] for inner, outer in _VALUES_PATH.findall(text)]


def toggle_paths(template_texts: Iterable[str]) -> list[str]:
    """Values paths read in template conditions, in first-seen order."""
    seen: dict[str, None] = {}
    for text in template_texts:
        for condition in conditions(text):
            for path in values_read(condition):
                seen.setdefault(path, None)
    return list(seen)


def toggle_scenarios(paths: Iterable[str], defaults: Mapping[str, Any]) -> list[Scenario]:
    """One scenario per boolean default read in a condition, with that boolean flipped."""
    scenarios = []
    for path in paths:
        value = value_at(defaults, path.split("."))
        if isinstance(value, bool):
            scenarios.append(
                Scenario(
                    name=f"toggle:{path}={'false' if value else 'true'}",
                    overrides=_nest(path, not value),
                )
            )
    return scenarios


# `eq .Values.mode "strict"`, `ge (int .Values.replicas) 2`, and the literal first: the value a
# comparison in a condition wants (Sprig's casts and `default` around the path are read through)
_OPERAND = (
    r"\(?(?:(?:int|int64|float64|toString|default\s+\S+)\s+)?\.Values((?:\.[A-Za-z_]\w*)+)\)?"
)
_LITERAL = r'("[^"]*"|-?\d+(?:\.\d+)?)'
_COMPARED = re.compile(rf"\b(eq|ge|le|gt|lt)\s+{_OPERAND}\s+{_LITERAL}")
_COMPARED_FIRST = re.compile(rf"\b(eq|ge|le|gt|lt)\s+{_LITERAL}\s+{_OPERAND}")
_FLIPPED = {"gt": "lt", "lt": "gt", "ge": "le", "le": "ge", "eq": "eq"}
_ABSENT = object()


def guard_scenarios(template_texts: Iterable[str], defaults: Mapping[str, Any]) -> list[Scenario]:
    """One scenario per condition of a template that the defaults leave closed and a value of
    another type than a boolean opens (booleans are `toggle_scenarios`'): a comparison with a
    literal (`eq .Values.mode "strict"`: `mode` = "strict"; `gt .Values.n 1`: 2), or an empty
    string, zero, null, map or list read by `if`/`with` (a non-empty one of the same shape). Only
    keys the chart's values.yaml holds: one it does not document is no option a user is offered."""
    sets: dict[str, dict[str, Any]] = {}
    texts = list(template_texts)
    for text in texts:
        for condition in conditions(text):
            opening = _opening(condition, defaults)
            together = re.search(r"\band\b", condition) is not None and len(opening) > 1
            for group in [opening] if together else [{p: v} for p, v in opening.items()]:
                name = ",".join(f"{p}={_shown(v)}" for p, v in sorted(group.items()))
                if not all(isinstance(v, bool) for v in group.values()):
                    sets.setdefault(name, group)
    bodies = [body for text in texts for body in range_bodies(text)]
    for path, value in range_openings(bodies, defaults, value_at):
        sets.setdefault(f"{path}={_shown(value)}", {path: value})
    return [Scenario(name=f"guard:{name}", overrides=nested(group)) for name, group in sets.items()]


GUARDS_OPENED = "guards:edited"


def opened_together(scenarios: Iterable[Scenario]) -> list[Scenario]:
    """One scenario opening every guard of `scenarios` at once (a key two of them set differently
    keeps the first's value): within a cap, one render runs the lines of many guards. None (an
    empty list) for fewer than two; a chart that rejects the mix makes it invalid, and the refill
    round renders the next scenarios in its place."""
    taken: dict[str, Any] = {}
    merged: dict[str, Any] = {}
    count = 0
    for scenario in scenarios:
        leaves = dict(flatten(dict(scenario.overrides)))
        if any(_overlaps(path, taken) for path in leaves):
            continue
        taken |= leaves
        merged = merge_maps(merged, dict(scenario.overrides))
        count += 1
    return [Scenario(name=GUARDS_OPENED, overrides=merged)] if count > 1 else []


def _overlaps(path: str, taken: Mapping[str, Any]) -> bool:
    return any(
        path == other or path.startswith(f"{other}.") or other.startswith(f"{path}.")
        for other in taken
    )


def _opening(condition: str, defaults: Mapping[str, Any]) -> dict[str, Any]:
    """Path -> the value that opens its part of `condition`, for each path the defaults leave closed;
    a boolean that is false opens as true (with other values, in an `and`)."""
    found: dict[str, Any] = {}
    for operator, path, literal in _comparisons(condition):
        found.setdefault(path, _satisfying(operator, literal))
    for path in values_read(condition):
        default = value_at(defaults, path.split("."))
        found.setdefault(path, True if default is False else _opened(default))
    return {
        p: v
        for p, v in found.items()
        if v is not None
        and value_at(defaults, p.split("."), _ABSENT) is not _ABSENT  # a key the chart documents
        and v != value_at(defaults, p.split("."))
    }


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def nested(group: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for path, value in group.items():
        result = merge_maps(result, _nest(path, value))
    return result


def _comparisons(condition: str) -> Iterable[tuple[str, str, str]]:
    for operator, path, literal in _COMPARED.findall(condition):
        yield operator, path[1:], literal
    for operator, literal, path in _COMPARED_FIRST.findall(condition):
        yield _FLIPPED[operator], path[1:], literal


def _satisfying(operator: str, literal: str) -> Any:
    """A value `operator value literal` holds for (the literal read as Go does: quoted text, else a number)."""
    if literal.startswith('"'):
        return literal[1:-1] if operator in ("eq", "ge", "le") else None
    number: float = float(literal) if "." in literal else int(literal)
    return {"eq": number, "ge": number, "le": number, "gt": number + 1, "lt": number - 1}[operator]


def _opened(default: Any) -> Any:
    """A value that opens `if`/`with` where the default is empty (None for a boolean or one that
    already opens it)."""
    if isinstance(default, bool) or default:
        return None  # a boolean is a toggle's; a value that is set already opens the guard
    if default is None:
        return opened_value("")
    return 1 if isinstance(default, float) else opened_value(default)


def configured_scenarios(chart_path: str, declared: Iterable[Any]) -> list[Scenario]:
    """Scenarios `.aftershock.yaml` declares for this chart (`charts` globs match its folder)."""
    return [
        Scenario(
            name=f"config:{d.name}", values_files=tuple(d.values_files), overrides=dict(d.values)
        )
        for d in declared
        if any(fnmatch.fnmatchcase(chart_path, pattern) for pattern in d.charts)
    ]


def test_scenarios(value_sets: Iterable[SuiteValueSet]) -> list[Scenario]:
    """Scenarios from the value sets of the chart's helm-unittest tests (helmtest/suite_values.py):
    each renders only its suite's templates, as the release the test sets, as helm-unittest does."""
    return [
        Scenario(
            name=found.name,
            overrides=found.values,
            templates=found.templates,
            release_name=found.release_name,
            namespace=found.namespace,
        )
        for found in value_sets
    ]


def choose(candidates: Iterable[Scenario], cap: int) -> ScenarioSet:
    """The default scenario first, then candidates without duplicates (by name, or by the values they
    give: a test that sets the same toggle adds nothing), up to `cap` in all."""
    unique: dict[str, Scenario] = {DEFAULT: Scenario(DEFAULT)}
    inputs = {_inputs_key(Scenario(DEFAULT))}
    for scenario in candidates:
        key = _inputs_key(scenario)
        if scenario.name not in unique and key not in inputs:
            unique[scenario.name] = scenario
            inputs.add(key)
    ordered = list(unique.values())
    return ScenarioSet(ran=tuple(ordered[:cap]), cut=tuple(s.name for s in ordered[cap:]))


def _inputs_key(scenario: Scenario) -> str:
    return json.dumps(
        [list(scenario.values_files), scenario.overrides, scenario.values_from_base],
        sort_keys=True,
        default=str,
    )


def upgrade_scenarios(changed_files: Iterable[str]) -> list[Scenario]:
    """For each values-file scenario whose file the change edits, the same file as it was at base: an
    install upgraded with the values it already passes (`upgrade:ci/prod.yaml`)."""
    return [
        Scenario(
            name=UPGRADE_PREFIX + s.values_files[0],
            values_files=s.values_files,
            values_from_base=True,
        )
        for s in values_file_scenarios(changed_files)
    ]


def defaults_upgrade_scenarios(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[Scenario]:
    """When the change removes or renames a key of the chart's own `values.yaml`, that file as it was
    at base passed to the chart at each ref (`upgrade:values.yaml`): a user's copy of the old
    defaults, upgraded; the old key is then ignored, or rejected by the head's schema."""
    removed = {path for path, _ in flatten(before)} - {path for path, _ in flatten(after)}
    if not removed:
        return []
    return [
        Scenario(
            name=UPGRADE_PREFIX + "values.yaml",
            values_files=("values.yaml",),
            values_from_base=True,
        )
    ]


MAX_TEST_UPGRADES = 3  # base test value sets rendered against head, per chart


def test_upgrade_scenarios(
    base_sets: Iterable[SuiteValueSet],
    head_sets: Iterable[SuiteValueSet],
    bound: int = MAX_TEST_UPGRADES,
) -> list[Scenario]:
    """The value sets base's helm-unittest tests give that no head test gives, rendered at base and head
    (`upgrade:test:deployment_test.yaml/<it>`): values a supported install passed before the change edited
    its test. At most `bound`, each distinct set once; head's own sets are its `test:` scenarios."""
    known = {_values_key(found.values) for found in head_sets}
    found = []
    for given in base_sets:
        key = _values_key(given.values)
        if key in known:
            continue
        known.add(key)
        found.append(
            Scenario(
                name=UPGRADE_PREFIX + given.name,
                overrides=given.values,
                templates=given.templates,
                values_from_base=True,
                release_name=given.release_name,
                namespace=given.namespace,
            )
        )
    return found[:bound]


def _values_key(values: Mapping[str, Any]) -> str:
    return json.dumps(values, sort_keys=True, default=str)


def _nest(path: str, value: Any) -> dict[str, Any]:
    result: dict[str, Any] = {}
    node = result
    parts = path.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return result
