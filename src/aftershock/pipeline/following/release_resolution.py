"""One release a source declares, at base and head: the chart it installs and the values it passes
at each ref, its values diff (values a Secret supplies marked), and the path by which the change
reaches it; the chart plan that renders it when the change reaches it, or why it is not reviewed
(a cycle, a chart that cannot be had). Release following (pipeline/following/releases.py) asks this of every
release its sources declare.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from aftershock.diff.values_keys import diff_values, flatten
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import (
    ReleaseSpec,
    ResolvedRelease,
    release_id,
    release_label,
)
from aftershock.model.units import AffectedChart, AffectStep, ValuesKeyChange
from aftershock.pipeline.following.release_plans import Archives, chart_plan
from aftershock.pipeline.rendering.chart_jobs import SideInput
from aftershock.releases.chart_sources import DECLARED_SOURCE, chart_source_key
from aftershock.releases.parse import release_spec
from aftershock.releases.resolve import resolve_chart
from aftershock.releases.values import release_values, secret_values
from aftershock.render.external.chart_archives import ChartCache
from aftershock.render.external.external_charts import (
    changed_source_file,
    is_external,
    resolve_external,
)
from aftershock.render.plan import ChartPlan


@dataclass(frozen=True)
class ReleaseSource:
    """Where releases were found: a chart's render, or a plain manifest file."""

    id: str
    path: tuple[
        AffectStep, ...
    ]  # how the change reaches the source; empty for an unchanged manifest
    base_objects: tuple[RenderedObject, ...]
    head_objects: tuple[RenderedObject, ...]
    base_lookup: Mapping[ObjectKey, RenderedObject] = field(default_factory=dict)  # for valuesFrom
    head_lookup: Mapping[ObjectKey, RenderedObject] = field(default_factory=dict)
    scenario: str = "default"  # the source chart's scenario; its releases are reviewed in it too
    cluster: str | None = (
        None  # the cluster the source deploys to (a Flux Kustomization's), when known
    )
    tree: str | None = None  # the cluster tree its releases live in: part of their identity


class UnresolvedRelease(Exception):
    """A release the change reaches whose chart cannot be had, with its own values diff."""

    def __init__(self, error: AftershockError, values_changes: list[ValuesKeyChange]) -> None:
        super().__init__(error.line())
        self.error, self.values_changes = error, values_changes


class UnreachedRelease(Exception):
    """A release whose chart cannot be had, which the change does not reach."""


def plan_release(
    source: ReleaseSource,
    key: ObjectKey,
    base: SideInput,
    head: SideInput,
    affected: Mapping[str, AffectedChart],
    chart_map: Mapping[str, str],
    cache: ChartCache,
) -> tuple[tuple[ChartPlan, Archives] | None, list[ValuesKeyChange]]:
    """The plan rendering release `key` of `source` at both refs (None when the change reaches
    neither it nor its chart) and its values diff. UnresolvedRelease or UnreachedRelease when its
    chart cannot be had, AftershockError for a release cycle."""
    b = _resolve(source.base_objects, source.base_lookup, key, base, chart_map, cache)
    h = _resolve(source.head_objects, source.head_lookup, key, head, chart_map, cache)
    release = release_id(key, source.tree)
    _check_resolved(source, key, b, h)
    current = h or b
    assert current is not None and current.chart_path is not None  # no problem, so a chart
    chart_path = current.chart_path
    if chart_path == source.id or any(
        s.kind == "chart" and s.id == chart_path for s in source.path
    ):
        raise AftershockError(
            f"release cycle: {chart_path} installs itself through {key}", hint="break the cycle"
        )
    values_changes = diff_values(
        b.values if b else {}, h.values if h else {}, chart=chart_path, file=release_label(release)
    )
    values_changes = _marked_secret(
        values_changes,
        (b.secret_paths if b else frozenset()) | (h.secret_paths if h else frozenset()),
    )
    how = current.evidence.value + (f": version {current.chosen}" if current.chosen else "")
    through = _source_change(source, b, h)
    steps = _steps(source, release, chart_path, how, affected) or _through_source(
        release, chart_path, how, current.spec, through
    )
    # A chart source whose chart-deciding fields changed moves the release, whatever its versions.
    moved = (
        (b is None) != (h is None)
        or (
            b is not None
            and h is not None
            and (b.version, b.chart_path) != (h.version, h.chart_path)
        )
        or through is not None
    )
    if steps is None or (not values_changes and chart_path not in affected and not moved):
        return None, []
    plan = chart_plan(release, chart_path, b, h, (base, head), steps, source.cluster)
    return plan, list(values_changes)


