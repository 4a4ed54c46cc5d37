"""Rule values-release-override-trap: a release that sets one of a chart's default lists will not get
the entries the change adds to it (an existing partial override replaces all new defaults rather than
extending them).

Helm merges a release's values over the chart's defaults map by map but replaces a list as a whole, and
so do Sprig's merge functions in templates (`mergeOverwrite` of a defaults path with an overrides path).
The rule reads the review only: the changes of each chart's values.yaml, each release install of the
chart (a followed release, or the release context the chart rendered in) with the values it rendered
with and its objects at head, and from the sources the merge calls of the chart's templates and the
value sets of its helm-unittest suites. It never renders.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from aftershock.diff.fields import identity_field
from aftershock.diff.values import deep_equal
from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Location,
    PathStep,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.gocompat.yamlnodes import key_line
from aftershock.helmtest.suite_values import suite_file_values
from aftershock.model.contexts import ContextKind
from aftershock.model.objects import RenderedObject
from aftershock.model.releases import release_label
from aftershock.model.review import ChartReview, RenderStatus, Review
from aftershock.model.units import ValuesKeyChangeKind
from aftershock.provenance.merges import merge_calls, override_path
from aftershock.releases.values import value_at
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.sources import files_under, library_dependencies

_SHOWN = 5  # missed entries named in a message
_DEFAULT = "default"  # the default scenario's name (render/scenarios.py)
_RELEASE_CONTEXT = (
    "release:"  # the name prefix of a release context (pipeline/context/installers.py)
)


@dataclass(frozen=True)
class _DefaultList:
    """A list of a chart's values.yaml that the change adds or changes entries of."""

    chart: str
    file: str
    path: tuple[str, ...]
    before: list[Any] = field(hash=False, compare=False)
    new: list[Any] = field(hash=False, compare=False)  # entries of head no base entry equals
    identity: str | None = None


@dataclass(frozen=True)
class _Replacer:
    """A values path whose list replaces the default list: the list's own (Helm's merge of values) or
    the override side of a template merge."""

    path: tuple[str, ...]
    via: str  # how it replaces, for the message
    template: str | None = None


@dataclass(frozen=True)
class _Trap:
    """One release that sets a replacing list and misses new default entries."""

    default: _DefaultList
    replacer: _Replacer
    release: str
    install: ChartReview
    missed: tuple[Any, ...]
    existing: bool  # the release set the list at base already
    widened: bool  # at base it already missed default entries
    shown_in: RenderedObject | None  # where the release's own entries render (observed), or None


def _values_file(chart: str) -> str:
    return f"{chart}/values.yaml" if chart else "values.yaml"


def _default_lists(review: Review) -> Iterator[_DefaultList]:
    for change in review.values_changes:
        if (
            change.chart is None
            or change.secret
            or change.file != _values_file(change.chart)
            or change.kind not in (ValuesKeyChangeKind.ADDED, ValuesKeyChangeKind.CHANGED)
            or '"' in change.path
            or not isinstance(change.after, list)
        ):
            continue
        before = change.before if isinstance(change.before, list) else []
        new = [e for e in change.after if not any(deep_equal(e, b) for b in before)]
        if new:
            path = tuple(change.path.split("."))
            yield _DefaultList(
                change.chart, change.file, path, before, new, identity_field(change.after)
            )


def _installs(review: Review) -> Iterator[tuple[str, ChartReview]]:
    """(release id, default-scenario review) of each release install of a chart, once each."""
    contexts = {
        c.chart: c.name.removeprefix(_RELEASE_CONTEXT)
        for c in review.contexts
        if c.kind is ContextKind.RELEASE and c.name and c.name.startswith(_RELEASE_CONTEXT)
    }
    seen: set[tuple[str, str]] = set()
    for chart_review in review.chart_reviews:
        release = chart_review.release or contexts.get(chart_review.chart)
        if chart_review.scenario != _DEFAULT or release is None:
            continue
        if (chart_review.chart, release) not in seen:
            seen.add((chart_review.chart, release))
            yield release, chart_review


