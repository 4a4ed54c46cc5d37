"""The values a controller passes to Helm: Flux's `valuesFrom` layering, then inline values on top."""

from __future__ import annotations

import base64
import binascii
import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aftershock.gocompat import yamlio
from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import ReleaseSpec, ValuesReference

FileReader = Callable[[str], str | None]  # repository path -> text, None when absent


class ReleaseValuesError(AftershockError):
    """A release's values cannot be computed (a missing valuesFrom object, a malformed document)."""


def merge_maps(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Helm's MergeMaps (used by Flux): maps merge recursively, anything else in `over` replaces."""
    result = copy.deepcopy(dict(base))
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merge_maps(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def value_at(values: Mapping[str, Any], path: Sequence[str], default: Any = None) -> Any:
    """The value at a key path of a values tree, `default` when a key is absent or a value on the way
    is not a map."""
    node: Any = values
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return default
        node = node[key]
    return node


def release_values(
    spec: ReleaseSpec,
    objects: Mapping[ObjectKey, RenderedObject],
    read_file: FileReader,
    chart_path: str | None,
) -> dict[str, Any]:
    """Merge each `valuesFrom` source in order, then `spec.values` last, as Flux's helm-controller does."""
    result: dict[str, Any] = {}
    for ref in spec.values_from:
        document = _reference_text(spec, ref, objects, read_file, chart_path)
        if document is None:
            continue
        result = _apply(result, ref, document, spec)
    return merge_maps(result, spec.values)


def secret_values(spec: ReleaseSpec, objects: Mapping[ObjectKey, RenderedObject]) -> dict[str, Any]:
    """The values the release's `valuesFrom` Secrets supply, merged in order (for redaction only:
    a reference that cannot be read is left out here, `release_values` reports it)."""
    result: dict[str, Any] = {}
    for ref in spec.values_from:
        if ref.kind != "Secret":
            continue
        obj = objects.get(ObjectKey("", ref.kind, spec.key.namespace, ref.name))
        text = _object_value(obj, ref.values_key) if obj is not None else None
        if text is None:
            continue
        try:
            result = _apply(result, ref, text, spec)
        except AftershockError:
            continue
    return result


def _apply(
    result: dict[str, Any], ref: ValuesReference, text: str, spec: ReleaseSpec
) -> dict[str, Any]:
    if ref.target_path:
        return merge_maps(result, _at_path(ref.target_path, text))
    data = yamlio.load_one(
        text, source=f"{ref.kind}/{ref.name} key {ref.values_key} for {spec.key}"
    )
    if data is None:
        return result
    if not isinstance(data, dict):
        raise ReleaseValuesError(
            f"values from {ref.kind}/{ref.name} are not a mapping", where=str(spec.key)
        )
    return merge_maps(result, data)


def _at_path(path: str, value: str) -> dict[str, Any]:
    """`a.b.c` -> {"a": {"b": {"c": value}}}; Flux sets a targetPath value as a string."""
    node: dict[str, Any] = {}
    parts = path.split(".")
    current = node
    for part in parts[:-1]:
        current = current.setdefault(part, {})
    current[parts[-1]] = value
    return node


def _reference_text(
    spec: ReleaseSpec,
    ref: ValuesReference,
    objects: Mapping[ObjectKey, RenderedObject],
    read_file: FileReader,
    chart_path: str | None,
) -> str | None:
    if ref.kind == "File":
        path = f"{chart_path}/{ref.name}" if chart_path else ref.name
        text = read_file(path)
        if text is None:
            raise ReleaseValuesError(
                f"value file {path} not found", where=str(spec.key), hint="add it or fix valueFiles"
            )
        return text
    obj = objects.get(ObjectKey("", ref.kind, spec.key.namespace, ref.name))
    text = _object_value(obj, ref.values_key) if obj is not None else None
    if text is None and not ref.optional:
        raise ReleaseValuesError(
            f"valuesFrom {ref.kind}/{ref.name} key {ref.values_key} not found in the render or the repository",
            where=str(spec.key),
            hint="add the object, or mark the reference optional",
        )
    return text


def _object_value(obj: RenderedObject, key: str) -> str | None:
    if obj.key.kind == "Secret":
        string_data = _data(obj, "stringData")
        if key in string_data:
            return str(string_data[key])
        encoded = _data(obj, "data").get(key)
        if encoded is None:
            return None
        try:
            return base64.b64decode(str(encoded)).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    value = _data(obj, "data").get(key)
    return None if value is None else str(value)


def _data(obj: RenderedObject, field: str) -> Mapping[str, Any]:
    value = obj.body.get(field)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ReleaseValuesError(
            f"{obj.key.kind}/{obj.key.name} {field} is a {type(value).__name__}, not a mapping",
            where=str(obj.key),
            hint=f"make {field} a mapping of keys to values",
        )
    return value
