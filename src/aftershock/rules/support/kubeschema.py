"""Kubernetes object schemas, offline: the OpenAPI-derived JSON schemas the `kubernetes-validate` package
ships per Kubernetes version (strict: unknown fields are errors), and CRD `openAPIV3Schema`s found in
the reviewed objects; and a validator for them.

The validator is hand-written for speed (the `jsonschema` package takes about 1.8 ms per Deployment,
which would multiply the rule pass) and covers exactly the keywords those schemas use: type, enum,
properties, additionalProperties, items, required, oneOf/anyOf/allOf, $ref, and the value bounds of
CRD schemas (minimum, maximum, lengths, pattern, item counts). `oneOf` is read as `anyOf` (the two
forms of IntOrString and Quantity both accept null, which `oneOf` would refuse), and a required
field set to null is missing, as the API server reads it. tests/rules/test_rules_object_schema.py checks
it against `jsonschema` on the same objects.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from aftershock.rules.support.schemavalid import compiled_predicate

_REF_MARK = (
    "#/$defs/"  # "/api/_definitions.json#/$defs/NAME" from a kind's file, "#/$defs/NAME" inside
)
_SCHEMA_ROOT = "kubernetes-json-schema"
MAX_ERRORS = 5  # per object: the first errors say enough


@dataclass(frozen=True)
class SchemaError:
    path: str  # e.g. spec.template.spec.containers[0].bogus
    message: str


@lru_cache(maxsize=1)
def _package_root() -> Path:
    """The `kubernetes-validate` package's schema folder, found without importing the package
    (its import loads `jsonschema` and `referencing`, a tenth of a review's start-up)."""
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("kubernetes_validate")
    return Path(spec.submodule_search_locations[0])


@lru_cache(maxsize=1)
def schema_versions() -> tuple[tuple[int, int], ...]:
    """The Kubernetes minor versions with strict schemas in the package, oldest first."""
    root = _package_root() / _SCHEMA_ROOT
    found = []
    for entry in root.iterdir():
        match = re.fullmatch(r"v(\d+)\.(\d+)\.0-local-strict", entry.name)
        if match:
            found.append((int(match.group(1)), int(match.group(2))))
    return tuple(sorted(found))


@lru_cache(maxsize=64)
def schema_version(target: tuple[int, int]) -> tuple[int, int]:
    """The newest schema version not newer than `target` (the oldest one for older targets)."""
    versions = schema_versions()
    older = [v for v in versions if v <= target]
    return older[-1] if older else versions[0]


@lru_cache(maxsize=4)
def _definitions(version: tuple[int, int]) -> Mapping[str, Any]:
    folder = _package_root() / _SCHEMA_ROOT / f"v{version[0]}.{version[1]}.0-local-strict"
    definitions = json.loads((folder / "_definitions.json").read_text(encoding="utf-8"))["$defs"]
    if not isinstance(definitions, dict):
        raise ValueError(f"{folder}/_definitions.json: $defs is not an object")
    return definitions


@lru_cache(maxsize=4)
def builtin_kinds(version: tuple[int, int]) -> frozenset[tuple[str, str, str]]:
    """(group, version, kind) of every built-in kind the schemas of `version` know."""
    return frozenset(
        (str(gvk.get("group", "")), str(gvk.get("version", "")), str(gvk.get("kind", "")))
        for definition in _definitions(version).values()
        if isinstance(definition, dict)
        for gvk in definition.get("x-kubernetes-group-version-kind") or ()
        if isinstance(gvk, dict)
    )


@lru_cache(maxsize=512)
def builtin_schema(
    version: tuple[int, int], api_version: str, kind: str
) -> Mapping[str, Any] | None:
    """The strict schema of a built-in kind at `version`, or None when Kubernetes has no such kind."""
    group, _, ver = api_version.rpartition("/")
    prefix = f"{group.split('.', 1)[0]}-" if group else ""
    folder = _package_root() / _SCHEMA_ROOT / f"v{version[0]}.{version[1]}.0-local-strict"
    entry = folder / f"{kind.lower()}-{prefix}{ver}.json"
    if not entry.is_file():
        return None
    schema = json.loads(entry.read_text(encoding="utf-8"))
    if not isinstance(schema, dict):
        return None
    gvk = schema.get("x-kubernetes-group-version-kind") or [{}]
    if not any(g.get("group", "") == group and g.get("kind") == kind for g in gvk):
        return (
            None  # the file names of kinds that share a name across groups collide (e.g. "events")
        )
    return schema


def crd_schemas(objects: Iterator[Any]) -> dict[tuple[str, str, str], Mapping[str, Any]]:
    """(group, version, kind) -> the schema of each served version of the CRDs among `objects`; the
    last CRD of a kind gives it, read once (a chart's CRDs render in each of its scenarios)."""
    found: dict[tuple[str, str, str], Any] = {}
    for obj in objects:
        if obj.key.group != "apiextensions.k8s.io" or obj.key.kind != "CustomResourceDefinition":
            continue
        spec = obj.body.get("spec") if isinstance(obj.body.get("spec"), dict) else {}
        group, kind = str(spec.get("group", "")), str((spec.get("names") or {}).get("kind", ""))
        for version in spec.get("versions") or ():
            if isinstance(version, dict) and version.get("name"):
                schema = ((version.get("schema") or {}).get("openAPIV3Schema")) or {
                    "type": "object"
                }
                found[(group, str(version["name"]), kind)] = schema
    return {gvk: _structural(schema, top=True) for gvk, schema in found.items()}


def _structural(schema: Any, top: bool = False) -> Any:
    """A CRD's OpenAPI v3 schema as the validator reads it: x-kubernetes-int-or-string and nullable as
    types, preserved unknown fields as anything, and metadata left to the API server."""
    if not isinstance(schema, dict):
        return {}
    out = {
        k: v
        for k, v in schema.items()
        if k
        in (
            "type",
            "enum",
            "required",
            "minimum",
            "maximum",
            "minLength",
            "maxLength",
            "pattern",
            "minItems",
            "maxItems",
        )
    }
    if schema.get("x-kubernetes-int-or-string"):
        out["type"] = ["integer", "string"]
    if schema.get("nullable") and "type" in out:
        out["type"] = [*([out["type"]] if isinstance(out["type"], str) else out["type"]), "null"]
    if schema.get("x-kubernetes-preserve-unknown-fields") and "properties" not in schema:
        return {k: v for k, v in out.items() if k == "type"}
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {
            k: _structural(v)
            for k, v in schema["properties"].items()
            if not (top and k == "metadata")
        }
    if isinstance(schema.get("additionalProperties"), dict):
        out["additionalProperties"] = _structural(schema["additionalProperties"])
    if isinstance(schema.get("items"), dict):
        out["items"] = _structural(schema["items"])
    for keyword in ("oneOf", "anyOf", "allOf"):
        if isinstance(schema.get(keyword), list):
            out[keyword] = [_structural(option) for option in schema[keyword]]
    return out


NO_DEFINITIONS: Mapping[str, Any] = MappingProxyType({})  # a CRD schema refers to nothing


def validate(
    value: Any, schema: Mapping[str, Any], definitions: Mapping[str, Any]
) -> list[SchemaError]:
    """The first `MAX_ERRORS` errors of `value` against `schema`. Most objects are valid: they are
    checked by the schema's compiled predicate alone (schemavalid.py); only an invalid one is walked
    again to say where and why."""
    if compiled_predicate(schema, definitions)(value):
        return []
    errors: list[SchemaError] = []
    for error in _check(value, schema, definitions, ""):
        errors.append(error)
        if len(errors) >= MAX_ERRORS:
            break
    return errors


def validate_builtin(
    body: Mapping[str, Any], schema: Mapping[str, Any], version: tuple[int, int]
) -> list[SchemaError]:
    return validate(body, schema, _definitions(version))


_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _check(
    value: Any, schema: Mapping[str, Any], defs: Mapping[str, Any], path: str
) -> Iterator[SchemaError]:
    ref = schema.get("$ref")
    if ref is not None:
        target = defs.get(ref.rpartition(_REF_MARK)[2]) if _REF_MARK in ref else None
        if target is not None:
            yield from _check(value, target, defs, path)
    kind = schema.get("type")
    if kind is not None:
        kinds = (kind,) if isinstance(kind, str) else kind
        if not any(_TYPES.get(k, lambda v: True)(value) for k in kinds):
            yield SchemaError(
                path or "(object)",
                f"is {_describe(value)}, not {' or '.join(k for k in kinds if k != 'null')}",
            )
            return
    if "enum" in schema and value not in schema["enum"] and value is not None:
        yield SchemaError(
            path or "(object)", f"is {value!r}, not one of {', '.join(map(repr, schema['enum']))}"
        )
    for keyword in ("oneOf", "anyOf"):
        if keyword in schema and not any(
            not _first(value, option, defs) for option in schema[keyword]
        ):
            yield SchemaError(
                path or "(object)",
                f"is {_describe(value)}, which matches none of the allowed forms",
            )
    for option in schema.get("allOf", ()):
        yield from _check(value, option, defs, path)
    if isinstance(value, dict):
        yield from _check_object(value, schema, defs, path)
    elif isinstance(value, list):
        yield from _check_array(value, schema, defs, path)
    else:
        yield from _check_bounds(value, schema, path)


def _first(value: Any, schema: Mapping[str, Any], defs: Mapping[str, Any]) -> SchemaError | None:
    return next(_check(value, schema, defs, ""), None)


def _check_object(
    value: dict[Any, Any], schema: Mapping[str, Any], defs: Mapping[str, Any], path: str
) -> Iterator[SchemaError]:
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    for key in schema.get("required", ()):
        if value.get(key) is None:
            yield SchemaError(_join(path, key), "is required")
    for key, item in value.items():
        child = _join(path, str(key))
        if key in properties:
            yield from _check(item, properties[key], defs, child)
        elif extra is False:
            yield SchemaError(child, "is not a field of this object")
        elif isinstance(extra, dict):
            yield from _check(item, extra, defs, child)


def _check_array(
    value: list[Any], schema: Mapping[str, Any], defs: Mapping[str, Any], path: str
) -> Iterator[SchemaError]:
    if "minItems" in schema and len(value) < schema["minItems"]:
        yield SchemaError(path, f"has {len(value)} items, fewer than {schema['minItems']}")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        yield SchemaError(path, f"has {len(value)} items, more than {schema['maxItems']}")
    items = schema.get("items")
    if isinstance(items, dict):
        for index, item in enumerate(value):
            yield from _check(item, items, defs, f"{path}[{index}]")


def _check_bounds(value: Any, schema: Mapping[str, Any], path: str) -> Iterator[SchemaError]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            yield SchemaError(path, f"is {value}, below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            yield SchemaError(path, f"is {value}, above the maximum {schema['maximum']}")
    elif isinstance(value, str):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            yield SchemaError(path, f"is longer than {schema['maxLength']} characters")
        if "minLength" in schema and len(value) < schema["minLength"]:
            yield SchemaError(path, f"is shorter than {schema['minLength']} characters")
        pattern = schema.get("pattern")
        if pattern and _search(pattern, value) is False:
            yield SchemaError(path, f"does not match the pattern {pattern}")


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None  # an ECMA pattern Python cannot read: not judged


def _search(pattern: str, value: str) -> bool | None:
    compiled = _compiled(pattern)
    return None if compiled is None else bool(compiled.search(value))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) <= 40 else "a string"
    return "a map" if isinstance(value, dict) else "a list"
