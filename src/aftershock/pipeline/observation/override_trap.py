"""The override-trap stage: render charts whose templates merge values with overrides, with a
synthetic partial override of a default list, and observe which default entries disappear.

For each affected chart rendered in its default scenario, the merge calls of its templates (and of
the library charts it includes) are read at head (`provenance.merges`). A default list of the
chart's values.yaml that such a merge takes as defaults is probed when the change touches the list
or the template holding the merge: the chart is rendered at head with the merge's override side set
to a one-entry list (`{name: aftershock-probe}`), and default entries found in the default render
but not in that one are "dropped". When the list and the merge exist at base too, the same probe at
base tells what the change did to the trap. Renders are bounded per review; probes over the bound
are returned as CUT. Side effects: reads the materialised workspaces and renders with Helm.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aftershock.diff.fields import diff_documents
from aftershock.diff.values import deep_equal
from aftershock.diff.values_keys import parse_values
from aftershock.gocompat.yamlnodes import key_line
from aftershock.model.diff import FieldChangeKind
from aftershock.model.errors import AftershockError
from aftershock.model.objects import RenderedObject
from aftershock.model.override import (
    PROBE_NAME,
    DroppedEntry,
    MergeSite,
    OverrideProbe,
    ProbeStatus,
)
from aftershock.model.review import ChartReview, RenderStatus, Review
from aftershock.model.units import Chart
from aftershock.pipeline.observation.merge_sites import MergeSites, join, read_text
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, chart_request
from aftershock.pipeline.rendering.side_results import rendered_objects
from aftershock.provenance.define_defaults import define_defaults, key_line_in
from aftershock.provenance.merges import (
    DEFINE,
    Pattern,
    default_lists,
    override_path,
    probe_entry,
)
from aftershock.releases.values import merge_maps
from aftershock.render.interface import Renderer, RenderOutcome, RenderRequest
from aftershock.render.plan import RenderInputs

DEFAULT_MAX_PROBE_RENDERS = 12  # per review, base and head probes together


@dataclass(frozen=True)
class _Side:
    """One ref of a probe: the default list there and the default render to compare with."""

    entries: list[Any] = field(hash=False, compare=False)
    objects: tuple[RenderedObject, ...] = field(hash=False, compare=False)


@dataclass(frozen=True)
class _Candidate:
    chart: Chart
    values_file: str
    values_path: Pattern
    override: Pattern
    site: MergeSite
    probe: Any = field(hash=False, compare=False)
    identity: str | None = None
    values_line: int | None = None
    head: _Side | None = None
    base: _Side | None = None  # None: the list or its merge is not at base
    # What the probed review rendered with at each side (its render context): the probe goes on top.
    head_inputs: RenderInputs = field(default=RenderInputs(), hash=False, compare=False)
    base_inputs: RenderInputs = field(default=RenderInputs(), hash=False, compare=False)


def probe_override_traps(
    review: Review,
    base_root: Path,
    head_root: Path,
    renderer: Renderer,
    max_renders: int = DEFAULT_MAX_PROBE_RENDERS,
) -> tuple[OverrideProbe, ...]:
    """Probe every default list of the review's charts that a merge replaces; at most `max_renders` renders.

    `base_root`/`head_root` hold the charts as the review materialised them (`<root>/<chart path>`).
    """
    charts = {chart.path: chart for chart in review.charts}
    changed = {path for f in review.files for path in (f.path, f.old_path) if path}
    sites = MergeSites()
    candidates = sorted(
        (
            c
            for r in _probed_reviews(review, head_root)
            for c in _candidates(review, r, charts, changed, (base_root, head_root), sites)
        ),
        key=lambda c: (c.chart.path, c.values_path, c.override),
    )
    settings = RenderSettings(
        review.options.release_name, review.options.namespace, review.options.kube_version
    )
    planned: list[tuple[_Candidate, RenderRequest | None, RenderRequest | None]] = []
    used = 0
    for candidate in candidates:
        override = _nested(candidate.override, [candidate.probe])
        head_inputs = replace(
            candidate.head_inputs, values=merge_maps(candidate.head_inputs.values, override)
        )
        head = (
            chart_request(candidate.chart, head_root, head_inputs, settings)
            if used < max_renders
            else None
        )
        used += head is not None
        wants_base = head is not None and candidate.base is not None and used < max_renders
        base_inputs = replace(
            candidate.base_inputs, values=merge_maps(candidate.base_inputs.values, override)
        )
        base = (
            chart_request(candidate.chart, base_root, base_inputs, settings) if wants_base else None
        )
        used += base is not None
        planned.append((candidate, head, base))
    requests = [r for _, head, base in planned for r in (head, base) if r is not None]
    outcomes = iter(renderer.render_many(requests) if requests else [])
    probes = []
    for candidate, head, base in planned:
        head_outcome = next(outcomes) if head is not None else None
        base_outcome = next(outcomes) if base is not None else None
        probes.append(_probe(candidate, head_outcome, base_outcome, charts))
    return tuple(probes)


def _probed_reviews(review: Review, head_root: Path) -> Iterator[ChartReview]:
    """The default-scenario review of each chart that rendered at head in its context, and of each
    release install of a chart the review materialised, once per chart and release."""
    seen: set[tuple[str, str | None]] = set()
    for chart_review in review.chart_reviews:
        key = (chart_review.chart, chart_review.release)
        if chart_review.release is not None and not (head_root / chart_review.chart).is_dir():
            continue
        if (
            chart_review.scenario == "default"
            and chart_review.head.status is RenderStatus.OK
            and key not in seen
        ):
            seen.add(key)
            yield chart_review


def _candidates(
    review: Review,
    chart_review: ChartReview,
    charts: Mapping[str, Chart],
    changed: set[str],
    roots: tuple[Path, Path],
    merge_sites: MergeSites,
) -> Iterator[_Candidate]:
    base_root, head_root = roots
    chart = charts.get(chart_review.chart)
    if chart is None:
        return
    sites = merge_sites.of_chart(head_root, chart, charts)
    if not sites:
        return
    values_file = join(chart.path, "values.yaml")
    text = read_text(head_root / values_file)
    touched = {c.path for c in review.values_changes if c.file == values_file}
    base_sites = (
        merge_sites.of_chart(base_root, chart, charts)
        if chart_review.base.status is RenderStatus.OK
        else []
    )
    base_lists = (
        dict(default_lists(_values(read_text(base_root / values_file)))) if base_sites else {}
    )
    seen: set[tuple[Pattern, Pattern]] = set()
    for path, entries in default_lists(_values(text)):
        for site, call in sites:
            override = override_path(call, path)
            if (
                override is None
                or (path, override) in seen
                or not (_touches(path, touched) or site.template in changed)
            ):
                continue
            probe = probe_entry(entries, PROBE_NAME)
            if probe is None:
                continue
            seen.add((path, override))
            at_base = path in base_lists and any(
                override_path(c, path) == override for _, c in base_sites
            )
            yield _candidate(
                chart_review,
                chart,
                (values_file, path, key_line(text, path)),
                (site, override, probe),
                entries,
                base_lists[path] if at_base else None,
            )
    yield from _define_candidates(chart_review, chart, charts, changed, roots, merge_sites)


def _define_candidates(
    chart_review: ChartReview,
    chart: Chart,
    charts: Mapping[str, Chart],
    changed: set[str],
    roots: tuple[Path, Path],
    merge_sites: MergeSites,
) -> Iterator[_Candidate]:
    """Default lists a define builds (`include "app.defaults" . | fromYaml`) that a merge lets the
    user's values replace, probed like those of values.yaml when the change touches the define or
    the merge. The list is named `@<define>.<path>` and lives in the define's template."""
    base_root, head_root = roots
    seen: set[tuple[Pattern, Pattern]] = set()
    for site, call in merge_sites.of_chart(head_root, chart, charts):
        if not call.defaults or not call.defaults[0].startswith(DEFINE):
            continue
        name = call.defaults[0][len(DEFINE) :]
        found = merge_sites.define(head_root, chart, charts, name)
        tree = define_defaults(found[1]) if found else None
        if found is None or tree is None or not {found[0], site.template} & changed:
            continue
        at_base = merge_sites.define(base_root, chart, charts, name)
        base_tree = define_defaults(at_base[1]) if at_base else None
        base_lists = dict(default_lists(base_tree)) if base_tree else {}
        for path, entries in default_lists(tree):
            values_path = (call.defaults[0], *path)
            override = override_path(call, values_path)
            probe = probe_entry(entries, PROBE_NAME)
            if override is None or probe is None or (values_path, override) in seen:
                continue
            seen.add((values_path, override))
            yield _candidate(
                chart_review,
                chart,
                (found[0], values_path, key_line_in(found[1], found[2], path[-1])),
                (site, override, probe),
                entries,
                base_lists.get(path) if chart_review.base.status is RenderStatus.OK else None,
            )


