"""JSON Schema validators whose regular expressions run in linear time, as Helm's do.

Helm validates `pattern`, `patternProperties` and the properties `additionalProperties` leaves
with Go's RE2; Python's `jsonschema` uses the backtracking `re`, where `^(a+)+$` against forty `a`
and a `!` runs for minutes. These keywords are replaced by ones matching with RE2 (`gocompat.goregex`,
Go's syntax). A pattern RE2 cannot compile matches nothing here: Helm refuses such a schema itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from aftershock.gocompat.goregex import GoRegex, GoRegexError, compile_go

if TYPE_CHECKING:
    from jsonschema import ValidationError


def linear_patterns(validator_class: Any) -> Any:
    """`validator_class` with its pattern keywords matched by RE2 (jsonschema is loaded only by a
    review that validates a schema: it costs a tenth of a second to import)."""
    from jsonschema.validators import extend

    return extend(  # type: ignore[no-untyped-call]  # jsonschema's stubs leave it untyped
        validator_class,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    )


def _compiled(pattern: str) -> GoRegex | None:
    try:
        return compile_go(pattern)
    except GoRegexError:
        return None


def _matches(pattern: str, text: str) -> bool:
    compiled = _compiled(pattern)
    return compiled is not None and compiled.search(text)


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    from jsonschema import ValidationError

    if validator.is_type(instance, "string") and not _matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _matches(pattern, str(key)):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [
        key
        for key in instance
        if key not in properties and not any(_matches(p, str(key)) for p in patterns)
    ]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        from jsonschema import ValidationError

        shown = ", ".join(repr(each) for each in sorted(extras, key=str))
        if patterns:
            yield ValidationError(
                f"{shown} do not match any of the regexes: {', '.join(map(repr, sorted(patterns)))}"
            )
        else:
            yield ValidationError(f"Additional properties are not allowed ({shown} unexpected)")
