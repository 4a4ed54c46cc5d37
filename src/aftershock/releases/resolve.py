"""Which chart of this repository a release installs: stated by path (observed) or matched by name (inferred)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping

from aftershock.model.releases import Evidence, ReleaseKind, ReleaseSpec
from aftershock.model.units import Chart


def resolve_chart(
    spec: ReleaseSpec, charts: Iterable[Chart], mapping: Mapping[str, str] | None = None
) -> tuple[str | None, Evidence, str | None]:
    """(chart path, evidence, problem). A GitRepository or Argo path is observed, and so is a chart the
    configuration maps the release's chart or source name to; a name match is inferred."""
    renderable = {c.path: c for c in charts if c.renderable}
    if spec.chart is None:
        return None, Evidence.OBSERVED, f"{spec.key} names no chart"
    mapped = _mapped(spec, mapping or {})
    if mapped is not None:
        if mapped in renderable:
            return mapped, Evidence.OBSERVED, None
        return (
            None,
            Evidence.OBSERVED,
            f"the configuration maps {spec.key} to {mapped!r}, which is no renderable chart",
        )
    if spec.kind is ReleaseKind.ARGO or spec.source_kind in ("GitRepository", "Bucket"):
        path = (
            posixpath.normpath(spec.chart.strip("/").removeprefix("./"))
            if spec.chart not in (".", "./")
            else ""
        )
        if path in renderable:
            return path, Evidence.OBSERVED, None
        return (
            None,
            Evidence.OBSERVED,
            f"chart path {spec.chart!r} of {spec.key} is no chart in this repository",
        )
    matches = sorted(
        c.path
        for c in renderable.values()
        if spec.chart in (c.name, posixpath.basename(c.path)) or spec.release_name == c.name
    ) or _suffix_matches(spec, renderable.values())
    if len(matches) == 1:
        return matches[0], Evidence.INFERRED, None
    if not matches:
        return (
            None,
            Evidence.INFERRED,
            (
                f"chart {spec.chart!r} from {spec.source_kind} {spec.source_name} of {spec.key} matches no chart in this repository"
            ),
        )
    return (
        None,
        Evidence.INFERRED,
        f"chart {spec.chart!r} of {spec.key} matches several charts: {', '.join(matches)}",
    )


def _suffix_matches(spec: ReleaseSpec, charts: Iterable[Chart]) -> list[str]:
    """A generated name (`<platform>-<group>-<app>`, an ExternalArtifact or OCIRepository named after
    the app) that names no chart exactly: the charts whose name or folder it ends with, else those
    whose folder the release name matches."""
    chart = spec.chart or ""
    ends = sorted(
        c.path
        for c in charts
        if any(
            n and chart.endswith((f"-{n}", f"/{n}")) for n in (c.name, posixpath.basename(c.path))
        )
    )
    return ends or sorted(c.path for c in charts if posixpath.basename(c.path) == spec.release_name)


def _mapped(spec: ReleaseSpec, mapping: Mapping[str, str]) -> str | None:
    """`releases.charts` of the configuration, by chart name, then source name, then release name."""
    for name in (spec.chart, spec.source_name, spec.release_name, spec.key.name):
        if name and name in mapping:
            return mapping[name].strip("/")
    return None
