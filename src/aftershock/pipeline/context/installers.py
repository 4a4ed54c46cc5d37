"""Release following run backwards: the releases of this repository that install a given chart.

A platform chart often renders only with the values its installing release passes (a Flux
HelmRelease or an Argo CD Application, in a plain manifest or rendered by another chart of the
repository). For each chart asked about, this finds those releases at base and at head and turns each
into a render context: the release's values (valuesFrom included), release name and namespace.
Charts that render releases are rendered once per side with their defaults to find them; one that
does not render is read statically (releases/static_read.py), so the chart it installs still gets
its real release name and namespace, without the values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from aftershock.ingest.gitops.manifests import PlainManifests
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.change import Side
from aftershock.model.contexts import ContextKind, RenderInputs
from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import release_id
from aftershock.pipeline.following.values_sources import with_value_sources
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, SideInput
from aftershock.pipeline.rendering.charts import one_side_plan, render_side, side_objects
from aftershock.releases.parse import declares_release, release_spec
from aftershock.releases.resolve import resolve_chart
from aftershock.releases.static_read import static_releases
from aftershock.releases.values import release_values, secret_values
from aftershock.render.contexts import ContextCandidate
from aftershock.render.interface import Renderer, RenderOutcome
from aftershock.render.plan import ChartPlan

_DECLARES_RELEASE = re.compile(r"^\s*kind:\s*[\"']?(HelmRelease|Application)\b", re.M)
MAX_RELEASE_CHARTS = 20  # charts rendered per side only to find the releases they declare
_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl")


@dataclass(frozen=True)
class Installer:
    """A release that installs `chart`, as a render context."""

    chart: str
    release: str  # the release's id (model.releases.release_id)
    candidate: ContextCandidate


@dataclass(frozen=True)
class _Found:
    """One release object at one side, where it was found, and the objects its valuesFrom can read."""

    obj: RenderedObject
    where: str
    lookup: Mapping[ObjectKey, RenderedObject]
    tree: str | None = None  # the cluster of a plain manifest: part of the release's id
    static: bool = False  # read from a template without rendering it: identity only, no values


def find_installers(
    targets: Iterable[str],
    base: SideInput,
    head: SideInput,
    plain: tuple[PlainManifests, PlainManifests],
    chart_map: Mapping[str, str],
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    rendered: Callable[[RenderOutcome], None] | None = None,
) -> dict[str, list[Installer]]:
    """Chart path -> the releases that install it (ordered by release key), for each of `targets`."""
    wanted = set(targets)
    if not wanted:
        return {}
    per_side: dict[Side, dict[tuple[str, str], tuple[_Found, str]]] = {}
    known: dict[str, bool] = {}  # template blob sha: declares a release (read once for both refs)
    for side, side_input, manifests in ((Side.BASE, base, plain[0]), (Side.HEAD, head, plain[1])):
        renders, rendered_charts = _rendered_releases(
            side, side_input, manifests, renderer, settings, work, rendered, known
        )
        found = _plain_releases(manifests) + renders
        shared = with_value_sources(
            (f.obj for f in found),
            {k: v for f in found for k, v in f.lookup.items()},
            rendered_charts,
            side,
            side_input,
            renderer,
            settings,
            work / "values-sources",
            rendered,
        )
        # valuesFrom reads what any chart of this side renders; the release's own render wins.
        found = [replace(f, lookup={**shared, **f.lookup}) for f in found]
        per_side[side] = _resolve_all(found, side_input, wanted, chart_map)
    keys = sorted(set(per_side[Side.BASE]) | set(per_side[Side.HEAD]))
    result: dict[str, list[Installer]] = {}
    for chart, release in keys:
        b = per_side[Side.BASE].get((chart, release))
        h = per_side[Side.HEAD].get((chart, release))
        inputs = {
            side: _inputs(entry, side_input, chart)
            for side, entry, side_input in ((Side.BASE, b, base), (Side.HEAD, h, head))
        }
        first = b or h
        assert first is not None
        what = (
            "its release name and namespace (its values are not known)"
            if first[0].static
            else "its values, release name and namespace"
        )
        reason = f"{what}; {first[0].where}, chart {first[1]}"
        candidate = ContextCandidate(
            ContextKind.RELEASE, f"release:{release}", reason, inputs[Side.BASE], inputs[Side.HEAD]
        )
        result.setdefault(chart, []).append(Installer(chart, release, candidate))
    return result


def _plain_releases(manifests: PlainManifests) -> list[_Found]:
    lookup = {o.key: o for o in manifests.all_objects()}
    return [
        _Found(o, f"plain manifest {o.template}", lookup, manifests.clusters.of(o.template))
        for o in manifests.all_objects()
        if declares_release(o)
    ]


def _declares_release(text: str) -> bool:
    # the plain substring test first: most templates of a fleet name neither kind
    return ("HelmRelease" in text or "Application" in text) and bool(_DECLARES_RELEASE.search(text))


def _charts_declaring(
    tree: RefSnapshot, chart_paths: Iterable[str], known: dict[str, bool]
) -> frozenset[str]:
    """The charts whose templates declare a release, each template blob read once (`known`)."""
    return tree.scan_templates(chart_paths, _TEMPLATE_SUFFIXES, _declares_release, known)[0]


def _rendered_releases(
    side: Side,
    side_input: SideInput,
    manifests: PlainManifests,
    renderer: Renderer,
    settings: RenderSettings,
    work: Path,
    rendered: Callable[[RenderOutcome], None] | None,
    known: dict[str, bool],
) -> tuple[list[_Found], set[str]]:
    """Releases rendered, with their defaults, by the charts of this side whose templates declare one,
    and the charts rendered; a chart that does not render (or is over the cap) is read statically."""
    tree, charts = side_input
    plans: list[ChartPlan] = []
    unrendered: list[tuple[str, str]] = []  # (chart path, why it was not rendered)
    declaring = _charts_declaring(tree, [c.path for c in charts if c.renderable], known)
    for chart in charts:
        if chart.path not in declaring or not chart.renderable:
            continue
        if len(plans) < MAX_RELEASE_CHARTS:
            plans.append(one_side_plan(chart, side, "installers"))
        else:
            unrendered.append((chart.path, f"over the {MAX_RELEASE_CHARTS} charts rendered"))
    if not plans:
        return _static_found(tree, unrendered, settings.namespace), set()
    plain = {o.key: o for o in manifests.all_objects()}
    found = []
    for plan, (outcome, error) in zip(
        plans,
        render_side(
            plans, side, side_input, renderer, settings, work / f"installers-{side.value}", rendered
        ),
    ):
        if outcome is None or error is not None:
            unrendered.append((plan.path, "it does not render with its defaults"))
            continue
        objects = side_objects(outcome, plan, side, charts)
        lookup = {**plain, **{o.key: o for o in objects}}
        found += [
            _Found(o, f"rendered by chart {plan.path}", lookup)
            for o in objects
            if declares_release(o)
        ]
    return found + _static_found(tree, unrendered, settings.namespace), {p.path for p in plans}


def _templates(chart_path: str) -> str:
    return f"{chart_path}/templates" if chart_path else "templates"


def _static_found(
    tree: RefSnapshot, unrendered: Sequence[tuple[str, str]], namespace: str
) -> list[_Found]:
    """The releases whose identity the templates of charts that were not rendered hold literally."""
    found = []
    for chart_path, why in unrendered:
        for path in tree.tree.paths_under(_templates(chart_path)):
            text = tree.text_or_none(path) if path.endswith(_TEMPLATE_SUFFIXES) else None
            for obj in static_releases(path, text or "", chart_path, namespace):
                where = f"read from template {path} (chart {chart_path} not rendered: {why})"
                found.append(_Found(obj, where, {}, static=True))
    return found


def _resolve_all(
    found: Sequence[_Found],
    side_input: SideInput,
    wanted: set[str],
    chart_map: Mapping[str, str],
) -> dict[tuple[str, str], tuple[_Found, str]]:
    """(chart, release id) -> the release and its evidence; a fleet's clusters each have their own."""
    resolved: dict[tuple[str, str], tuple[_Found, str]] = {}
    for entry in found:
        try:
            spec = release_spec(entry.obj)
        except AftershockError:
            continue  # a malformed release: release following reports it as not reviewed
        if spec is None:
            continue
        path, evidence, problem = resolve_chart(spec, side_input[1], chart_map)
        if path is not None and problem is None and path in wanted:
            release = release_id(entry.obj.key, entry.tree)
            resolved.setdefault((path, release), (entry, evidence.value))
    return resolved


def _inputs(
    entry: tuple[_Found, str] | None, side_input: SideInput, chart: str
) -> RenderInputs | None:
    if entry is None:
        return None
    found, _ = entry
    try:
        spec = release_spec(found.obj)
        assert spec is not None
        values = release_values(spec, found.lookup, side_input[0].text_or_none, chart)
    except AftershockError:
        return None  # a valuesFrom source is missing: the release is reported by release following
    # Values a valuesFrom Secret supplies make the render private: never written to the disk cache.
    return RenderInputs(
        values, spec.release_name, spec.namespace, private=bool(secret_values(spec, found.lookup))
    )
