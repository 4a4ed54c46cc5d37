"""Reading a Flux HelmRelease or an Argo CD Application object into a ReleaseSpec.

A field the controller needs as a list (`valuesFrom`, `valueFiles`) that is something else raises
MalformedInputError naming it, so the release is *not reviewed* with the reason; `declares_release`
tells which objects are releases without reading them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.gocompat import yamlio
from aftershock.model.errors import MalformedInputError
from aftershock.model.objects import RenderedObject
from aftershock.model.releases import ReleaseKind, ReleaseSpec, ValuesReference

FLUX_GROUP = "helm.toolkit.fluxcd.io"
ARGO_GROUP = "argoproj.io"


def declares_release(obj: RenderedObject) -> bool:
    return (obj.key.group, obj.key.kind) in (
        (FLUX_GROUP, "HelmRelease"),
        (ARGO_GROUP, "Application"),
    )


def release_spec(obj: RenderedObject) -> ReleaseSpec | None:
    """The release an object declares, or None when it is not a HelmRelease or an Application."""
    if obj.key.group == FLUX_GROUP and obj.key.kind == "HelmRelease":
        return _flux(obj)
    if obj.key.group == ARGO_GROUP and obj.key.kind == "Application":
        return _argo(obj)
    return None


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any, field: str, obj: RenderedObject) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise MalformedInputError(
            f"{field} is a {type(value).__name__}, not a list",
            where=str(obj.key),
            hint=f"make {field} a list",
        )
    return value


def _flux(obj: RenderedObject) -> ReleaseSpec:
    spec = _map(obj.body.get("spec"))
    chart_spec = _map(_map(spec.get("chart")).get("spec"))
    source = _map(chart_spec.get("sourceRef")) or _map(spec.get("chartRef"))
    target = spec.get("targetNamespace")
    default_name = f"{target}-{obj.key.name}" if target else obj.key.name
    refs = tuple(
        ValuesReference(
            kind=str(r.get("kind", "")),
            name=str(r.get("name", "")),
            values_key=str(r.get("valuesKey") or "values.yaml"),
            target_path=str(r["targetPath"]) if r.get("targetPath") else None,
            optional=bool(r.get("optional", False)),
        )
        for r in _list(spec.get("valuesFrom"), "spec.valuesFrom", obj)
        if isinstance(r, dict)
    )
    kube = _map(_map(spec.get("kubeConfig")).get("secretRef")).get("name")
    return ReleaseSpec(
        key=obj.key,
        kind=ReleaseKind.FLUX,
        chart=str(chart_spec["chart"])
        if chart_spec.get("chart")
        else (str(source.get("name")) if source else None),
        source_kind=str(source.get("kind")) if source.get("kind") else None,
        source_name=str(source.get("name")) if source.get("name") else None,
        release_name=str(spec.get("releaseName") or default_name),
        namespace=str(target or obj.key.namespace or "default"),
        values=_map(spec.get("values")),
        values_from=refs,
        cluster=str(kube) if kube else None,
        version=str(chart_spec["version"]) if chart_spec.get("version") else None,
        source_namespace=str(source["namespace"]) if source.get("namespace") else None,
    )


def _argo(obj: RenderedObject) -> ReleaseSpec:
    spec = _map(obj.body.get("spec"))
    sources = [
        _map(s) for s in _list(spec.get("sources"), "spec.sources", obj) if isinstance(s, dict)
    ] or [_map(spec.get("source"))]
    source = next((s for s in sources if s.get("path")), sources[0])
    helm = _map(source.get("helm"))
    values = dict(_argo_values(helm.get("values"), obj))
    values = _merge(values, _map(helm.get("valuesObject")))
    files = tuple(
        ValuesReference(kind="File", name=str(f))
        for f in _list(helm.get("valueFiles"), "helm.valueFiles", obj)
        if isinstance(f, str)
    )
    destination = _map(spec.get("destination"))
    return ReleaseSpec(
        key=obj.key,
        kind=ReleaseKind.ARGO,
        chart=str(source["path"]) if source.get("path") else source.get("chart"),
        source_kind="argo",
        source_name=str(source.get("repoURL") or ""),
        release_name=str(helm.get("releaseName") or obj.key.name),
        namespace=str(destination.get("namespace") or "default"),
        values=values,
        values_from=files,
        cluster=str(destination.get("name") or destination.get("server") or "") or None,
        version=str(source["targetRevision"])
        if source.get("chart") and source.get("targetRevision")
        else None,
        repository=str(source["repoURL"])
        if source.get("chart") and source.get("repoURL")
        else None,
    )


def _argo_values(text: Any, obj: RenderedObject) -> Mapping[str, Any]:
    if isinstance(text, dict):
        return text
    if not isinstance(text, str) or not text.strip():
        return {}
    data = yamlio.load_one(text, source=f"spec.source.helm.values of {obj.key}")
    if not isinstance(data, dict):
        raise MalformedInputError(
            "helm.values is not a mapping", where=str(obj.key), hint="fix the Application"
        )
    return data


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    from aftershock.releases.values import merge_maps

    return merge_maps(base, over)
