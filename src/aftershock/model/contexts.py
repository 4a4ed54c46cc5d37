"""Render contexts: the values, release identity and capabilities a platform renders a chart with.

A chart of a platform repository often renders only in the context its platform gives it (values a
controller injects, a release-name convention, the values of the release that installs it). Each
affected chart is rendered in the first context that renders at base (its *base context*), and its
scenarios are layered on that context. `ChartContext` records, per chart, which context was chosen,
why, and what the contexts tried before it answered.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TemplateSelection:
    """Which templates of a chart a render leaves out; partials (`_*`) and subcharts always stay.

    `left_out` names templates as Helm does (`chart/templates/x.yaml`, `chart/charts/sub/templates/y.yaml`):
    those that failed, in a render by template. `include`/`exclude` are helm-unittest `templates:` and
    `excludeTemplates:` patterns: a test scenario renders only its suite's templates, as helm-unittest does.
    `dependencies_left_out` names dependencies by the Helm name they render under (`chart/charts/dep`,
    its alias where it has one): those no render can be given (a locked version nowhere at hand).
    """

    left_out: tuple[str, ...] = ()
    include: tuple[str, ...] = ()  # () selects every template
    exclude: tuple[str, ...] = ()
    dependencies_left_out: tuple[str, ...] = ()

    @property
    def whole(self) -> bool:
        return not (self.left_out or self.include or self.exclude or self.dependencies_left_out)


WHOLE_CHART = TemplateSelection()


@dataclass(frozen=True)
class RenderInputs:
    """What one side of a plan passes to Helm; None means the review's own release name or namespace."""

    values: Mapping[str, Any] = field(default_factory=dict, hash=False)
    release_name: str | None = None
    namespace: str | None = None
    kube_version: str | None = None  # None: the review's own (--kube-version)
    api_versions: tuple[str, ...] = ()
    private: bool = False  # the values hold what a Secret supplied (see RenderRequest.private)
    templates: TemplateSelection = WHOLE_CHART  # a partial render leaves some templates out


class ContextKind(str, enum.Enum):
    """Where a context comes from, in the order they are tried."""

    CONFIG = "config"  # `.aftershock.yaml` `contexts:`
    RELEASE = "release"  # a HelmRelease or Application of this repository installs the chart
    TESTS = "tests"  # what a group of the chart's helm-unittest suites loads
    CHART_TESTING = "chart_testing"  # chart-testing's ci/*-values.yaml
    DEFAULTS = "defaults"  # the chart's own defaults


@dataclass(frozen=True)
class ContextAttempt:
    """A context tried before the chosen one, and Helm's error (cut short) for it."""

    name: str
    error: str


# The text given a value a template requires that no values file of the repository sets (a secret the
# platform injects): a DNS label, so that it also fits where a name or a label is built from it.
PLACEHOLDER = "inferred-placeholder"


@dataclass(frozen=True)
class InferredValue:
    """A values key no context gave, taken from a values file of the repository's CI or tests; or, when
    none sets it and Helm's `required`/`fail` message names it, a placeholder text (`file` None)."""

    key: str  # dotted, as the chart's values hold it
    file: str | None  # repository path of the file that sets it; None: a placeholder stood in


@dataclass(frozen=True)
class HeadNeed:
    """Values the head needs that the chart's context does not give, while the base renders without
    them (pipeline/context/head_values.py): given at both refs, so that the rest of the change is reviewed."""

    values: tuple[InferredValue, ...]
    error: str  # Helm's error at head without them
    template: str | None = None  # the repository path of the template the error names


@dataclass(frozen=True)
class ChartContext:
    """The context one affected chart was rendered in, per side, and why.

    `chosen` is None when no context rendered the chart at the side it was tried on; `attempts` then
    holds one line per context tried. `inferred` lists the keys that a context rendered only with,
    taken from other values files of the repository (evidence: inferred).
    """

    chart: str
    kind: ContextKind | None
    name: str | None
    reason: str
    side_tried: str  # "base", or "head" for a chart new at head
    attempts: tuple[ContextAttempt, ...] = ()
    release_name: str | None = None
    namespace: str | None = None
    lookups: tuple[
        str, ...
    ] = ()  # objects of the cluster snapshot that a `lookup` of the render found
    # Why what the chart renders is inferred: a placeholder served for a lookup that found nothing.
    inferred: tuple[str, ...] = ()
    inferred_values: tuple[
        InferredValue, ...
    ] = ()  # keys layered on the context so that it renders
    head_need: HeadNeed | None = None  # values the head needs that the context does not give

    @property
    def chosen(self) -> bool:
        return self.kind is not None
