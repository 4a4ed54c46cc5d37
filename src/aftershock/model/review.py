"""The whole review of base..head: every layer, linked, plus what could not be reviewed."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aftershock.model.change import Commit, FileChange, FileStatus, Side
from aftershock.model.contexts import ChartContext, RenderInputs
from aftershock.model.conventions import CommitConventions
from aftershock.model.diff import ObjectChange, UnstableField
from aftershock.model.objects import RenderedObject
from aftershock.model.override import OverrideProbe
from aftershock.model.units import AffectedChart, Chart, Unit, ValuesKeyChange

if TYPE_CHECKING:  # model/tests.py and model/provenance.py are typed with this module's kinds
    from aftershock.model.provenance import ProvenanceReport
    from aftershock.model.tests import TestEvidence


@dataclass(frozen=True)
class RefInfo:
    ref: str
    sha: str


# Render errors that depend on time, limits or process health, not on the chart (the render cache
# never keeps them, and they reject no values).
_TRANSIENT_ERRORS = (
    "render timed out",
    "rendered output exceeds",
    "render worker",
    "values cannot be passed",
    "helm failed without a message",
    "render exceeded",
    "review deadline",
)


# How the error of a build or render over its time starts: most often the machine's load, not the
# change's doing, so reports list such a part apart.
KUSTOMIZE_TIMEOUT = "kustomize build took longer than"
_TIMEOUTS = ("render timed out", KUSTOMIZE_TIMEOUT)


# How the reason of a part that needs a chart from outside the repository reads (render/external):
# the chart cache lacks it, and `aftershock charts fetch` would bring it.
_CHART_CACHE_GAPS = ("is not in the chart cache", "aftershock charts fetch")


def is_chart_cache_gap(reason: str) -> bool:
    return any(marker in reason for marker in _CHART_CACHE_GAPS)


def is_timeout(reason: str) -> bool:
    return any(t in reason for t in _TIMEOUTS)


def is_deterministic_error(error: str) -> bool:
    """True for Helm's own errors (templates, chart metadata), which the same input reproduces."""
    return not error.startswith(_TRANSIENT_ERRORS)


class RenderStatus(str, enum.Enum):
    OK = "ok"
    FAILED = "failed"
    ABSENT = "absent"  # the chart does not exist at this ref


@dataclass(frozen=True)
class ChartRender:
    side: Side
    status: RenderStatus
    object_count: int = 0
    error: str | None = None
    seconds: float = 0.0
    lookups: tuple[
        str, ...
    ] = ()  # cluster objects a `lookup` of the render found ("ConfigMap ns/name")
    warnings: tuple[str, ...] = ()  # what the renderer warned of (kustomize's deprecations)
    # Changed template lines (repository path, line) a traced render of this side marked, and those
    # of them Helm ran (render/lookup/line_trace.py); () when no trace was made.
    lines_traced: tuple[tuple[str, int], ...] = ()
    lines_run: tuple[tuple[str, int], ...] = ()
    # A failed render whose error is in a template that calls `lookup`: offline, the cluster it reads
    # is a snapshot of the repository's objects, so the failure may be the snapshot's, not the chart's.
    reads_cluster: bool = False
    # The version of the Helm chart rendered (its Chart.yaml's, an external chart's archive's); None
    # for a kustomize build and a chart absent at this ref.
    chart_version: str | None = None


@dataclass(frozen=True)
class TemplateFailure:
    """A template a chart's render by template left out at both refs, and Helm's error at each ref it
    failed (None: it rendered there, or the chart is absent there)."""

    template: str  # repository path of the template file
    base_error: str | None
    head_error: str | None
    reads_cluster: bool = False  # it calls `lookup` (see ChartRender.reads_cluster)


@dataclass(frozen=True)
class DependencyGap:
    """A dependency of a chart that no render could be given at either ref (a version Chart.lock pins
    that is not at hand): the chart rendered without it at both refs, so its objects are not reviewed."""

    route: str  # the Helm name it renders under: `chart/charts/dep` (its alias where it has one)
    dependency: str  # its name and the version wanted: `redis 18.1.0`
    reason: str  # why it is not at hand, and the command that would fetch it


class ChartOutcome(str, enum.Enum):
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    NOT_REVIEWED = "not_reviewed"
    # A non-default scenario the chart itself rejects at base and at head alike (e.g. a toggle that
    # needs another value): it says nothing about the change, so it is reported but not a gap.
    SCENARIO_INVALID = "scenario_invalid"
    # A scenario that fails at base by Helm's own error and renders at head: the change fixes it (the
    # point of a fix to a guard). Observed, not a gap; the head's objects have nothing to compare with.
    FIXED = "fixed"


