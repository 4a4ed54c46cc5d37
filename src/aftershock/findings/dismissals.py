"""The checked-in dismissals file, `.aftershock/dismissals.yaml`: its model, parsing and writing.

    dismissals:
      - fingerprint: 3f1c0a9e5b7d4c21a8e6f0b2d9c4e7a1   # as `aftershock review` prints it (full)
        reason: the node agent needs the host's PIDs
        by: ops
        evidence: 9a0b1c2d3e4f5061                    # optional: honoured only while the evidence is the same

Like `.aftershock.yaml` it is read at the base ref, so a change cannot dismiss its own findings.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar

import yaml

from aftershock.gocompat import yamlio
from aftershock.model.errors import ConfigError, MalformedInputError
from aftershock.model.validated import FORBID_EXTRA, InvalidDocument, Text, plain, validated

DISMISSALS_FILE = ".aftershock/dismissals.yaml"


@dataclass(frozen=True)
class FileDismissal:
    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    fingerprint: Annotated[str, Text(pattern=r"^[0-9a-f]{32}$")]
    reason: Annotated[str, Text(min_length=1)]
    by: str = ""
    evidence: Annotated[str, Text(pattern=r"^[0-9a-f]{16}$")] | None = None  # an evidence digest


@dataclass(frozen=True)
class DismissalsFile:
    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    dismissals: tuple[FileDismissal, ...] = ()


def no_dismissals() -> DismissalsFile:
    """The dismissals of a repository that has no file: none."""
    return DismissalsFile()


def file_dismissal(
    fingerprint: str, reason: str, by: str, evidence: str | None = None
) -> FileDismissal:
    """One entry of the file, validated as the file's entries are."""
    data = {"fingerprint": fingerprint, "reason": reason, "by": by, "evidence": evidence}
    try:
        return validated(FileDismissal, data)
    except InvalidDocument as error:
        raise ConfigError(
            f"invalid dismissal: {error}", hint="give the full 32-digit fingerprint and a reason"
        ) from None


def parse_dismissals(text: str | None, *, source: str = DISMISSALS_FILE) -> DismissalsFile:
    """The dismissals in `text`; None or an empty document is no dismissal."""
    if text is None:
        return no_dismissals()
    try:
        data = yamlio.load_one(text, source=source)
    except MalformedInputError as error:
        raise ConfigError(
            f"cannot read the dismissals: {error.what}", where=source, hint="fix the YAML syntax"
        ) from None
    if data is None:
        return no_dismissals()
    try:
        return validated(DismissalsFile, data)
    except InvalidDocument as error:
        raise ConfigError(
            f"invalid dismissal at {error.where}: {error.message}",
            where=source,
            hint="each entry needs a 32-digit fingerprint and a reason",
        ) from None


def write_dismissal(root: Path, entry: FileDismissal) -> Path:
    """Adds or replaces `entry` (by fingerprint) in the work tree's dismissals file; its path."""
    path = root / DISMISSALS_FILE
    current = (
        parse_dismissals(path.read_text(encoding="utf-8"), source=str(path))
        if path.is_file()
        else no_dismissals()
    )
    kept = [d for d in current.dismissals if d.fingerprint != entry.fingerprint] + [entry]
    entries = [{k: v for k, v in plain(d).items() if v is not None} for d in kept]
    data = {"dismissals": entries}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    tmp.replace(path)
    return path
