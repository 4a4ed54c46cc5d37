"""Wiring of values scenarios: each planned chart is also rendered with its values files and toggles."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from aftershock.config.settings import ScenarioSettings
from aftershock.diff.values_keys import parse_values
from aftershock.helmtest.suite_values import (
    failing_value_sets,
    is_suite,
    suite_name,
    suite_value_sets,
)
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.errors import MalformedInputError
from aftershock.model.review import FAILURE_PROBE_PREFIX, PROBE_PREFIXES, ScenarioSummary
from aftershock.model.units import Chart
from aftershock.pipeline.context.refused import readable_text
from aftershock.pipeline.rendering.chart_jobs import SideInput
from aftershock.releases.values import merge_maps
from aftershock.render.edited_guards import edited_guard_scenarios
from aftershock.render.plan import TEMPLATE_SUFFIXES, ChartPlan, RenderInputs
from aftershock.render.scenario_order import (
    covering_first,
    pick_covering,
    rank_scenarios,
    reached_by,
)
from aftershock.render.scenarios import (
    DEFAULT,
    GUARDS_OPENED,
    Scenario,
    choose,
    configured_scenarios,
    defaults_upgrade_scenarios,
    guard_scenarios,
    opened_together,
    test_scenarios,
    test_upgrade_scenarios,
    toggle_paths,
    toggle_scenarios,
    upgrade_scenarios,
    values_file_scenarios,
)
from aftershock.render.value_probes import Reexpressed, probe_scenarios


@dataclass(frozen=True)
class ChartEdits:
    """What a change edits of one chart, for choosing its scenarios: besides its edited templates,
    the files it renders through `tpl` and the templates that read them (`templated_files`), whose
    guards open; and the field names its changed template lines read, per edited file
    (`diff.edited_templates.changed_fields_by_file`), which rank the scenarios; and the values
    paths its changed lines re-express (`render.value_probes.reexpressed_reads`), each rendered
    with a probe; and the messages of the `fail` calls they edit, which the tests expecting them
    render; and the values paths their conditions read (`render.edited_guards`), opened where the
    chart leaves them unset; and the tests it writes or edits, which render ahead of their suites'
    other tests."""

    also_edited: tuple[str, ...] = ()
    fields: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False)
    reexpressed: tuple[Reexpressed, ...] = ()
    # the messages of the `fail` calls its changed template lines hold (`diff.edited_templates`)
    failures: tuple[str, ...] = ()
    guarded: tuple[str, ...] = ()
    # `<suite file>/<test>` of the tests the change writes or edits (`helmtest.suite_values`)
    tests: frozenset[str] = frozenset()
    # the chart's suite files at either ref, as its helm-unittest patterns name them (None: the
    # default `tests/*_test.yaml`)
    suite_files: frozenset[str] | None = None


def expand_scenarios(
    plans: Sequence[ChartPlan],
    base: SideInput,
    head: SideInput,
    changed: Iterable[str],
    cap: int,
    declared: Sequence[ScenarioSettings] = (),
    edits: Mapping[str, ChartEdits] | None = None,
) -> tuple[tuple[ChartPlan, ...], tuple[ScenarioSummary, ...]]:
    """Every plan in each of its chart's scenarios (the default first, then those the configuration
    declares, then the others ranked by what they reach of the change), and what ran or was cut per chart.
    `edits` says, per chart, what of it the change edits besides its templates (`ChartEdits`)."""
    changed_paths = sorted(set(changed))
    expanded: list[ChartPlan] = []
    summaries = []
    for plan in plans:
        edited = (edits or {}).get(plan.path, ChartEdits())
        tree, chart = _chart_at(plan, base, head)
        folder = f"{chart.path}/templates" if chart.path else "templates"
        templates = tree.texts_by_path([folder], suffixes=TEMPLATE_SUFFIXES)
        candidates = _candidates(plan, base, head, changed_paths, edited, templates)
        read = _file_values(tree, chart)
        ranked = rank_scenarios(candidates, frozenset().union(*edited.fields.values()), read)
        groups = _edits_first(ranked, plan, changed_paths, edited)
        reached = reached_by(chart.path, templates, edited.fields, read)
        found = covering_first(groups, reached, cap, WRITTEN_GROUPS)
        chosen = choose(configured_scenarios(plan.path, declared) + found, cap)
        summaries.append(ScenarioSummary(plan.path, tuple(s.name for s in chosen.ran), chosen.cut))
        for scenario in chosen.ran:
            expanded.append(
                plan if scenario.name == DEFAULT else _scenario_plan(plan, scenario, base, head)
            )
    return tuple(expanded), tuple(summaries)


def unrun_scenarios(
    plan: ChartPlan,
    base: SideInput,
    head: SideInput,
    changed: Iterable[str],
    edited: ChartEdits,
    ran: Collection[str],
    picks: int,
) -> list[ChartPlan]:
    """Up to `picks` more of the chart's scenarios for changed lines no scenario of `ran` ran
    (`edited.fields` holds only the files of those lines): next, the one setting the most of the
    fields read there that the scenarios before it (those that ran first) do not; none setting
    nothing of them. Made-up values are left out: the chart may reject them."""
    tree, chart = _chart_at(plan, base, head)
    folder = f"{chart.path}/templates" if chart.path else "templates"
    templates = tree.texts_by_path([folder], suffixes=TEMPLATE_SUFFIXES)
    candidates = _candidates(plan, base, head, sorted(set(changed)), edited, templates)
    reached = reached_by(chart.path, templates, edited.fields, _file_values(tree, chart))
    given = [s for s in candidates if not s.name.startswith(PROBE_PREFIXES)]
    covered = set().union(*(reached(s) for s in given if s.name in ran))
    pending = [s for s in given if s.name not in ran]
    picked = pick_covering(pending, reached, covered, picks)
    return [_scenario_plan(plan, s, base, head) for s in picked]


# _edits_first's groups of what the change writes: the edited guards' scenario, the failures it
# edits, the tests it writes. They run whatever they reach (covering_first).
WRITTEN_GROUPS = 3


def _edits_first(
    scenarios: list[Scenario],
    plan: ChartPlan,
    changed: Sequence[str],
    edited: ChartEdits,
) -> list[list[Scenario]]:
    """What exercises the edit renders first, within the cap, in these groups: the scenario opening
    the edited templates' guards, the tests expecting a failure the change edits, the tests the
    change writes or edits (`edited.tests`), then the other tests of the suites it edits; then the
    others (each group in its ranked order)."""
    tests = edited.tests
    suites = tuple(
        f"{suite_name(plan.path, p)}/"
        for p in changed
        if is_suite(plan.path, p, edited.suite_files)
    )

    def group(scenario: Scenario) -> int:
        test = scenario.name.removeprefix("test:")
        if scenario.name == GUARDS_OPENED:
            return 0
        if scenario.name.startswith(FAILURE_PROBE_PREFIX):
            return 1
        if scenario.name.startswith("test:") and test in tests:
            return 2
        if scenario.name.startswith("test:") and test.startswith(suites):
            return 3
        return 4

    groups: list[list[Scenario]] = [[] for _ in range(WRITTEN_GROUPS + 2)]
    for scenario in scenarios:
        groups[group(scenario)].append(scenario)
    return groups


def _candidates(
    plan: ChartPlan,
    base: SideInput,
    head: SideInput,
    changed: list[str],
    edited_chart: ChartEdits,
    templates: Mapping[str, str],
) -> list[Scenario]:
    """Every scenario that may render the chart; `templates` are its templates' texts, by path."""
    tree, chart = _chart_at(plan, base, head)
    prefix = f"{chart.path}/" if chart.path else ""
    files = {
        p[len(prefix) :]
        for side, c in ((base, plan.base), (head, plan.head))
        if c
        for p in side[0].tree.paths_under(c.path)
    }
    near = [p for p in changed if p.startswith(prefix) and "/templates/" in f"/{p[len(prefix) :]}"]
    near += [p for p in edited_chart.also_edited if p not in near]
    # the edited templates' texts, then every template's
    edited_texts = _edited_texts(tree, near)
    texts = edited_texts + list(templates.values())
    try:
        defaults = parse_values(
            tree.text_or_none(f"{prefix}values.yaml"), source=f"{prefix}values.yaml at {tree.label}"
        )
        base_defaults = _base_defaults(plan, base)
    except MalformedInputError:
        defaults = base_defaults = {}  # no toggles: its renders say what the broken file does
    suites = edited_chart.suite_files
    tests = suite_value_sets(
        chart.path,
        tree.tree.paths_under(chart.path),
        tree.text_or_none,
        [p[len(prefix) :] for p in near],
        suites,
    )
    base_tests = (
        suite_value_sets(
            plan.base.path,
            base[0].tree.paths_under(plan.base.path),
            base[0].text_or_none,
            [p[len(prefix) :] for p in near],
            suites,
        )
        if plan.base is not None and plan.head is not None
        else []
    )
    edited = [p[len(prefix) :] for p in changed if p.startswith(prefix)]
    at_base = (
        {p[len(prefix) :] for p in base[0].tree.paths_under(plan.base.path)} if plan.base else set()
    )
    given = (plan.head_inputs if plan.head else plan.base_inputs).values
    # toggles and guards flip what the plan renders with: the chart's keys as its context sets them
    rendered = effective_values(defaults, given)
    rendered_at_base = effective_values(base_defaults, plan.base_inputs.values)
    # a value probe sets what the changed lines read, so it ranks with the scenarios that set it too:
    # after them, as their values are given ones and its are made up
    reads = edited_chart.reexpressed
    at_head = merge_maps(defaults, given)
    probes = probe_scenarios(reads, at_head) if reads else []
    # tests written to fail with a message the change edits: the failure exercises its line
    probes += test_scenarios(
        failing_value_sets(
            chart.path,
            tree.tree.paths_under(chart.path),
            tree.text_or_none,
            edited_chart.failures,
            suites,
        )
    )
    # the conditions the change writes on keys the chart leaves unset: what runs their lines (made
    # up, they rank after the scenarios that set as much of what the changed lines read)
    sides = [at_head, merge_maps(base_defaults, plan.base_inputs.values)]
    probes += edited_guard_scenarios(edited_chart.guarded, sides)
    return (
        (defaults_upgrade_scenarios(base_defaults, defaults) if plan.base and plan.head else [])
        + upgrade_scenarios(p for p in edited if p in at_base)
        + test_upgrade_scenarios(base_tests, tests)
        + values_file_scenarios(files)
        + _toggles(edited_texts, texts, rendered, _base_guards(plan, base, near, rendered_at_base))
        + test_scenarios(tests)
        + probes
    )


