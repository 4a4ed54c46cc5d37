"""Documents a repository checks in (`.aftershock.yaml`, rule options, the dismissals file) as
frozen dataclasses that pydantic validates when one is read, declared without importing pydantic.

Most repositories have no such file, and importing pydantic costs about a fifth of a review's
start-up (~0.2 CPU-s). So the models are plain dataclasses; their constraints are metadata
(`Text`, `AtLeast`, `Checked`) that pydantic reads through `__get_pydantic_core_schema__` when it
builds a validator; and pydantic is imported only by `validated` and `json_schema`. A model
refuses unknown keys with `__pydantic_config__ = FORBID_EXTRA`.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, TypeAdapter
    from pydantic_core import CoreSchema

T = TypeVar("T")

FORBID_EXTRA: dict[str, Any] = {"extra": "forbid"}


class InvalidDocument(ValueError):
    """The first problem pydantic found: where (dotted keys, "" for the document) and what."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where, self.message = where, message


@dataclasses.dataclass(frozen=True)
class Text:
    """A text's constraints: at least `min_length` characters, matching `pattern` (a regex search)."""

    min_length: int | None = None
    pattern: str | None = None

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        schema: Any = handler(source)
        if self.min_length is not None:
            schema["min_length"] = self.min_length
        if self.pattern is not None:
            schema["pattern"] = self.pattern
        return schema  # type: ignore[no-any-return]


@dataclasses.dataclass(frozen=True)
class AtLeast:
    """A number's lower bound, inclusive."""

    bound: float

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        schema: Any = handler(source)
        schema["ge"] = self.bound
        return schema  # type: ignore[no-any-return]


@dataclasses.dataclass(frozen=True)
class Checked:
    """A check run on the value once its type is validated: returns the value to keep, or raises
    ValueError with the reason."""

    check: Callable[[Any], Any]

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(self.check, handler(source))


def validated(kind: type[T], data: object) -> T:
    """`data` (parsed YAML or JSON) as a `kind`; InvalidDocument naming the first problem."""
    from pydantic import ValidationError

    try:
        return cast(T, _adapter(kind).validate_python(data))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        message = first.get("msg", "invalid value")
        if first.get("type") == "unexpected_keyword_argument":
            message = "unknown key"
        raise InvalidDocument(where, message) from None


def json_schema(kind: type[Any]) -> dict[str, Any]:
    """The JSON Schema of the documents `validated(kind, ...)` accepts."""
    return _adapter(kind).json_schema(mode="validation")


_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(kind: type[Any]) -> TypeAdapter[Any]:
    """The validator of `kind`, built once per process."""
    if kind not in _ADAPTERS:
        from pydantic import TypeAdapter

        _ADAPTERS[kind] = TypeAdapter(kind)
    return _ADAPTERS[kind]


def plain(value: Any) -> Any:
    """A model as JSON data: dataclasses as mappings in field order, enums as their values,
    tuples as lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def json_text(value: Any) -> str:
    """`plain(value)` as compact JSON, as pydantic writes a model (no spaces, UTF-8 kept)."""
    return json.dumps(plain(value), separators=(",", ":"), ensure_ascii=False)