def _candidate(
    chart_review: ChartReview,
    chart: Chart,
    where: tuple[str, Pattern, int | None],
    how: tuple[MergeSite, Pattern, tuple[Any, str | None]],
    entries: list[Any],
    base_entries: list[Any] | None,
) -> _Candidate:
    """A candidate: the default list (`where`: file, path, line), the merge and the probe (`how`),
    its entries at head and, when it and its merge exist there, at base."""
    (file, path, line), (site, override, probe) = where, how
    return _Candidate(
        chart,
        file,
        path,
        override,
        site,
        probe[0],
        probe[1],
        line,
        head=_Side(entries, chart_review.head_objects),
        base=_Side(base_entries, chart_review.base_objects) if base_entries is not None else None,
        head_inputs=chart_review.head_inputs,
        base_inputs=chart_review.base_inputs,
    )


def _list_name(path: Pattern) -> str:
    """`defaults.orders.env`, or `env of define app.defaults` for a list a define builds."""
    if path and path[0].startswith(DEFINE):
        return f"{'.'.join(path[1:])} of define {path[0][len(DEFINE) :]}"
    return ".".join(path)


def _probe(
    candidate: _Candidate,
    head: RenderOutcome | None,
    base: RenderOutcome | None,
    charts: Mapping[str, Chart],
) -> OverrideProbe:
    probe = OverrideProbe(
        chart=candidate.chart.path,
        values_file=candidate.values_file,
        values_path=_list_name(candidate.values_path),
        override_path=".".join(candidate.override),
        site=candidate.site,
        status=ProbeStatus.CUT,
        probe_entry=candidate.probe,
        values_line=candidate.values_line,
        base_present=candidate.base is not None,
    )
    if head is None or candidate.head is None:
        return probe
    probe = replace(probe, renders=1 + (base is not None))
    dropped, error = _observe(head, candidate.head, candidate, charts)
    if error is not None:
        return replace(probe, status=ProbeStatus.FAILED, error=error)
    base_dropped = None
    if base is not None and candidate.base is not None:
        at_base, base_error = _observe(base, candidate.base, candidate, charts)
        base_dropped = None if base_error is not None else tuple(sorted({d.entry for d in at_base}))
    status = ProbeStatus.DROPPED if dropped else ProbeStatus.KEPT
    return replace(probe, status=status, dropped=dropped, base_dropped=base_dropped)


