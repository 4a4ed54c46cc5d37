"""SARIF 2.1.0 output: findings as code-scanning results, located in the repository's files.

One run; `tool.driver.rules` lists every registered rule (so a configuration change never
renumbers `ruleIndex`). Results are what the change introduced (baselineState `new`) or widened
(`updated`); what was already there (pre-existing, narrowed) is left out by default, or kept as
`unchanged` with `baseline="unchanged"`; resolved ones are never results. Each result has one physical location, so GitHub code scanning can annotate it: the
finding's location when it has one (for an actionable finding outside the changed files, the first
changed file of its impact path instead, the finding's own location becoming a related location),
else a file the concern's commit changed, else the first changed file. `partialFingerprints` carries the finding's fingerprint, which does not depend on
lines. Levels: critical and high -> error, medium -> warning, low and info -> note; security
rules carry GitHub's `security-severity`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aftershock import __version__
from aftershock.findings.model import RULE_ERROR_ID, Category, Delta, Finding, Severity, SubjectKind
from aftershock.model.review import Review
from aftershock.report.findings_document import json_value
from aftershock.rules.model import Rule
from aftershock.rules.registry import RULES
from aftershock.rules.support.added_lines import added_lines
from aftershock.safety.secret_taint import secret_taint

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
FINGERPRINT_KEY = "aftershock/v1"
SRCROOT = "%SRCROOT%"
_LEVEL = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
    Severity.INFO: "note",
}
_SECURITY_SEVERITY = {
    Severity.CRITICAL: "9.5",
    Severity.HIGH: "8.0",
    Severity.MEDIUM: "5.5",
    Severity.LOW: "3.0",
    Severity.INFO: "1.0",
}
_BASELINE = {
    Delta.INTRODUCED: "new",
    Delta.WIDENED: "updated",
    Delta.NARROWED: "unchanged",
    Delta.PRE_EXISTING: "unchanged",
}
BASELINE_CHOICES = (
    "omit",
    "unchanged",
)  # what to do with concerns the change did not introduce or widen


def sarif_document(
    review: Review,
    findings: Sequence[Finding],
    rules: Sequence[Rule] = RULES,
    *,
    baseline: str = "omit",
) -> dict[str, Any]:
    descriptors = [rule_descriptor(rule) for rule in rules] + [_rule_error_descriptor()]
    index = {descriptor["id"]: position for position, descriptor in enumerate(descriptors)}
    kept = [f for f in findings if f.delta is not Delta.RESOLVED and f.rule_id in index]
    if baseline == "omit":
        kept = [f for f in kept if f.actionable]
    results = [_result(review, f, index) for f in kept]
    document: dict[str, Any] = secret_taint(review).scrub(
        {
            "$schema": SARIF_SCHEMA,
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": "aftershock",
                            "version": __version__,
                            "rules": descriptors,
                        }
                    },
                    "automationDetails": {
                        "id": f"aftershock/{review.base.sha[:12]}..{review.head.sha[:12]}"
                    },
                    "columnKind": "unicodeCodePoints",
                    "results": results,
                }
            ],
        }
    )
    return document


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    tags = [rule.category.value]
    properties: dict[str, Any] = {
        "tags": tags,
        "precision": _precision(rule),
        "category": rule.category.value,
    }
    if rule.category is Category.SECURITY:
        properties["security-severity"] = _SECURITY_SEVERITY[rule.severity]
    sections = rule.doc.sections()
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.doc.what},
        "help": {
            "text": "\n\n".join(f"{title}: {text}" for title, text in sections),
            "markdown": "\n\n".join(f"**{title}**\n\n{text}" for title, text in sections),
        },
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": properties,
    }


def _rule_error_descriptor() -> dict[str, Any]:
    return {
        "id": RULE_ERROR_ID,
        "name": "AftershockRuleError",
        "shortDescription": {"text": "A rule could not run"},
        "fullDescription": {
            "text": "A rule raised an error on this change; its checks were not applied."
        },
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": ["reliability"], "precision": "low", "category": "reliability"},
    }


def _precision(rule: Rule) -> str:
    return {"high": "very-high", "medium": "high", "low": "medium"}[rule.confidence.value]


def _result(review: Review, finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "ruleIndex": index[finding.rule_id],
        "level": _LEVEL[finding.severity],
        "kind": "fail",
        "message": {"text": finding.headline},
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "baselineState": _BASELINE[finding.delta],
        "properties": {
            "severity": finding.severity.value,
            "confidence": finding.confidence.value,
            "category": finding.category.value,
            "evidence": finding.evidence.value,
            "delta": finding.delta.value,
            "evidenceDigest": finding.evidence_digest,
            "subject": finding.subject.display,
            "path": [f"{s.kind} {s.id} ({s.relation})" for s in finding.path],
            "facts": {fact.name: json_value(fact.value) for fact in finding.facts},
        },
    }
    location, related = _physical_location(review, finding)
    if location is not None:
        result["locations"] = [
            {
                "physicalLocation": location,
                "logicalLocations": [
                    {
                        "name": finding.subject.facet or finding.subject.display,
                        "fullyQualifiedName": f"{finding.subject.id}#{finding.subject.facet}"
                        if finding.subject.facet
                        else finding.subject.id,
                        "kind": finding.subject.kind.value,
                    }
                ],
            }
        ]
    if related is not None:
        result["relatedLocations"] = [
            {"id": 1, "physicalLocation": related, "message": {"text": "where the concern is"}}
        ]
    return result


def _physical_location(
    review: Review, finding: Finding
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(primary location, related location). An actionable finding located outside the changed files
    (a stale test, a document) is placed on the first changed file of its impact path, so code
    scanning can annotate the pull request, and keeps its own location as a related one."""
    changed = {f.path: f for f in review.files}
    file, line = (
        (finding.location.file, finding.location.line) if finding.location else (None, None)
    )
    related = None
    if finding.actionable and file is not None and file not in changed:
        step = next((s.id for s in finding.path if s.kind == "file" and s.id in changed), None)
        if step is not None:
            related = _location(file, line)
            file, line = step, next((a.line for a in added_lines(changed[step].hunks)), None)
    if file is None and finding.subject.kind is SubjectKind.COMMIT:
        file = next((f.path for f in review.files if finding.subject.id in f.commits), None)
    if file is None and review.files:
        file = review.files[0].path
    return (_location(file, line) if file is not None else None), related


def _location(file: str, line: int | None) -> dict[str, Any]:
    location: dict[str, Any] = {"artifactLocation": {"uri": file, "uriBaseId": SRCROOT}}
    if line is not None and line >= 1:
        location["region"] = {"startLine": line}
    return location