def _file_values(tree: RefSnapshot, chart: Chart) -> Callable[[str], Mapping[str, Any]]:
    """A reader of the chart's values files (chart-relative paths), each parsed once; {} when one
    cannot be read (its render says what it does)."""
    prefix = f"{chart.path}/" if chart.path else ""

    @functools.cache
    def read(rel: str) -> Mapping[str, Any]:
        try:
            return parse_values(tree.text_or_none(prefix + rel), source=prefix + rel)
        except MalformedInputError:
            return {}

    return read


def _chart_at(plan: ChartPlan, base: SideInput, head: SideInput) -> tuple[RefSnapshot, Chart]:
    """The chart as its head has it, and that ref; its base's for a chart the head removes."""
    tree, chart = (head[0], plan.head) if plan.head is not None else (base[0], plan.base)
    assert chart is not None
    return tree, chart


def effective_values(defaults: Mapping[str, Any], given: Mapping[str, Any]) -> Mapping[str, Any]:
    """The chart's own keys (`defaults`, its values.yaml) with the values a render is given over
    them: what a toggle flips. Keys the chart does not hold stay out: no toggle is offered on them."""
    out: dict[str, Any] = {}
    for key, value in defaults.items():
        if key not in given:
            out[key] = value
        elif isinstance(value, Mapping) and isinstance(given[key], Mapping):
            out[key] = effective_values(value, given[key])
        else:
            out[key] = given[key]
    return out


