"""Go's view of decoded YAML values: number formatting, `%v`, type names and deep equality.

helm-unittest compares and prints values as Go does, so an int is never equal to a float, a
float prints in strconv's shortest 'g' form (`1e+06`), and `isType` names types by reflection
(`map[string]interface {}`). Python's `True == 1` and `1 == 1.0` must not leak in.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from aftershock.gocompat.goyaml import GoUint


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest decimal digits that read back as `value` (> 0) and the decimal point's place."""
    _, digit_tuple, exponent = Decimal(repr(value)).as_tuple()
    text = "".join(map(str, digit_tuple))
    point = len(text) + int(exponent)
    stripped = text.lstrip("0")
    point -= len(text) - len(stripped)
    return stripped.rstrip("0") or "0", point


def format_float(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 64)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    digits, point = _shortest_digits(abs(value))
    exponent = point - 1
    if exponent < -4 or exponent >= 6:  # Go's shortest 'g' switches to %e at 1e6
        fraction = f".{digits[1:]}" if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{fraction}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    whole = digits[:point].ljust(point, "0")
    fraction = digits[point:]
    return f"{sign}{whole}.{fraction}" if fraction else f"{sign}{whole}"


def yaml_float(value: float) -> str:
    """How yaml.v3 writes a float64."""
    text = format_float(value)
    return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)


def format_scalar(value: Any) -> str:
    """The plain text yaml.v3 emits for a non-string scalar."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, GoUint):
        return str(value.value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return yaml_float(value)
    return str(value)


def after_yaml_roundtrip(value: Any) -> Any:
    """`value` after helm-unittest's encode-then-decode (GetValueOfSetPath does one per path).

    yaml.v3 writes a float64 in 'g' form, so `2.0` becomes `2` and reads back as an int.
    """
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value):
            text = format_float(value)
            if "e" not in text:
                return int(text)
        return value
    if isinstance(value, dict):
        return {key: after_yaml_roundtrip(item) for key, item in value.items()}
    if isinstance(value, list):
        return [after_yaml_roundtrip(item) for item in value]
    return value


def stringify_keys(mapping: dict[Any, Any]) -> dict[str, Any]:
    """A mapping decoded into Go's `map[string]interface{}`: every key becomes its YAML text."""
    return {
        key if isinstance(key, str) else format_scalar(key): item for key, item in mapping.items()
    }


def stringify_keys_deep(value: Any) -> Any:
    """`value` as values reach Helm's templates (through JSON): every mapping key, at any depth, is
    its YAML text, so a map mixing `1:` or `true:` with string keys orders and encodes like any other."""
    if isinstance(value, dict):
        return {
            key if isinstance(key, str) else format_scalar(key): stringify_keys_deep(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [stringify_keys_deep(item) for item in value]
    return value


def go_type_name(value: Any) -> str:
    """reflect.TypeOf(value).String() for a value go-yaml v3 decoded; "" for nil."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, GoUint):
        return "uint64"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value):
            return "map[string]interface {}"
        return "map[interface {}]interface {}"
    return type(value).__name__


def sprint(value: Any) -> str:
    """fmt.Sprintf("%v", value) for decoded YAML values."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, GoUint):
        return str(value.value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + " ".join(sprint(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: (not isinstance(key, str), sprint(key)))
        return "map[" + " ".join(f"{sprint(key)}:{sprint(value[key])}" for key in keys) + "]"
    return str(value)


def deep_equal(left: Any, right: Any) -> bool:
    """reflect.DeepEqual on decoded YAML values: types must match exactly (1 != 1.0 != true)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        if len(left) != len(right):
            return False
        return all(key in right and deep_equal(item, right[key]) for key, item in left.items())
    if isinstance(left, list):
        return len(left) == len(right) and all(map(deep_equal, left, right))
    if isinstance(left, float):
        return bool(left == right)  # NaN is never equal, as in Go
    return bool(left == right)
