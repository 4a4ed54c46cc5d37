"""The `findings` section of the canonical review document: verdicts first, then every finding.

Plain JSON-compatible data in a stable order (findings as `evaluate` sorted them); its JSON Schema
is findings_schema_fragment.json next to this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aftershock.findings.model import Delta, Finding, Severity
from aftershock.findings.suppressions import Suppressed
from aftershock.verdict.model import Verdict, Verdicts

SECTION_VERSION = "2"


def findings_document(
    findings: Sequence[Finding],
    verdicts: Verdicts,
    suppressed: Sequence[Suppressed] = (),
    notices: Sequence[str] = (),
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "version": SECTION_VERSION,
        "headline": verdicts.headline,
        "verdicts": {
            "merge": verdict_document(verdicts.merge),
            "security": verdict_document(verdicts.security),
        },
        "summary": _summary(findings),
        "items": [finding_document(f) for f in findings],
    }
    if suppressed:  # only when present, so documents without them keep their shape
        doc["suppressed"] = [
            {**finding_document(s.finding), "reason": s.reason, "source": s.source}
            for s in suppressed
        ]
    if notices:
        doc["notices"] = list(notices)
    return doc


def verdict_document(verdict: Verdict) -> dict[str, Any]:
    return {
        "level": verdict.level.value,
        "label": verdict.level.label,
        "up_to": verdict.up_to,
        "title": verdict.title,
        "reasons": list(verdict.reasons),
        "rationale": verdict.rationale,
        "confidence": verdict.confidence,
        "unverified": list(verdict.unverified),
    }


def finding_document(finding: Finding) -> dict[str, Any]:
    location = finding.location
    return {
        "fingerprint": finding.fingerprint,
        "evidence_digest": finding.evidence_digest,
        "rule": finding.rule_id,
        "title": finding.title,
        "severity": finding.severity.value,
        "confidence": finding.confidence.value,
        "category": finding.category.value,
        "evidence": finding.evidence.value,
        "delta": finding.delta.value,
        "actionable": finding.actionable,
        "subject": {
            "kind": finding.subject.kind.value,
            "id": finding.subject.id,
            "display": finding.subject.display,
            "facet": finding.subject.facet,
        },
        "message": finding.message,
        "location": None if location is None else {"file": location.file, "line": location.line},
        "path": [{"kind": s.kind, "id": s.id, "relation": s.relation} for s in finding.path],
        "facts": [{"name": fact.name, "value": json_value(fact.value)} for fact in finding.facts],
    }


def finding_headline(item: Mapping[str, Any]) -> str:
    """A finding entry's one-line form, `High · security · observed: <message>` (Finding.headline),
    which the document leaves out: its severity, category, evidence and message say it."""
    severity = str(item["severity"]).capitalize()
    return f"{severity} · {item['category']} · {item['evidence']}: {item['message']}"


def json_value(value: Any) -> Any:
    """Tuples, sets and frozensets as lists (sets sorted), so the document is plain JSON."""
    if isinstance(value, (set, frozenset)):
        return sorted((json_value(v) for v in value), key=str)
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _summary(findings: Sequence[Finding]) -> dict[str, Any]:
    actionable = [f for f in findings if f.actionable]
    return {
        "actionable": len(actionable),
        "by_severity": {
            s.value: sum(f.severity is s for f in actionable) for s in reversed(Severity)
        },
        "by_delta": {d.value: sum(f.delta is d for f in findings) for d in Delta},
        "total": len(findings),
    }
