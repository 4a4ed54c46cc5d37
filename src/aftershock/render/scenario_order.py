"""The order a chart's scenarios render in: those setting more of what the changed lines read first,
then, group by group, next the one reaching the most of the change that those before it do not."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from aftershock.model.contexts import TemplateSelection
from aftershock.model.review import PROBE_PREFIXES
from aftershock.render.scenarios import Scenario
from aftershock.render.template_reach import files_run

# A values file of the chart (chart-relative path) as parsed values, {} when unreadable.
FileValues = Callable[[str], Mapping[str, Any]]

Reached = Callable[[Scenario], frozenset[tuple[str, str]]]


def covering_first(
    groups: list[list[Scenario]], reached: Reached, picks: int, whole: int | None = None
) -> list[Scenario]:
    """The groups in turn; in each, up to `picks` in all, next the scenario reaching the most of
    the change (an edited file, a field its changed lines read) that those before it do not: two
    tests setting the same field for the same template exercise one thing. Ties keep their ranked
    order. A scenario adding nothing waits at the end of its group among the first `whole` groups
    (all by default), and after every group past them: a test of a suite the change edits that
    reaches nothing more does not crowd out a values file reaching a line nothing else does. What
    a scenario of made-up values reaches is not counted as reached: the chart may reject its values
    (and a failure probe stops at its `fail`)."""
    covered: set[tuple[str, str]] = set()
    out: list[Scenario] = []
    waiting: list[Scenario] = []
    for index, group in enumerate(groups):
        pending = list(group)
        out += pick_covering(pending, reached, covered, picks - len(out))
        if whole is None or index < whole:
            out += pending
        else:
            waiting += pending
    return out + waiting


def pick_covering(
    pending: list[Scenario], reached: Reached, covered: set[tuple[str, str]], room: int
) -> list[Scenario]:
    """Up to `room` of `pending` (taken out of it), each next the one reaching the most that
    `covered` lacks, ties in their order; none reaching nothing more. `covered` grows by what they
    reach, made-up values' aside."""
    picked: list[Scenario] = []
    while pending and len(picked) < room:
        gains = [len(reached(s) - covered) for s in pending]
        best = max(range(len(pending)), key=lambda i: (gains[i], -i))
        if gains[best] == 0:
            break
        if not pending[best].name.startswith(PROBE_PREFIXES):
            covered |= reached(pending[best])
        picked.append(pending.pop(best))
    return picked


def reached_by(
    chart: str,
    texts: Mapping[str, str],
    fields: Mapping[str, frozenset[str]],
    file_values: FileValues = lambda _: {},
) -> Reached:
    """What of the change a scenario reaches: (edited file, field read there) for each field its
    values set (its values files' too, read by `file_values`), in the files it may run (a test: its
    suite's templates and the defines they include, read from `texts`, the chart's templates; a
    file no template is, one rendered through `tpl` or a dependency's, counts for every scenario).
    A values path reaches a file only when every key of it that some edited file reads is read
    there: `controller.startupProbe.enabled` reaches the controller's template, not the
    `startupProbe` of the server's, which reads no `controller`."""
    runs: dict[TemplateSelection, frozenset[str] | None] = {}
    found: dict[str, frozenset[tuple[str, str]]] = {}
    known = frozenset().union(*fields.values())

    def reached(scenario: Scenario) -> frozenset[tuple[str, str]]:
        if scenario.name not in found:
            selection = scenario.templates
            if selection not in runs:
                runs[selection] = files_run(selection, chart, texts)
            run = runs[selection]
            named = {tuple(k for k in p if k in known) for p in set_paths(scenario, file_values)}
            found[scenario.name] = frozenset(
                (path, name)
                for path, names in fields.items()
                if run is None or path in run or path not in texts
                for keys in named
                if names.issuperset(keys)
                for name in keys
            )
        return found[scenario.name]

    return reached


def rank_scenarios(
    candidates: list[Scenario], fields: frozenset[str], file_values: FileValues = lambda _: {}
) -> list[Scenario]:
    """Scenarios whose values set paths through more of the fields the changed lines read come first (a
    stable sort: among equals, the order of discovery, which puts what changed templates read first)."""
    if not fields:
        return candidates
    return sorted(candidates, key=lambda s: -len(segments_set(s, file_values) & fields))


def segments_set(scenario: Scenario, file_values: FileValues) -> set[str]:
    """Every key name the scenario's values set at any depth: its overrides' and its files'."""
    found = _segments(scenario.overrides)
    for rel in scenario.values_files:
        found |= _segments(file_values(rel))
    return found


def set_paths(scenario: Scenario, file_values: FileValues) -> set[tuple[str, ...]]:
    """Every values path the scenario sets, to each leaf: its overrides' and its files'."""
    found = set(_paths(scenario.overrides, ()))
    for rel in scenario.values_files:
        found.update(_paths(file_values(rel), ()))
    return found


def _paths(values: Mapping[str, Any], prefix: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    for key, value in values.items():
        path = (*prefix, str(key))
        if isinstance(value, Mapping) and value:
            yield from _paths(value, path)
        else:
            yield path


def _segments(values: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()
    for key, value in values.items():
        found.add(str(key))
        if isinstance(value, Mapping):
            found |= _segments(value)
    return found