def _toggles(
    edited: list[str], texts: list[str], defaults: Mapping[str, Any], at_base: list[Scenario]
) -> list[Scenario]:
    """The edited templates' guards opened first (all at once, then booleans turned on, then other
    values, then those of the templates as they are at base), then the other toggles; a toggle that
    would close an edited template's guard comes last."""
    own = toggle_scenarios(toggle_paths(edited), defaults)
    opening, guards = _openings(own), guard_scenarios(edited, defaults)
    closing = {s.name for s in own} - {s.name for s in opening}
    every = [s for s in toggle_scenarios(toggle_paths(texts), defaults) if s not in opening]
    return (
        opened_together(opening + guards)
        + opening
        + guards
        + at_base
        + [s for s in every if s.name not in closing]
        + [s for s in every if s.name in closing]
    )


def _base_guards(
    plan: ChartPlan, base: SideInput, near: Sequence[str], defaults: Mapping[str, Any]
) -> list[Scenario]:
    """The guards of the edited templates as they are at base (a removed feature's toggle exists only
    there), opened with the base's defaults: what the removed lines need to run at base."""
    if plan.base is None or plan.head is None:
        return []  # a chart at one side only: its own templates' guards are already read
    texts = _edited_texts(base[0], near)
    return _openings(toggle_scenarios(toggle_paths(texts), defaults)) + guard_scenarios(
        texts, defaults
    )


