"""What the rules and verdicts made of a review (`Judgement`), and the review with it (`ReviewResult`):
the pipeline makes them, the faces and the formats read them."""

from __future__ import annotations

from dataclasses import dataclass

from aftershock.config.settings import AftershockConfig
from aftershock.findings.model import Finding
from aftershock.findings.suppressions import Suppressed
from aftershock.model.review import Review
from aftershock.model.state_scope import ReviewScope
from aftershock.model.timings import StageTiming
from aftershock.verdict.model import Verdicts


@dataclass(frozen=True)
class Judgement:
    config: AftershockConfig
    config_source: str  # where the configuration came from
    findings: tuple[Finding, ...]
    verdicts: Verdicts
    suppressed: tuple[
        Suppressed, ...
    ] = ()  # silenced by the repository at the base ref, not in the verdicts
    notices: tuple[
        str, ...
    ] = ()  # suppressions or configuration the change adds, and other things to know


@dataclass(frozen=True)
class ReviewResult:
    """The observed review and what the rules and verdicts made of it; `scope` is what it examined."""

    review: Review
    judgement: Judgement
    scope: ReviewScope | None = None
    timings: tuple[StageTiming, ...] = ()  # where its time went, stage by stage
