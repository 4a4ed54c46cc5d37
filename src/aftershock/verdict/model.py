"""The verdict vocabulary: risk levels and the two verdicts of a review."""

from __future__ import annotations

import enum
from dataclasses import dataclass

NO_ACTIONABLE_FINDINGS = "No actionable findings"


class RiskLevel(str, enum.Enum):
    MINIMAL = "minimal"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return list(RiskLevel).index(self)

    @property
    def label(self) -> str:
        return self.value.capitalize()

    def lowered(self, floor: RiskLevel) -> RiskLevel:
        """One level lower, never below `floor`."""
        lower = list(RiskLevel)[max(self.rank - 1, 0)]
        return lower if lower.rank >= floor.rank else floor


def highest(levels: list[RiskLevel]) -> RiskLevel:
    return max(levels, key=lambda level: level.rank, default=RiskLevel.MINIMAL)


@dataclass(frozen=True)
class Assessment:
    """A level and the facts that set it, strongest first (each a short phrase)."""

    level: RiskLevel
    reasons: tuple[str, ...]
    unverified: tuple[str, ...] = ()  # the parts that could not be verified: the confidence


@dataclass(frozen=True)
class Verdict:
    kind: str  # "merge" or "security"
    level: RiskLevel
    up_to: str  # short sha of the head the verdict covers
    reasons: tuple[str, ...]
    rationale: str
    unverified: tuple[str, ...] = ()

    @property
    def confidence(self) -> str:
        """ "verified", or "partly verified (N parts)" when parts could not be verified."""
        count = len(self.unverified)
        if not count:
            return "verified"
        return f"partly verified ({count} part{'s' if count > 1 else ''})"

    @property
    def title(self) -> str:
        name = "Merge risk" if self.kind == "merge" else "Security architecture risk"
        title = f"{name}: {self.level.label} · up to {self.up_to}"
        return title if not self.unverified else f"{title} · {self.confidence}"


@dataclass(frozen=True)
class Verdicts:
    merge: Verdict
    security: Verdict
    actionable: int  # findings the change introduced or widened

    @property
    def headline(self) -> str:
        return (
            NO_ACTIONABLE_FINDINGS
            if self.actionable == 0
            else f"{self.actionable} actionable finding(s)"
        )
