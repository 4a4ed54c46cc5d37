"""The bounds every rendering backend puts on one render (time, memory, output size), the review
deadline a render may not outlast, and their errors."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from aftershock.model.errors import ConfigError

DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_MAX_OUTPUT_BYTES = 64 * 2**20
MIN_MEMORY_MIB = 128
DEFAULT_MAX_MEMORY_MIB = 1024  # resident memory of one render's process, all of it


@dataclass(frozen=True)
class Deadline:
    """The monotonic instant a whole review must end by, and the bound it came from (for its reason)."""

    at: float
    seconds: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds, seconds)

    def remaining(self) -> float:
        return self.at - time.monotonic()

    def passed(self) -> bool:
        return self.remaining() <= 0

    @property
    def reason(self) -> str:
        return deadline_error(self.seconds)


def deadline_error(seconds: float) -> str:
    return f"review deadline of {seconds:g} s reached"


def memory_error(max_memory_mib: int) -> str:
    return f"render exceeded {max_memory_mib} MiB of memory"


def output_size(manifests: Mapping[str, str]) -> int:
    """Bytes (UTF-8) of all rendered manifests together."""
    return sum(len(text.encode("utf-8")) for text in manifests.values())


def timeout_error(timeout_seconds: float) -> str:
    return f"render timed out after {timeout_seconds:g} s"


def oversize_error(max_output_bytes: int) -> str:
    return f"rendered output exceeds {max_output_bytes} bytes"


def check_limits(
    timeout_seconds: float, max_output_bytes: int, max_memory_mib: int = DEFAULT_MAX_MEMORY_MIB
) -> None:
    """Raise ConfigError unless every bound is positive (memory: at least 128 MiB, what Helm needs to load)."""
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
    if max_memory_mib < MIN_MEMORY_MIB:
        raise ConfigError(
            f"render memory limit must be at least {MIN_MEMORY_MIB} MiB, got {max_memory_mib!r}",
            hint=f"pass --render-memory {MIN_MEMORY_MIB} or more",
        )
