"""The checked-in dismissals file, `.aftershock/dismissals.yaml`: its model, parsing and writing.

    dismissals:
      - fingerprint: 3f1c0a9e5b7d4c21a8e6f0b2d9c4e7a1   # as `aftershock review` prints it (full)
        reason: the node agent needs the host's PIDs
        by: ops
        evidence: 9a0b1c2d3e4f5061                    # optional: honoured only while the evidence is the same

Like `.aftershock.yaml` it is read at the base ref, so a change cannot dismiss its own findings.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from aftershock.gocompat import yamlio
from aftershock.model.errors import ConfigError, MalformedInputError

DISMISSALS_FILE = ".aftershock/dismissals.yaml"


class FileDismissal(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    fingerprint: str = Field(pattern=r"^[0-9a-f]{32}$")
    reason: str = Field(min_length=1)
    by: str = ""
    evidence: str | None = Field(default=None, pattern=r"^[0-9a-f]{16}$")  # an evidence digest


class DismissalsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    dismissals: tuple[FileDismissal, ...] = ()


def no_dismissals() -> DismissalsFile:
    """The dismissals of a repository that has no file: none, with no validator built."""
    return DismissalsFile.model_construct()


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
        return DismissalsFile.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        raise ConfigError(
            f"invalid dismissal at {where}: {first.get('msg')}",
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
    data = {"dismissals": [d.model_dump(exclude_none=True, exclude_defaults=False) for d in kept]}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    tmp.replace(path)
    return path