@dataclass(frozen=True)
class ChartReview:
    """One affected, renderable chart rendered at base and head, and what changed in its objects."""

    chart: str
    name: str
    affected: AffectedChart
    base: ChartRender
    head: ChartRender
    outcome: ChartOutcome
    changes: tuple[ObjectChange, ...] = ()
    # Fields masked as varying: two renders of one input differed, or (in a chart rendered twice)
    # base and head differ only in order.
    unstable: frozenset[UnstableField] = field(default=frozenset(), repr=False)
    # Every object rendered on each side (repository template paths), for rules that judge whole objects.
    base_objects: tuple[RenderedObject, ...] = field(default=(), repr=False)
    head_objects: tuple[RenderedObject, ...] = field(default=(), repr=False)
    release: str | None = None  # the release that installs this chart with its own values, if any
    scenario: str = "default"  # the values scenario rendered (see render/scenarios.py)
    cluster: str | None = None  # the target cluster of the release that installs it, when one does
    # What each side was rendered with (its context, with the scenario layered on), for later renders.
    base_inputs: RenderInputs = field(default=RenderInputs(), repr=False, compare=False)
    head_inputs: RenderInputs = field(default=RenderInputs(), repr=False, compare=False)
    # What the Secrets (and credential-named values) of a side hold when the other side failed, so that
    # no object is kept: still secret for the whole review (see aftershock.safety.secret_taint).
    secret_texts: frozenset[str] = field(default=frozenset(), repr=False)
    # Templates that failed in every render of the chart, left out at both refs (a render by template):
    # the rest is diffed and judged; these are not reviewed.
    templates_not_rendered: tuple[TemplateFailure, ...] = ()
    # Dependencies the chart rendered without at both refs: the rest is diffed and judged.
    dependencies_not_rendered: tuple[DependencyGap, ...] = ()
    # Templates that failed at base only and render at head (the change fixes them): left out at base,
    # their head objects show as added; never not reviewed.
    templates_fixed_at_head: tuple[TemplateFailure, ...] = ()
    # Keys (dotted) a scenario sets that its base was rendered without: new at head, the base's values
    # schema rejected them (pipeline/context/new_keys.py).
    keys_left_out_at_base: tuple[str, ...] = ()

    @property
    def partial(self) -> bool:
        return bool(self.templates_not_rendered or self.dependencies_not_rendered)

    @property
    def unstable_fields(self) -> int:
        """How many fields vary, whole or in some of their lines."""
        return len({(f.key, f.path) for f in self.unstable})

    @property
    def rejects_upgrade(self) -> bool:
        """An upgrade scenario (values as installs pass them at base) that renders at base and fails at
        head by Helm's own error, not in a template reading the cluster: the change rejects existing
        values. Observed, and judged by upgrade-values-rejected."""
        return (
            self.scenario.startswith(UPGRADE_PREFIX)
            and self.outcome is ChartOutcome.NOT_REVIEWED
            and self.base.status is RenderStatus.OK
            and self.head.status is RenderStatus.FAILED
            and is_deterministic_error(self.head.error or "")
            and not self.head.reads_cluster
        )

    @property
    def renders_differently(self) -> bool:
        """Whether the scenario's render differs between the refs: objects changed, or it renders at
        head only, where it failed at base (fixed)."""
        return self.outcome in (ChartOutcome.CHANGED, ChartOutcome.FIXED)

    @property
    def probe(self) -> bool:
        """A scenario of values made up to open the edited templates' guards (`guard:…`,
        `guards:edited`, and those with what a rejection demanded) or to show what the edit makes of
        a value (`probe:…`): it exercises and diffs the change; its objects hold made-up values, so
        no rule judges their values (one judges how they name each other: renamed-still-referenced)."""
        return self.scenario.startswith(PROBE_PREFIXES)

    @property
    def every_template(self) -> bool:
        """Whether both sides rendered every template of the chart (not a partial render, nor a test
        scenario rendering only its suite's templates): only then is an object's absence observed."""
        return self.base_inputs.templates.whole and self.head_inputs.templates.whole


