"""What a followed release renders: its chart at each side (the repository's, or an external chart's
archive unpacked beside the materialised tree), with the values, release name and namespace it passes,
and the cluster it deploys to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from aftershock.model.change import Side
from aftershock.model.releases import ResolvedRelease
from aftershock.model.units import AffectedChart, AffectStep, Chart, ChartType
from aftershock.pipeline.rendering.chart_jobs import SideInput
from aftershock.render.external.chart_archives import ExternalChart, unpack
from aftershock.render.plan import ChartPlan, RenderInputs

Archives = tuple[tuple[Side, ExternalChart, bytes], ...]


def unpack_external(plans: Sequence[tuple[ChartPlan, Archives]], work: Path) -> None:
    """External charts' archives unpacked where their side's render reads them (beside the materialised tree)."""
    for plan, archives in plans:
        for side, chart, data in archives:
            target = plan.base if side is Side.BASE else plan.head
            assert target is not None
            unpack(data, chart, work / side.value / target.path)


def chart_plan(
    release: str,
    chart_path: str,
    b: ResolvedRelease | None,
    h: ResolvedRelease | None,
    sides: tuple[SideInput, SideInput],
    steps: tuple[AffectStep, ...],
    source_cluster: str | None = None,
) -> tuple[ChartPlan, Archives]:
    charts_base: Mapping[str, Chart] = {c.path: c for c in sides[0][1]}
    charts_head: Mapping[str, Chart] = {c.path: c for c in sides[1][1]}
    chart_b = _chart(b, charts_base)
    chart_h = _chart(h, charts_head)
    archives = tuple(
        (side, _external_of(r, c), r.archive)
        for side, r, c in ((Side.BASE, b, chart_b), (Side.HEAD, h, chart_h))
        if r is not None and r.archive is not None and c is not None
    )
    chart, current = chart_h or chart_b, h or b
    assert chart is not None and current is not None, f"{chart_path} is at neither ref"
    return ChartPlan(
        path=chart_path,
        name=chart.name,
        affected=AffectedChart(chart_path, steps),
        base=chart_b,
        head=chart_h,
        release=release,
        base_inputs=_inputs(b),
        head_inputs=_inputs(h),
        cluster=_cluster(current, source_cluster),
    ), archives


EXTERNAL_FOLDER = (
    ".aftershock-charts"  # where external charts are unpacked, beside the materialised tree
)


def _chart(resolved: ResolvedRelease | None, charts: Mapping[str, Chart]) -> Chart | None:
    """The chart a release installs on one side: the repository's, or an external archive's."""
    if resolved is None or resolved.chart_path is None:
        return None
    if resolved.archive is None:
        return charts.get(resolved.chart_path)
    name = resolved.chart_path.rsplit("/", 1)[-1]
    return Chart(
        f"{EXTERNAL_FOLDER}/{name}-{resolved.version}",
        name,
        str(resolved.version),
        ChartType.APPLICATION,
        "v2",
        source=resolved.chart_path,  # its objects and templates are named by it, not the folder
    )


def _external_of(resolved: ResolvedRelease, chart: Chart) -> ExternalChart:
    return ExternalChart(resolved.chart_path.rsplit("/", 1)[0], chart.name, chart.version)  # type: ignore[union-attr]


def _cluster(resolved: ResolvedRelease, source_cluster: str | None = None) -> str:
    """The cluster a release deploys to: its kubeConfig secret or Argo destination, else the controller's own
    (the cluster of the Flux Kustomization that applies it, when one does)."""
    spec = resolved.spec
    if spec.cluster:
        return (
            f"kubeconfig {spec.cluster}" if spec.kind.value == "flux_helmrelease" else spec.cluster
        )
    return source_cluster or "in-cluster"


def _inputs(resolved: ResolvedRelease | None) -> RenderInputs:
    if resolved is None:
        return RenderInputs()
    return RenderInputs(
        dict(resolved.values),
        resolved.spec.release_name,
        resolved.spec.namespace,
        private=bool(resolved.secret_paths),
    )