def _check_resolved(
    source: ReleaseSource, key: ObjectKey, b: ResolvedRelease | None, h: ResolvedRelease | None
) -> None:
    """A release whose chart cannot be had is not reviewed when the change reaches it (its own values diff
    is still shown: UnresolvedRelease); one the change leaves alone is no gap of this review (UnreachedRelease)."""
    problems = [(side, r) for side, r in (("base", b), ("head", h)) if r is not None and r.problem]
    if not problems:
        return
    before = next((o.body for o in source.base_objects if o.key == key), None)
    after = next((o.body for o in source.head_objects if o.key == key), None)
    values = diff_values(
        b.values if b else {},
        h.values if h else {},
        chart=(h or b).chart_path or key.id,  # type: ignore[union-attr]
        file=release_label(release_id(key, source.tree)),
    )
    if before == after and not values and _source_change(source, b, h) is None:
        raise UnreachedRelease()
    side, resolved = problems[-1]
    raise UnresolvedRelease(
        AftershockError(str(resolved.problem), where=f"{key} at {side}"), list(values)
    )


def _source_change(
    source: ReleaseSource, b: ResolvedRelease | None, h: ResolvedRelease | None
) -> tuple[AffectStep, AffectStep] | None:
    """The changed file and the chart source in it, when the release's chart source changed."""
    resolved = h or b
    if resolved is None:
        return None
    changed = changed_source_file(resolved.spec, source.base_lookup, source.head_lookup)
    key = chart_source_key(resolved.spec)
    if changed is None or key is None:
        return None
    return AffectStep("file", changed, "changed"), AffectStep("object", key.id, DECLARED_SOURCE)


def _through_source(
    release: str,
    chart_path: str,
    how: str,
    spec: ReleaseSpec,
    changed: tuple[AffectStep, AffectStep] | None,
) -> tuple[AffectStep, ...] | None:
    """The path to the downstream render when only the release's chart source changed: the file,
    the source object, the release reading its chart from it, the chart."""
    if changed is None:
        return None
    return (
        *changed,
        AffectStep(
            "release", release, f"reads its chart from {spec.source_kind} {spec.source_name}"
        ),
        AffectStep("chart", chart_path, f"installed by the release ({how})"),
    )


def _marked_secret(
    changes: Sequence[ValuesKeyChange], secret_paths: frozenset[str]
) -> tuple[ValuesKeyChange, ...]:
    """Changes of values a Secret supplies (or of maps holding them) marked `secret`."""
    if not secret_paths:
        return tuple(changes)

    def holds_secret(path: str) -> bool:
        return any(
            p == path or p.startswith(path + ".") or path.startswith(p + ".") for p in secret_paths
        )

    return tuple(replace(c, secret=True) if holds_secret(c.path) else c for c in changes)


def _steps(
    source: ReleaseSource,
    release: str,
    chart_path: str,
    evidence: str,
    affected: Mapping[str, AffectedChart],
) -> tuple[AffectStep, ...] | None:
    """The path to the downstream render: through the source when the change reaches it, else through
    the downstream chart itself; None when the change reaches neither."""
    if source.path:
        return source.path + (
            AffectStep("release", release, f"declared by {source.id}"),
            AffectStep("chart", chart_path, f"installed by the release ({evidence})"),
        )
    if chart_path in affected:
        return affected[chart_path].path + (
            AffectStep("release", release, f"installs it with its values ({evidence})"),
        )
    return None


def _resolve(
    objects: Sequence[RenderedObject],
    lookup: Mapping[ObjectKey, RenderedObject],
    key: ObjectKey,
    side: SideInput,
    chart_map: Mapping[str, str],
    cache: ChartCache,
) -> ResolvedRelease | None:
    tree, charts = side
    obj = next((o for o in objects if o.key == key), None)
    if obj is None:
        return None
    spec = release_spec(obj)
    assert spec is not None
    path, evidence, problem = resolve_chart(spec, charts, chart_map)
    if problem and is_external(spec):
        return resolve_external(spec, lookup, tree.text_or_none, cache)
    if problem:
        return ResolvedRelease(
            spec, None, evidence, _values_or_empty(spec, lookup, tree), problem=problem
        )
    secret_paths = frozenset(p for p, _ in flatten(secret_values(spec, lookup)))
    return ResolvedRelease(
        spec,
        path,
        evidence,
        release_values(spec, lookup, tree.text_or_none, path),
        secret_paths=secret_paths,
    )


def _values_or_empty(
    spec: ReleaseSpec, lookup: Mapping[ObjectKey, RenderedObject], tree: RefSnapshot
) -> dict[str, Any]:
    """The values a release passes, for its values diff even when its chart cannot be resolved."""
    try:
        return release_values(spec, lookup, tree.text_or_none, None)
    except AftershockError:
        return {}
