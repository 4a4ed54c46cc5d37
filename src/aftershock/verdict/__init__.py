"""Verdicts: the merge risk and the security architecture risk of a review, with their rationales.

`verdicts(review, findings)` is the entry point; `levels` holds the two documented pure functions
that compute the levels, `rationale` the paragraphs that explain them from the facts.
"""

from __future__ import annotations

from collections.abc import Sequence

from aftershock.findings.model import Finding
from aftershock.model.review import Review
from aftershock.verdict.levels import merge_risk, security_risk
from aftershock.verdict.model import RiskLevel, Verdict, Verdicts
from aftershock.verdict.rationale import merge_rationale, security_rationale

__all__ = ["RiskLevel", "Verdict", "Verdicts", "verdicts"]


def verdicts(review: Review, findings: Sequence[Finding]) -> Verdicts:
    """Both verdicts of a review, each with its level, reasons and rationale."""
    up_to = review.head.sha[:7]
    merge = merge_risk(review, findings)
    security = security_risk(review, findings)
    return Verdicts(
        merge=Verdict(
            "merge",
            merge.level,
            up_to,
            merge.reasons,
            merge_rationale(review, findings, merge),
            merge.unverified,
        ),
        security=Verdict(
            "security",
            security.level,
            up_to,
            security.reasons,
            security_rationale(review, findings, security),
            security.unverified,
        ),
        actionable=sum(f.actionable for f in findings),
    )