# The scenario of a values file as it is at base rendered at head: `upgrade:<file>` (render/scenarios.py).
UPGRADE_PREFIX = "upgrade:"
# The scenario of a value a changed line re-expresses, made up for the edit to act on
# (render/value_probes.py): `probe:<path>=<value>`.
VALUE_PROBE_PREFIX = "probe:"
# The scenario of a test written to fail with a message a changed `fail` line holds
# (helmtest/suite_values.py): `fails:<suite file>/<test>`; the failure is what it is for.
FAILURE_PROBE_PREFIX = "fails:"
# Scenarios of made-up values: those that open guards (render/scenarios.py,
# render/range_shapes.py), value probes, and tests' values meant to fail.
PROBE_PREFIXES = ("guard:", "guards:", VALUE_PROBE_PREFIX, FAILURE_PROBE_PREFIX)


@dataclass(frozen=True)
class ScenarioSummary:
    """Which scenarios of a chart ran, which the cap cut, and in which ones the change shows."""

    chart: str
    ran: tuple[str, ...]
    cut: tuple[str, ...]


@dataclass(frozen=True)
class ChangedLines:
    """Consecutive changed lines of a template at one side, and the scenarios whose renders ran them.

    `evidence` says how it is known: "traced" (Helm ran a marker at their end: render/lookup/line_trace.py),
    "text" (their literal text is in a rendered object), or "none" (no render ran them: not
    exercised). `scenarios` is empty unless they ran."""

    path: str
    side: Side
    first: int
    last: int
    evidence: str
    scenarios: tuple[str, ...] = ()

    @property
    def lines(self) -> str:
        return f"{self.first}" if self.first == self.last else f"{self.first}-{self.last}"

    @property
    def exercised(self) -> bool:
        return self.evidence != "none"


@dataclass(frozen=True)
class NotReviewed:
    """A part of the change that could not be reviewed, and why. Never reported as fine.

    `context` marks a part that fails the same way at both refs and that the change reaches only
    through a weak edge (a chart that looks up what the change renders), a build whose edited
    files another render reads (pipeline/builds/covered_gaps.py), or a dependency no changed file
    reaches, of a chart the change reaches through another of its dependencies
    (pipeline/context/missing_dependencies.apart_from_change): listed apart, it neither makes the
    review partial nor lowers the verdicts' confidence."""

    part: str
    reason: str
    side: Side | None = None
    context: bool = False


@dataclass(frozen=True)
class ReviewOptions:
    release_name: str
    namespace: str
    renderer: str
    renderer_version: str
    kube_version: str | None = None


@dataclass(frozen=True)
class Review:
    repository: str
    base: RefInfo
    head: RefInfo
    options: ReviewOptions
    commits: tuple[Commit, ...]
    files: tuple[FileChange, ...]
    charts: tuple[Chart, ...]  # every chart found at head, then those only at base
    units: tuple[tuple[str, tuple[Unit, ...]], ...]  # file path -> units it maps to
    values_changes: tuple[ValuesKeyChange, ...]
    affected: tuple[AffectedChart, ...]
    chart_reviews: tuple[ChartReview, ...]
    not_reviewed: tuple[NotReviewed, ...] = ()
    scenarios: tuple[ScenarioSummary, ...] = ()
    tests: TestEvidence | None = None  # the affected charts' helm-unittest suites at base and head
    provenance: ProvenanceReport | None = (
        None  # which values keys and templates produce each changed field
    )
    # Default lists a template merges with overrides, rendered with a partial override (pipeline/observation/override_trap.py).
    override_probes: tuple[OverrideProbe, ...] = ()
    contexts: tuple[ChartContext, ...] = ()  # the render context of each affected chart, and why
    # Texts bound for a Secret that no rendered object shows (test expectations; see aftershock.safety.secret_taint).
    secret_texts: frozenset[str] = frozenset()
    base_charts: tuple[
        Chart, ...
    ] = ()  # the charts found at base (their versions, for what changed per chart)
    conventions: CommitConventions | None = None  # commit conventions the repository shows at base
    # The changed template lines of the charts rendered, and the scenarios that ran them.
    changed_lines: tuple[ChangedLines, ...] = ()
    # Field paths left out of "what changed" and the rollout rules (`review.ignore_fields`).
    ignored_fields: tuple[str, ...] = ()

    @property
    def added_paths(self) -> frozenset[str]:
        """The files the change adds (absent at base)."""
        return frozenset(f.path for f in self.files if f.status is FileStatus.ADDED)

    @property
    def complete(self) -> bool:
        """Whether every part the change itself touches was reviewed (context gaps aside)."""
        return not any(not gap.context for gap in self.not_reviewed)
