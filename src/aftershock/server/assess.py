"""The seam between a review and what the pull request is told: findings, verdicts, SARIF and annotations.

The pipeline's `review_change` judges a review (configuration from the base ref, source texts, rules,
verdicts); everything the service and the Action take from that judgement goes through `assess`,
so a change in `findings`, `verdict` or `report.sarif` is absorbed in this one module.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from aftershock.findings.model import Finding, Severity
from aftershock.judgement.result import ReviewResult
from aftershock.model.validated import json_text
from aftershock.report.canonical import review_document
from aftershock.report.sarif import FINGERPRINT_KEY, sarif_document
from aftershock.verdict import RiskLevel, Verdicts

NEVER = "never"  # a fail-on level no merge risk reaches
_ANNOTATION_LEVEL = {
    Severity.CRITICAL: "failure",
    Severity.HIGH: "failure",
    Severity.MEDIUM: "warning",
    Severity.LOW: "notice",
    Severity.INFO: "notice",
}


@dataclass(frozen=True)
class Assessment:
    findings: tuple[Finding, ...]
    verdicts: Verdicts
    document: dict[str, Any]  # the canonical review document, findings included
    sarif: dict[str, Any]
    config_hash: str  # identifies the configuration the rules ran with, for the state store


def assess(result: ReviewResult) -> Assessment:
    judgement = result.judgement
    config_text = json_text(judgement.config)
    return Assessment(
        findings=judgement.findings,
        verdicts=judgement.verdicts,
        document=review_document(result.review, judgement),
        sarif=sarif_document(result.review, judgement.findings),
        config_hash=hashlib.sha256(config_text.encode("utf-8")).hexdigest()[:16],
    )


def reaches(level: RiskLevel, fail_on: str) -> bool:
    """True when a merge risk of `level` reaches the `fail_on` level (a RiskLevel value, or "never")."""
    if fail_on == NEVER:
        return False
    return level.rank >= RiskLevel(fail_on).rank


def check_run_annotations(assessment: Assessment) -> list[dict[str, Any]]:
    """Check-run annotations: one per actionable finding that has a physical location in SARIF."""
    located = {}
    for result in assessment.sarif["runs"][0]["results"]:
        location = (result.get("locations") or [{}])[0].get("physicalLocation")
        if location:
            located[result["partialFingerprints"].get(FINGERPRINT_KEY)] = location
    out = []
    for finding in assessment.findings:
        location = located.get(finding.fingerprint)
        if not finding.actionable or location is None:
            continue
        line = int((location.get("region") or {}).get("startLine") or 1)
        out.append(
            {
                "path": location["artifactLocation"]["uri"],
                "start_line": line,
                "end_line": line,
                "annotation_level": _ANNOTATION_LEVEL[finding.severity],
                "title": f"{finding.rule_id}: {finding.title}"[:255],
                "message": f"{finding.headline}\n\nfingerprint {finding.fingerprint}"[:64000],
            }
        )
    return out
