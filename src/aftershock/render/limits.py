"""The bounds every rendering backend puts on one render (time, output size), and their errors."""

from __future__ import annotations

from typing import Mapping

from aftershock.errors import ConfigError

DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_MAX_OUTPUT_BYTES = 64 * 2**20


def output_size(manifests: Mapping[str, str]) -> int:
    """Bytes (UTF-8) of all rendered manifests together."""
    return sum(len(text.encode("utf-8")) for text in manifests.values())


def timeout_error(timeout_seconds: float) -> str:
    return f"render timed out after {timeout_seconds:g} s"


def oversize_error(max_output_bytes: int) -> str:
    return f"rendered output exceeds {max_output_bytes} bytes"


def check_limits(timeout_seconds: float, max_output_bytes: int) -> None:
    """Raise ConfigError unless both bounds are positive."""
    if not timeout_seconds > 0:
        raise ConfigError(
            f"render timeout must be positive, got {timeout_seconds!r}",
            hint="pass a number of seconds above 0",
        )
    if max_output_bytes <= 0:
        raise ConfigError(
            f"render output limit must be positive, got {max_output_bytes!r}",
            hint="pass a number of bytes above 0",
        )
