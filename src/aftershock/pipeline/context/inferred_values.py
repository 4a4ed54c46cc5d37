"""Values the platform injects: a chart no context renders is re-rendered with the keys Helm said were
missing, taken from the values files the repository's CI and tests give any chart (*inferred*).

Only charts every candidate failed for reach here (a render whose output is not YAML failed too), so
a chart that renders is not rendered again. Each round layers, over each failed context, the keys its
last error named that a values file of the index sets (ingest/platform_values.py), and renders once
more. An output that is not YAML names no key (an unset value left `name: a:b:`): the keys its
template reads that neither the context nor that chart's defaults set stand for them. A key a
`required` or `fail` message names that no file sets (a secret the platform injects from elsewhere) gets a placeholder text, one
per round, said as such: the rest of the template is then observed. When the error names no key a file
sets but names a template, the trial goes on without that template (one template that needs a value
nobody sets must not hide what the others need); a context whose error names neither is dropped. The
first context (in candidate order) of the first round that renders is the chart's: whole, or with
its inferred values only, when templates were left out (the render stage then renders it by template,
and says which templates and why). Rounds and contexts are bounded, and every render counts against
the review's budget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aftershock.diff.values_keys import parse_values
from aftershock.ingest.dependency_history import HISTORY_PREFIX
from aftershock.ingest.platform_values import FoundValue, IndexedChart, PlatformValues
from aftershock.model.change import Side
from aftershock.model.contexts import PLACEHOLDER, InferredValue
from aftershock.model.errors import AftershockError
from aftershock.model.units import Chart
from aftershock.pipeline.context.partial_renders import MAX_LEFT_OUT
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, SideInput
from aftershock.pipeline.rendering.charts import render_side
from aftershock.releases.values import merge_maps, value_at
from aftershock.render.contexts import ChartFiles, ContextCandidate
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan, RenderInputs, dependency_closure, template_repo_path
from aftershock.render.schemas.missing_values import (
    Need,
    error_position,
    invalid_yaml_template,
    missing_values,
    piped_need,
    read_needs,
    required_need,
    required_needs,
    template_scope,
)
from aftershock.render.workspaces.partial_charts import named_templates

MAX_ROUNDS = 16  # re-renders of one context, each with what its last error named (one per subchart)
MAX_CONTEXTS = 2  # contexts of one chart given inferred values


@dataclass(frozen=True)
class Inference:
    """A context with inferred values layered on it, and Helm's error for it (None: it rendered)."""

    candidate: ContextCandidate
    inferred: tuple[InferredValue, ...]
    error: str | None
    # templates (Helm names) the trials left out, each with its error; never the chart's render
    left_out: Mapping[str, str] = field(default_factory=dict, hash=False)

    @property
    def whole(self) -> bool:
        return self.error is None and not self.left_out

    @property
    def first_error(self) -> str:
        return self.error or next(iter(self.left_out.values()), "")


@dataclass(frozen=True)
class InferenceRun:
    """How to render the inferred contexts of the charts tried at one side."""

    side: Side
    side_input: SideInput
    index: PlatformValues
    renderer: Renderer
    settings: RenderSettings
    work: Path
    rendered: Callable[[RenderOutcome], None] | None = None


def infer_contexts(
    failed: Mapping[str, Sequence[tuple[ContextCandidate, str]]],
    plans: Mapping[str, ChartPlan],
    run: InferenceRun,
) -> dict[str, Inference]:
    """Per chart of `failed` (its candidates in order, each with Helm's error at `run.side`) that an
    inferred value was found for: the context that rendered with them, else the first one tried."""
    trials = {path: [Inference(c, (), e) for c, e in tried] for path, tried in failed.items()}
    results: dict[str, Inference] = {}
    for _ in range(MAX_ROUNDS):
        pending = {
            path: layered[:MAX_CONTEXTS]
            for path, tried in trials.items()
            if (layered := [n for t in tried if (n := _next(t, path, run)) is not None])
        }
        if not pending:
            break
        errors = _render_round(pending, plans, run)
        trials = {}
        for path, tried in pending.items():
            done = [replace(t, error=e) for t, e in zip(tried, errors[path])]
            rendered = next((t for t in done if t.error is None), None)
            results[path] = rendered or done[0]
            if rendered is None:
                trials[path] = done
    return {path: found for path, found in results.items() if found.inferred}