def _replacers(ctx: RuleContext, default: _DefaultList) -> list[_Replacer]:
    found = [_Replacer(default.path, "Helm merges values map by map and replaces a list")]
    for folder in (default.chart, *library_dependencies(ctx.review, default.chart)):
        templates = f"{folder}/templates" if folder else "templates"
        for template, text in files_under(ctx.sources.head, templates, (".yaml", ".yml", ".tpl")):
            for call in merge_calls(text):
                over = override_path(call, default.path)
                if over is not None and all(over != r.path for r in found):
                    where = f"{call.function} in {template.rsplit('/', 1)[-1]}:{call.line}"
                    found.append(_Replacer(over, where, template))
    return found


def _same(entry: Any, other: Any, identity: str | None) -> bool:
    if identity and isinstance(entry, dict) and isinstance(other, dict) and identity in other:
        return deep_equal(entry.get(identity), other.get(identity))
    return deep_equal(entry, other)


def _holds(node: Any, entry: Any) -> bool:
    """Whether a rendered body holds the entry as an item of some list."""
    if isinstance(node, list):
        return any(deep_equal(item, entry) or _holds(item, entry) for item in node)
    if isinstance(node, dict):
        return any(_holds(value, entry) for value in node.values())
    return False


def _rendered_in(objects: Sequence[RenderedObject], entry: Any) -> RenderedObject | None:
    return next((o for o in objects if _holds(o.body, entry)), None)


def _tested(ctx: RuleContext, chart: str, path: Sequence[str]) -> str | None:
    """The head helm-unittest suite of the chart that renders a partial override there (sets a
    list), if one does."""
    folder = f"{chart}/tests" if chart else "tests"
    for suite, _ in files_under(ctx.sources.head, folder, ("_test.yaml",)):
        if "/" in suite[len(folder) + 1 :]:
            continue
        if any(
            isinstance(value_at(values, path), list)
            for _, values in suite_file_values(suite, ctx.sources.head.get)
        ):
            return suite
    return None


def _trap(
    default: _DefaultList, replacer: _Replacer, release: str, install: ChartReview
) -> _Trap | None:
    own = value_at(install.head_inputs.values, replacer.path)
    if not isinstance(own, list):
        return None
    missed = [e for e in default.new if not any(_same(e, o, default.identity) for o in own)]
    rendered = install.head.status is RenderStatus.OK
    if rendered:  # a template that adds the defaults anyway (concat) renders them
        missed = [e for e in missed if _rendered_in(install.head_objects, e) is None]
    if not missed:
        return None
    at_base = value_at(install.base_inputs.values, replacer.path)
    existing = isinstance(at_base, list)
    widened = existing and any(
        not any(_same(e, o, default.identity) for o in at_base) for e in default.before
    )
    shown_in = None
    if rendered and install.every_template and not install.partial:
        shown_in = next(
            (o for e in own if (o := _rendered_in(install.head_objects, e)) is not None), None
        )
    return _Trap(default, replacer, release, install, tuple(missed), existing, widened, shown_in)


def _label(entry: Any, identity: str | None) -> str:
    if identity and isinstance(entry, dict) and identity in entry:
        return str(entry[identity])
    return str(entry)[:80]


def _names(labels: Sequence[str]) -> str:
    shown = ", ".join(labels[:_SHOWN])
    return shown + (f" and {len(labels) - _SHOWN} more" if len(labels) > _SHOWN else "")


def _message(trap: _Trap, labels: Sequence[str]) -> str:
    key, sets = ".".join(trap.default.path), ".".join(trap.replacer.path)
    sets_text = f"already sets {sets}" if trap.existing else f"sets {sets} (new with this change)"
    partial = "an existing partial override" if trap.existing else "a partial override"
    seen = (
        f" (observed: rendered with its values at head, {trap.shown_in.key} has none of them)"
        if trap.shown_in
        else " (inferred from its values: its render does not show the list)"
    )
    return (
        f"{release_label(trap.release)} {sets_text}, which replaces the default list {key} of "
        f"{trap.default.file} as a whole ({trap.replacer.via}): {partial} replaces all new defaults "
        f"rather than extending them, so the release will not get {_names(labels)}{seen}"
    )


