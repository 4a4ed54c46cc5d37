"""Wiring of render contexts: each affected chart is rendered in the first context that renders at base.

Candidates come in a fixed order (render/contexts.py): `.aftershock.yaml` contexts, the releases of
this repository that install the chart (release following run backwards), the chart's own defaults,
then one per group of the chart's helm-unittest suites that load the same and chart-testing's
`ci/*-values.yaml` (scenarios of their own, a base only where the defaults cannot render). A chart whose only
candidate is its defaults renders as before, with no trial render. Otherwise the candidates render
once at base (at head for a chart new there); the first that renders is the chart's context, and
its inputs replace the plan's at both sides, so every scenario is layered on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aftershock.config.settings import AftershockConfig
from aftershock.diff.edited_defaults import spare_edited
from aftershock.diff.values_keys import parse_values
from aftershock.ingest.platform_values import PlatformValues, gives_any_values, platform_values
from aftershock.ingest.suite_files import SuitePatterns
from aftershock.model.change import Side
from aftershock.model.contexts import ChartContext, ContextAttempt, RenderInputs
from aftershock.model.errors import AftershockError
from aftershock.model.units import Chart
from aftershock.pipeline.context.inferred_values import (
    Inference,
    InferenceRun,
    each_indexed_chart,
    indexed_charts,
    infer_contexts,
)
from aftershock.pipeline.context.installers import Installer
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, SideInput
from aftershock.pipeline.rendering.charts import render_side
from aftershock.render.contexts import (
    DEFAULTS,
    ChartFiles,
    ContextCandidate,
    chart_testing_contexts,
    configured_contexts,
    tests_context,
)
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan
from aftershock.render.schemas.missing_values import missing_values
from aftershock.render.workspaces.partial_charts import named_templates

MAX_ERROR = 300  # characters of Helm's error kept per context tried
SuitePaths = Callable[[ChartFiles], Sequence[str]]


@dataclass(frozen=True)
class Identity:
    """Release name and namespace given on the command line: they override every context."""

    release_name: str | None = None
    namespace: str | None = None

    def apply(self, inputs: RenderInputs) -> RenderInputs:
        return replace(
            inputs,
            release_name=self.release_name or inputs.release_name,
            namespace=self.namespace or inputs.namespace,
        )


def default_suite_paths(files: ChartFiles) -> list[str]:
    """helm-unittest's default: `tests/*_test.yaml` of the chart."""
    return matching_paths(files, ("tests/*_test.yaml",))


def suite_paths_of(patterns: Mapping[str, SuitePatterns]) -> SuitePaths:
    """The suite files of a chart by the patterns the review found for it (ingest/suite_files.py)."""

    def paths(files: ChartFiles) -> list[str]:
        found = patterns.get(files.chart_path)
        return (
            matching_paths(files, found.patterns)
            if found is not None
            else default_suite_paths(files)
        )

    return paths


def matching_paths(files: ChartFiles, patterns: Sequence[str]) -> list[str]:
    """Repository paths of the chart's files matching helm-unittest `-f` globs (doublestar, chart-relative)."""
    regexes = [re.compile(_glob_regex(p)) for p in patterns]
    prefix = files.rel("")
    return [p for p in files.paths if any(r.fullmatch(p[len(prefix) :]) for r in regexes)]


def _glob_regex(pattern: str) -> str:
    parts = re.split(r"(\*\*/?|\*|\?)", pattern.removeprefix("./"))
    table = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
    return "".join(table.get(part, re.escape(part)) for part in parts)


def choose_contexts(
    plans: Sequence[ChartPlan],
    base: SideInput,
    head: SideInput,
    config: AftershockConfig,
    installers: Mapping[str, Sequence[Installer]],
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    identity: Identity = Identity(),
    suite_paths: SuitePaths = default_suite_paths,
    rendered: Callable[[RenderOutcome], None] | None = None,
) -> tuple[tuple[ChartPlan, ...], tuple[ChartContext, ...]]:
    """The plans with their chart's context applied, and the context of each chart, with why."""
    candidates: dict[str, list[ContextCandidate]] = {}
    for plan in plans:
        if plan.release is None and plan.path not in candidates:
            candidates[plan.path] = _candidates(
                plan, base, head, config, installers.get(plan.path, ()), suite_paths
            )
    indexes = _PlatformIndexes({Side.BASE: base, Side.HEAD: head}, suite_paths)
    chosen, contexts, errors = _try(
        plans, candidates, (base, head), renderer, settings, work, rendered, indexes.any_values
    )
    failed = _failed(candidates, contexts, errors)
    by_path = {p.path: p for p in plans if p.release is None}
    for side, side_input in ((Side.BASE, base), (Side.HEAD, head)):
        if failed.get(side):
            run = InferenceRun(
                side, side_input, indexes.of(side), renderer, settings, work, rendered
            )
            _apply_inferred(infer_contexts(failed[side], by_path, run), side, chosen, contexts)
    result = []
    for plan in plans:
        pick = chosen.get(plan.path)
        if plan.release is None and pick is not None:
            plan = replace(
                plan,
                base_inputs=identity.apply(pick.base or RenderInputs()),
                head_inputs=identity.apply(pick.head or RenderInputs()),
            )
        result.append(plan)
    return tuple(result), tuple(contexts[p] for p in sorted(contexts))