def _edited_texts(tree: RefSnapshot, near: Sequence[str]) -> list[str]:
    """The texts of the edited template files at one ref (`texts_under` reads folders, not files)."""
    return [
        text for p in near if p.endswith(TEMPLATE_SUFFIXES) and (text := readable_text(tree, p))
    ]


def _openings(toggles: Sequence[Scenario]) -> list[Scenario]:
    """The toggles that turn a boolean guard on (not those that close one)."""
    return [s for s in toggles if s.name.endswith("=true")]


def _base_defaults(plan: ChartPlan, base: SideInput) -> Mapping[str, Any]:
    if plan.base is None:
        return {}
    path = f"{plan.base.path}/values.yaml" if plan.base.path else "values.yaml"
    return parse_values(base[0].text_or_none(path), source=f"{path} at {base[0].label}")


def _scenario_plan(
    plan: ChartPlan, scenario: Scenario, base: SideInput, head: SideInput
) -> ChartPlan:
    return replace(
        plan,
        scenario=scenario.name,
        base_inputs=_inputs(plan.base_inputs, plan.base, scenario, base),
        head_inputs=_inputs(
            plan.head_inputs, plan.head, scenario, base if scenario.values_from_base else head
        ),
    )


def _inputs(
    inputs: RenderInputs, chart: Chart | None, scenario: Scenario, side: SideInput
) -> RenderInputs:
    if chart is None:
        return inputs

    tree = side[0]
    values: dict[str, Any] = dict(inputs.values)
    for rel in scenario.values_files:
        path = f"{chart.path}/{rel}" if chart.path else rel
        values = merge_maps(
            values, parse_values(tree.text_or_none(path), source=f"{path} at {tree.label}")
        )
    templates = inputs.templates if scenario.templates.whole else scenario.templates
    return replace(
        inputs,
        values=merge_maps(values, scenario.overrides),
        templates=templates,
        release_name=scenario.release_name or inputs.release_name,
        namespace=scenario.namespace or inputs.namespace,
    )