def _concern(ctx: RuleContext, trap: _Trap, suite: str | None = None) -> Concern:
    """The trap's concern; a chart test that sets the list pins the replacement and guards none
    of the new defaults, so it is said, not taken for safety."""
    default, replacer = trap.default, trap.replacer
    labels = sorted({_label(e, default.identity) for e in trap.missed})
    key, sets = ".".join(default.path), ".".join(replacer.path)
    text = ctx.sources.head.get(default.file)
    path = [
        PathStep("file", default.file, "changed"),
        PathStep("values_key", key, f"default list gains {len(labels)} entries"),
        *((PathStep("file", replacer.template, replacer.via),) if replacer.template else ()),
        PathStep("release", trap.release, f"sets {sets}"),
        *(
            (PathStep("object", trap.shown_in.key.id, "rendered without them"),)
            if trap.shown_in
            else ()
        ),
    ]
    return Concern(
        subject=Subject(
            SubjectKind.VALUES_KEY,
            f"{default.file}#{key}",
            f"{key} in {default.file}",
            trap.release,
        ),
        message=_message(trap, labels)
        + (
            f"; the chart's test {suite} sets the list too: it pins the replacement but guards "
            "none of the new defaults"
            if suite
            else ""
        ),
        delta=Delta.WIDENED if trap.widened else Delta.INTRODUCED,
        location=Location(default.file, key_line(text, default.path) if text else None),
        path=tuple(path),
        facts=(
            Fact("release", trap.release),
            Fact("list", key),
            Fact("set_at", sets),
            Fact("missed", labels),
            Fact("existing_override", trap.existing),
        ),
        evidence=Evidence.OBSERVED if trap.shown_in else Evidence.INFERRED,
        scope_paths=(default.chart, default.file, *filter(None, (replacer.template,))),
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    defaults = list(_default_lists(ctx.review))
    if not defaults or not ctx.sources.head:
        return  # without the sources, a test of the override cannot be seen
    installs = list(_installs(ctx.review))
    for default in defaults:
        for replacer in _replacers(ctx, default):
            for release, install in installs:
                if install.chart != default.chart:
                    continue
                trap = _trap(default, replacer, release, install)
                if trap is not None:
                    yield _concern(ctx, trap, _tested(ctx, default.chart, replacer.path))


RULE = Rule(
    id="values-release-override-trap",
    title="Release's partial override misses new default list entries",
    category=Category.RELIABILITY,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    needs_sources=True,
    check=check,
    doc=RuleDoc(
        what="Lists of a chart's values.yaml that the change adds or changes entries of, when a release of "
        "the repository that installs the chart (a Flux HelmRelease or Argo CD Application, rendered or in "
        "plain manifests) sets that list in its own values, or sets the override side of a template merge "
        "of it (`mergeOverwrite`/`merge` of `defaults.x.env` with `overrides.x.env`, in the chart or a library "
        "it includes): the release replaces the list and does not get the new entries it does not repeat. "
        "One Low concern per list and release, naming the entries it misses; observed when the release's "
        "render at head shows its own entries and none of the new ones, inferred when only its values are "
        "read. Entries the release already lists (by name, key, ...) or that its render shows anyway (a "
        "template that appends the defaults) are not missed. A helm-unittest test of the chart that sets a "
        "list at the same path shows the trap, it does not make it safe: the concern names the test, which "
        "pins the replacement and guards none of the new defaults.",
        why="The change looks complete: its default reaches every install that does not override the list. "
        "Releases that override one entry (a log level, one extra host) keep their old list and silently "
        "miss the new default, an environment variable or a toleration that the change meant for all; the "
        "review shows them as unchanged. It is Low because nothing breaks at render time and the release may "
        "mean to own its list; it stays a concern on every push until the release or the chart changes.",
        example="    # charts/web/values.yaml: env gains OTEL_ENDPOINT\n    env:\n      - {name: LOG_LEVEL, "
        "value: info}\n      - {name: OTEL_ENDPOINT, value: http://otel:4317}\n    # apps/web.yaml "
        "(HelmRelease): spec.values.env: [{name: LOG_LEVEL, value: debug}] keeps LOG_LEVEL only",
        fix="Repeat the new entries in the release's list, or move defaults that must reach every install "
        "out of the overridable list (an `extraEnv` the template appends with `concat`), or merge the list "
        "by name in the template; a chart test that renders the override documents the intended result.",
    ),
)