def _next(trial: Inference, chart: str, run: InferenceRun) -> Inference | None:
    """The trial with the values its error names layered on, None when none is newly found."""
    if trial.error is None:
        return None
    index = run.index
    have = {v.key for v in trial.inferred}
    needs = missing_values(trial.error)
    source = _failing_template(trial.error, chart, run)
    broken = invalid_yaml_template(trial.error)
    if source is not None and broken is not None:
        # which value it lacked Helm does not say: what it reads that no values here set
        needs = _unset_reads(broken, source, chart, trial, run)
    elif source is not None and required_need(trial.error, source) is not None:
        # a `required` call failed: what it and the template's other calls read, not what the
        # message names (it may misspell the key)
        needs = required_needs(trial.error, source)
    elif source is not None and (piped := piped_need(trial.error, source)) is not None:
        needs = [piped]
    found = [f for need in needs if (f := _lookup(need, chart, index))]
    new = [f for f in dict.fromkeys(found) if ".".join(f.key) not in have]
    if not new:  # texts the template requires that no file sets: the platform injects them
        new = _placeholders(needs, have, _chart_texts(chart, run))
    if not new:
        names = [n for n in named_templates(trial.error) if n not in trial.left_out]
        if not names or len(trial.left_out) >= MAX_LEFT_OUT:
            return None
        return replace(trial, left_out={**trial.left_out, names[0]: trial.error})
    overlay: dict[str, Any] = {}
    for value in new:
        overlay = merge_maps(overlay, _nested(value.key, value.value))
    candidate = trial.candidate
    layered = replace(
        candidate,
        base=_layer(candidate.base, overlay),
        head=_layer(candidate.head, overlay),
    )
    inferred = trial.inferred + tuple(InferredValue(".".join(f.key), f.file or None) for f in new)
    return Inference(layered, inferred, trial.error)


def _placeholders(needs: Sequence[Need], have: set[str], texts: str) -> list[FoundValue]:
    """A placeholder for each text a `required`/`fail` names, at the first of its keys not tried yet
    that the chart's templates read (`.Values.<first key>` in `texts`): a dotted word of a message
    no template reads as a value (a looked-up object's name, `u1.medium`) is no values key."""
    found = []
    for need in needs:
        keys = [k for k in need.keys if ".".join(k) not in have and f".Values.{k[0]}" in texts]
        if need.stated and keys:
            found.append(FoundValue(keys[0], PLACEHOLDER, ""))
    return list(dict.fromkeys(found))


def _chart_texts(chart: str, run: InferenceRun) -> str:
    """The chart's templates (its dependencies' included) at the run's side, as one text."""
    tree, charts = run.side_input
    by_path = {c.path: c for c in charts}
    if chart not in by_path:
        return ""
    folders = [
        f"{p}/templates" if p else "templates" for p in dependency_closure(by_path[chart], by_path)
    ]
    return "\n".join(tree.texts_under(folders, suffixes=(".yaml", ".yml", ".tpl", ".txt")))


def _failing_template(error: str, chart: str, run: InferenceRun) -> str | None:
    """The text of the template an `execution error at (...)` or an invalid YAML output names, at
    the run's side."""
    position = error_position(error)
    template = position[0] if position is not None else invalid_yaml_template(error)
    tree, charts = run.side_input
    by_path = {c.path: c for c in charts}
    if template is None or chart not in by_path:
        return None
    path = template_repo_path(template, by_path[chart], by_path)
    history = run.settings.history_root
    if path.startswith(HISTORY_PREFIX + "/"):
        file = history / path[len(HISTORY_PREFIX) + 1 :] if history else None
        return file.read_text("utf-8", "replace") if file is not None and file.is_file() else None
    return tree.text_or_none(path)