def _observe(
    outcome: RenderOutcome,
    side: _Side,
    candidate: _Candidate,
    charts: Mapping[str, Chart],
) -> tuple[tuple[DroppedEntry, ...], str | None]:
    """The default entries the probe render lost compared with the default render, or the error."""
    if not outcome.ok:
        return (), (outcome.error or "render failed").splitlines()[0][:300]
    try:
        probed = {o.key: o for o in rendered_objects(outcome, candidate.chart, charts)}
    except AftershockError as error:
        return (), error.line()
    return dropped_entries(side.objects, probed, side.entries, candidate.identity), None


def dropped_entries(
    defaults: Sequence[RenderedObject],
    probed: Mapping[Any, RenderedObject],
    entries: Sequence[Any],
    identity: str | None,
) -> tuple[DroppedEntry, ...]:
    """Default entries removed (or replaced) in the probe render, by object and list field."""
    found: dict[tuple[str, str, str], DroppedEntry] = {}
    for obj in defaults:
        other = probed.get(obj.key)
        if other is None:
            continue
        for change in diff_documents(obj.body, other.body):
            if (
                change.kind not in (FieldChangeKind.REMOVED, FieldChangeKind.MODIFIED)
                or not change.path_parts
            ):
                continue
            entry = next((e for e in entries if _same_entry(e, change.before, identity)), None)
            if entry is None or (
                change.kind is FieldChangeKind.MODIFIED
                and _same_entry(entry, change.after, identity)
            ):
                continue
            list_path = change.path[: len(change.path) - len(change.path_parts[-1])].rstrip(".")
            label = str(entry[identity]) if identity else str(entry)[:80]
            dropped = DroppedEntry(label, obj.key.id, str(obj.key), list_path, obj.template)
            found.setdefault((obj.key.id, list_path, label), dropped)
    return tuple(found[k] for k in sorted(found))


def _same_entry(entry: Any, rendered: Any, identity: str | None) -> bool:
    if identity and isinstance(entry, dict) and isinstance(rendered, dict) and identity in rendered:
        return deep_equal(entry.get(identity), rendered.get(identity))
    return deep_equal(entry, rendered)


def _touches(path: Pattern, changed_paths: set[str]) -> bool:
    """Whether a values change of the change is at, inside or above the list."""
    dotted = ".".join(path)
    return any(
        p == dotted or p.startswith(dotted + ".") or dotted.startswith(p + ".")
        for p in changed_paths
    )


def _nested(path: Pattern, value: Any) -> dict[str, Any]:
    """Values holding `value` at `path` (never empty: override_path keeps a key past the defaults)."""
    *parents, last = path
    result: dict[str, Any] = {last: value}
    for key in reversed(parents):
        result = {key: result}
    return result


def _values(text: str) -> Mapping[str, Any]:
    try:
        return parse_values(text, source="values.yaml")
    except AftershockError:
        return {}