def _candidates(
    plan: ChartPlan,
    base: SideInput,
    head: SideInput,
    config: AftershockConfig,
    installers: Sequence[Installer],
    suite_paths: SuitePaths,
) -> list[ContextCandidate]:
    sides = {"base": _files(base, plan.base), "head": _files(head, plan.head)}
    found = configured_contexts(plan.path, config.contexts, sides)
    # the releases that install the chart give its real identity and platform values; then the
    # chart's own defaults, before ci/ and test values: those are scenarios of their own, and a
    # base only where the defaults cannot render (a platform's charts)
    found += [i.candidate for i in installers] + [DEFAULTS]
    borrowed = chart_testing_contexts(sides)
    try:
        borrowed = tests_context(sides, suite_paths) + borrowed
    except AftershockError:
        pass  # the suites' values cannot be read: the tests are reported by the test step
    if not borrowed or sides["base"] is None or sides["head"] is None:
        return found + borrowed  # a chart new or gone at one ref edits no default
    try:
        before, after = _defaults(sides["base"]), _defaults(sides["head"])
    except AftershockError:
        return found + borrowed  # a values.yaml that does not parse: its own gap
    return found + [_sparing(c, before, after) for c in borrowed]


def _sparing(
    candidate: ContextCandidate, before: Mapping[str, Any], after: Mapping[str, Any]
) -> ContextCandidate:
    """The candidate less the values that would hide an edit of the chart's own defaults."""
    spared = {
        side: replace(inputs, values=spare_edited(inputs.values, before, after))
        if (inputs := candidate.inputs(side)) is not None
        else None
        for side in ("base", "head")
    }
    return replace(candidate, base=spared["base"], head=spared["head"])


def _defaults(files: ChartFiles) -> Mapping[str, Any]:
    path = files.rel("values.yaml")
    return parse_values(files.read(path), source=f"{path} at {files.label}")


def _failed(
    candidates: Mapping[str, list[ContextCandidate]],
    contexts: Mapping[str, ChartContext],
    errors: Mapping[tuple[str, str], str | None],
) -> dict[Side, dict[str, list[tuple[ContextCandidate, str]]]]:
    """Per side tried, the charts no candidate rendered whose errors name a missing value or a template."""
    failed: dict[Side, dict[str, list[tuple[ContextCandidate, str]]]] = {}
    for path, context in contexts.items():
        tried = [(c, errors.get((path, c.name)) or "") for c in candidates.get(path, ())]
        named = [(c, e) for c, e in tried if e and (missing_values(e) or named_templates(e))]
        if not context.chosen and named:
            failed.setdefault(Side(context.side_tried), {})[path] = named
    return failed


def _apply_inferred(
    inferred: Mapping[str, Inference],
    side: Side,
    chosen: dict[str, ContextCandidate],
    contexts: dict[str, ChartContext],
) -> None:
    """A context that rendered with inferred values becomes the chart's. Else its last error is one more
    attempt, and the chart is rendered with those values all the same: the templates that failed for
    want of them may render now, so rendering by template leaves out only those that still fail."""
    for path, inference in inferred.items():
        before = contexts[path]
        chosen[path] = inference.candidate
        if inference.whole:
            context = _context(path, inference.candidate, side, before.attempts)
            contexts[path] = replace(context, inferred_values=inference.inferred)
        else:
            keys = ", ".join(v.key for v in inference.inferred)
            attempt = ContextAttempt(
                f"{inference.candidate.name} with inferred {keys}", _cut(inference.first_error)
            )
            contexts[path] = replace(
                before, attempts=before.attempts + (attempt,), inferred_values=inference.inferred
            )


def _files(side: SideInput, chart: Chart | None) -> ChartFiles | None:
    if chart is None:
        return None
    tree = side[0]
    return ChartFiles(
        chart.path, tuple(tree.tree.paths_under(chart.path)), tree.text_or_none, tree.label
    )


