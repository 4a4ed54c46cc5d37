"""Release identity read from a chart's template files without rendering them.

A chart that installs other charts (Flux HelmReleases, Argo CD Applications in its templates) often
renders only on its platform. Its releases still name the charts they install, with the release name
and namespace, in literal text: a document of a template is read as YAML with every line holding a
template action left out, and a release whose kind, name, namespace and chart reference are all
literal then is one. Its values are not known (they are left out: they are what a render gives),
so only its identity is: `static_releases` says where it was read.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from aftershock.gocompat.yamlio import load_one
from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.releases.parse import ARGO_GROUP, FLUX_GROUP

_DOCUMENT_SEPARATOR = re.compile(r"^---[^\n]*$", re.M)
_DECLARES = re.compile(r"^\s*kind:\s*[\"']?(HelmRelease|Application)\b", re.M)
_KINDS = {(FLUX_GROUP, "HelmRelease"), (ARGO_GROUP, "Application")}


def static_releases(path: str, text: str, chart: str, namespace: str) -> list[RenderedObject]:
    """The releases of one template file whose identity is literal text, values left out; one
    without a literal namespace is in `namespace`, as the chart's render with defaults puts it."""
    found = []
    for index, document in enumerate(_DOCUMENT_SEPARATOR.split(text)):
        if not _DECLARES.search(document):
            continue
        literal = "\n".join(
            line for line in document.splitlines() if "{{" not in line and "}}" not in line
        )
        try:
            body = load_one(literal, source=path)
        except AftershockError:
            continue  # what is left is no YAML: the release is not literal enough
        obj = _release(body, path, chart, index, namespace)
        if obj is not None:
            found.append(obj)
    return found


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _release(
    body: Any, path: str, chart: str, index: int, default_namespace: str
) -> RenderedObject | None:
    if not isinstance(body, dict):
        return None
    api_version, kind = str(body.get("apiVersion", "")), str(body.get("kind", ""))
    group = api_version.split("/", 1)[0] if "/" in api_version else ""
    meta, spec = _map(body.get("metadata")), _map(body.get("spec"))
    name, namespace = meta.get("name"), meta.get("namespace")
    if (group, kind) not in _KINDS or not isinstance(name, str) or not name:
        return None
    if kind == "HelmRelease":
        # a template's release without a literal namespace lands in the installer's, unknown here
        known = isinstance(spec.get("targetNamespace") or namespace, str)
        chart_ref = _map(_map(spec.get("chart")).get("spec")).get("chart") or _map(
            spec.get("chartRef")
        ).get("name")
    else:
        known = isinstance(_map(spec.get("destination")).get("namespace"), str)
        sources = [_map(spec.get("source")), *map(_map, spec.get("sources") or [])]
        chart_ref = next((s.get("path") or s.get("chart") for s in sources if s), None)
    if not known or not isinstance(chart_ref, str):
        return None
    return RenderedObject(
        ObjectKey(
            group, kind, namespace if isinstance(namespace, str) else default_namespace, name
        ),
        api_version,
        _without_values(body),
        chart,
        path,
        index,
    )


def _without_values(body: dict[str, Any]) -> dict[str, Any]:
    """The release with its values left out: lines holding template actions were dropped from
    them, so what is left of them is not what the controller passes."""
    result = copy.deepcopy(body)
    spec = result.get("spec")
    if not isinstance(spec, dict):
        return result
    spec.pop("values", None)
    spec.pop("valuesFrom", None)
    sources = [spec.get("source"), *(spec.get("sources") or [])]
    for source in sources:
        helm = source.get("helm") if isinstance(source, dict) else None
        if isinstance(helm, dict):
            for field in ("values", "valuesObject", "parameters", "valueFiles"):
                helm.pop(field, None)
    return result