def _unset_reads(
    template: str, source: str, chart: str, trial: Inference, run: InferenceRun
) -> list[Need]:
    """The keys a template reads that neither the trial's values nor the defaults of the chart holding
    the template (its `values.yaml`, under the key without the subchart's prefix) set."""
    inputs = trial.candidate.inputs(run.side.value)
    values = inputs.values if inputs else {}
    defaults = _template_defaults(template, chart, run)
    scope = template_scope(template)
    return [
        need
        for need in read_needs(template, source)
        if value_at(values, need.keys[0]) in (None, "")
        and value_at(defaults, _unscoped(need.keys[0], scope)) in (None, "")
    ]


def _template_defaults(template: str, chart: str, run: InferenceRun) -> Mapping[str, Any]:
    """The `values.yaml` of the chart (or subchart) holding a template Helm names, at the run's side."""
    tree, charts = run.side_input
    by_path = {c.path: c for c in charts}
    if chart not in by_path:
        return {}
    folder = template_repo_path(template, by_path[chart], by_path).split("/templates/", 1)[0]
    try:
        return parse_values(tree.text_or_none(f"{folder}/values.yaml"), source=folder)
    except AftershockError:
        return {}


def _unscoped(key: tuple[str, ...], scope: tuple[str, ...]) -> tuple[str, ...]:
    return key if key[0] == "global" else key[len(scope) :]


def _lookup(need: Need, chart: str, index: PlatformValues) -> FoundValue | None:
    for key in need.keys:
        found = index.find(chart, key)
        if found is None and need.nil_parent and len(key) > 1:
            found = index.find(chart, key[:-1])
        if found is not None:
            return found
    return None


def _nested(key: tuple[str, ...], value: Any) -> dict[str, Any]:
    node: Any = value
    for part in reversed(key):
        node = {part: node}
    return dict(node)


def _layer(inputs: RenderInputs | None, overlay: Mapping[str, Any]) -> RenderInputs | None:
    return None if inputs is None else replace(inputs, values=merge_maps(inputs.values, overlay))


def _render_round(
    trials: Mapping[str, Sequence[Inference]],
    plans: Mapping[str, ChartPlan],
    run: InferenceRun,
) -> dict[str, list[str | None]]:
    items = []
    for path, tried in trials.items():
        for trial in tried:
            inputs = trial.candidate.inputs(run.side.value) or RenderInputs()
            if trial.left_out:
                left_out = tuple(sorted({*inputs.templates.left_out, *trial.left_out}))
                inputs = replace(inputs, templates=replace(inputs.templates, left_out=left_out))
            plan = replace(
                plans[path],
                scenario=f"context:{trial.candidate.name}+inferred",
                base_inputs=inputs,
                head_inputs=inputs,
            )
            items.append((path, plan))
    results = render_side(
        [p for _, p in items],
        run.side,
        run.side_input,
        run.renderer,
        run.settings,
        run.work / f"inferred-{run.side.value}",  # each round adds to one workspace
        run.rendered,
    )
    errors: dict[str, list[str | None]] = {path: [] for path in trials}
    for (path, _), (_, error) in zip(items, results):
        errors[path].append(error)
    return errors


def indexed_charts(
    side_input: SideInput, suite_paths: Callable[[ChartFiles], Sequence[str]]
) -> list[IndexedChart]:
    """Every chart of one side as the index reads it: its files, suites and local dependencies."""
    return list(each_indexed_chart(side_input, suite_paths))


def each_indexed_chart(
    side_input: SideInput, suite_paths: Callable[[ChartFiles], Sequence[str]]
) -> Iterator[IndexedChart]:
    """`indexed_charts` one chart at a time, for a caller that may stop early."""
    tree, charts = side_input
    for chart in charts:
        files = ChartFiles(
            chart.path, tuple(tree.tree.paths_under(chart.path)), tree.text_or_none, tree.label
        )
        yield IndexedChart(chart.path, files.paths, tuple(suite_paths(files)), _dependencies(chart))


def _dependencies(chart: Chart) -> dict[str, str]:
    return {
        d.alias or d.name: d.resolved_path
        for d in chart.dependencies
        if d.resolved_path is not None
    }