@dataclass
class _PlatformIndexes:
    """The platform values index of each side (ingest/platform_values.py), built the first time a
    chart needs it."""

    sides: Mapping[Side, SideInput]
    suite_paths: SuitePaths
    built: dict[Side, PlatformValues] = field(default_factory=dict)
    given: dict[Side, bool] = field(default_factory=dict)  # whether any chart gives values

    def of(self, side: Side) -> PlatformValues:
        if side not in self.built:
            tree, _ = side_input = self.sides[side]
            charts = indexed_charts(side_input, self.suite_paths)
            self.built[side] = platform_values(charts, tree.text_or_none)
        return self.built[side]

    def any_values(self, side: Side) -> bool:
        """Asked for every chart tried: answered once per side, reading charts until one gives some."""
        if side in self.built:
            return self.built[side].gives_any()
        if side not in self.given:
            tree, _ = side_input = self.sides[side]
            charts = each_indexed_chart(side_input, self.suite_paths)
            self.given[side] = gives_any_values(charts, tree.text_or_none)
        return self.given[side]


def _try(
    plans: Sequence[ChartPlan],
    candidates: Mapping[str, list[ContextCandidate]],
    sides: tuple[SideInput, SideInput],
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    rendered: Callable[[RenderOutcome], None] | None,
    try_defaults: Callable[[Side], bool],
) -> tuple[dict[str, ContextCandidate], dict[str, ChartContext], dict[tuple[str, str], str | None]]:
    """Render the candidates of every chart with more than its defaults, at base (head for a new
    chart), and its defaults alone where `try_defaults` says values could be inferred at that side
    (the repository's CI or tests give some); with Helm's whole error per (chart, candidate) tried."""
    base, head = sides
    by_path = {p.path: p for p in plans if p.release is None}
    trials: dict[Side, list[tuple[ChartPlan, ContextCandidate]]] = {Side.BASE: [], Side.HEAD: []}
    chosen: dict[str, ContextCandidate] = {}
    contexts: dict[str, ChartContext] = {}
    for path, found in candidates.items():
        plan = by_path[path]
        side = Side.BASE if plan.base is not None else Side.HEAD
        if len(found) == 1 and not try_defaults(side):
            chosen[path] = found[0]
            contexts[path] = _context(path, found[0], side, ())
            continue
        for candidate in found:
            inputs = candidate.inputs(side.value)
            if inputs is not None:
                trials[side].append(
                    (
                        replace(
                            plan,
                            scenario=f"context:{candidate.name}",
                            base_inputs=inputs,
                            head_inputs=inputs,
                        ),
                        candidate,
                    )
                )
    outcomes: dict[tuple[str, str], str | None] = {}
    for side, items in trials.items():
        if items:
            side_input = base if side is Side.BASE else head
            results = render_side(
                [p for p, _ in items],
                side,
                side_input,
                renderer,
                settings,
                work / f"contexts-{side.value}",
                rendered,
            )
            for (plan, candidate), (_, error) in zip(items, results):
                outcomes[(plan.path, candidate.name)] = error
    for path, found in candidates.items():
        if path in chosen:
            continue
        side = Side.BASE if by_path[path].base is not None else Side.HEAD
        attempts: list[ContextAttempt] = []
        for candidate in found:
            key = (path, candidate.name)
            if key not in outcomes:
                continue
            if outcomes[key] is None:
                chosen[path] = candidate
                break
            attempts.append(ContextAttempt(candidate.name, _cut(outcomes[key] or "")))
        pick = chosen.get(path)
        contexts[path] = _context(path, pick, side, tuple(attempts))
        if pick is None:
            chosen[path] = found[0]  # rendered anyway, so the review says what failed, once
    return chosen, contexts, outcomes


def _context(
    path: str, candidate: ContextCandidate | None, side: Side, attempts: tuple[ContextAttempt, ...]
) -> ChartContext:
    if candidate is None:
        return ChartContext(
            path, None, None, f"no context renders the chart at {side.value}", side.value, attempts
        )
    inputs = candidate.inputs(side.value) or RenderInputs()
    return ChartContext(
        path,
        candidate.kind,
        candidate.name,
        candidate.reason,
        side.value,
        attempts,
        inputs.release_name,
        inputs.namespace,
    )


def _cut(error: str) -> str:
    line = " ".join(error.split())
    return line if len(line) <= MAX_ERROR else line[: MAX_ERROR - 1] + "…"


def failed_contexts(contexts: Sequence[ChartContext]) -> dict[str, str]:
    """Chart path -> one line per context tried, for the charts no context rendered."""
    failed = {}
    for context in contexts:
        if context.chosen or not context.attempts:
            continue
        errors = {a.error for a in context.attempts}
        if len(errors) == 1:  # e.g. a dependency that is not vendored: the context does not matter
            names = ", ".join(a.name for a in context.attempts)
            failed[context.chart] = f"no render context renders it ({names}): {errors.pop()}"
        else:
            failed[context.chart] = "no render context renders it: " + "; ".join(
                f"{a.name}: {a.error}" for a in context.attempts
            )
    return failed
