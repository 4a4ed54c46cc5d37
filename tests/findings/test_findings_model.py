"""The Finding model: fingerprints that ignore lines and wording, evidence digests kept apart, the JSON section."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema

from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Finding,
    Location,
    Severity,
    Subject,
    SubjectKind,
    sort_key,
)
from aftershock.report.findings_document import findings_document
from aftershock.verdict.model import RiskLevel, Verdict, Verdicts

FRAGMENT = (
    Path(__file__).resolve().parents[2]
    / "src"
    / "aftershock"
    / "report"
    / "findings_schema_fragment.json"
)


def finding(**changes) -> Finding:
    base = Finding(
        rule_id="pss-host-namespaces",
        title="Pod shares a host namespace",
        severity=Severity.HIGH,
        confidence=Confidence.HIGH,
        category=Category.SECURITY,
        evidence=Evidence.OBSERVED,
        delta=Delta.INTRODUCED,
        subject=Subject(
            SubjectKind.OBJECT,
            "charts/a::apps/DaemonSet/ns/agent",
            "DaemonSet.apps ns/agent",
            "hostPID",
        ),
        message="DaemonSet.apps ns/agent shares the node's process namespace",
        location=Location("charts/a/values.yaml", 12),
        facts=(Fact("field", "spec.template.spec.hostPID"), Fact("value", True)),
    )
    return replace(base, **changes)


def test_fingerprint_ignores_lines_wording_severity_and_delta():
    original = finding()
    moved = finding(
        location=Location("charts/a/values.yaml", 40),
        message="reworded",
        severity=Severity.LOW,
        delta=Delta.PRE_EXISTING,
        subject=replace(original.subject, display="another display"),
    )
    assert moved.fingerprint == original.fingerprint
    assert len(original.fingerprint) == 32


def test_fingerprint_follows_rule_and_subject():
    original = finding()
    assert finding(rule_id="pss-privileged").fingerprint != original.fingerprint
    assert (
        finding(subject=replace(original.subject, facet="hostNetwork")).fingerprint
        != original.fingerprint
    )
    assert (
        finding(
            subject=replace(original.subject, id="charts/b::apps/DaemonSet/ns/agent")
        ).fingerprint
        != original.fingerprint
    )


def test_evidence_digest_is_separate_from_identity():
    original = finding()
    new_evidence = finding(
        facts=(Fact("field", "spec.template.spec.hostPID"), Fact("value", "yes"))
    )
    reordered = finding(facts=tuple(reversed(original.facts)))
    assert new_evidence.fingerprint == original.fingerprint
    assert new_evidence.evidence_digest != original.evidence_digest
    assert reordered.evidence_digest == original.evidence_digest
    assert (
        finding(facts=(Fact("items", frozenset({"b", "a"})),)).evidence_digest
        == finding(facts=(Fact("items", ["a", "b"]),)).evidence_digest
    )


def test_headline_reads_severity_category_evidence():
    assert (
        finding().headline
        == "High · security · observed: DaemonSet.apps ns/agent shares the node's process namespace"
    )


def test_actionable_only_for_introduced_and_widened():
    assert [d.value for d in Delta if d.actionable] == ["introduced", "widened"]
    ordered = sorted(
        [
            finding(delta=Delta.PRE_EXISTING, severity=Severity.CRITICAL),
            finding(severity=Severity.LOW),
        ],
        key=sort_key,
    )
    assert (
        ordered[0].delta is Delta.INTRODUCED
    )  # actionable before pre-existing, whatever the severity


def _verdicts() -> Verdicts:
    merge = Verdict(
        "merge",
        RiskLevel.HIGH,
        "abc1234",
        ("high security finding pss-host-namespaces",),
        "Because.",
    )
    return Verdicts(merge=merge, security=replace(merge, kind="security"), actionable=1)


def test_document_matches_its_schema_fragment_and_is_plain_json():
    items = [
        finding(),
        finding(location=None, delta=Delta.RESOLVED, facts=(Fact("set", frozenset({"x"})),)),
    ]
    doc = findings_document(items, _verdicts())
    jsonschema.Draft202012Validator(json.loads(FRAGMENT.read_text())).validate(doc)
    assert json.loads(json.dumps(doc)) == doc
    assert doc["verdicts"]["merge"]["title"] == "Merge risk: High · up to abc1234"
    assert doc["summary"]["actionable"] == 1 and doc["summary"]["by_delta"]["resolved"] == 1
    assert doc["items"][1]["facts"] == [{"name": "set", "value": ["x"]}]


def test_schema_fragment_rejects_a_wrong_document():
    doc = findings_document([finding()], _verdicts())
    doc["items"][0]["severity"] = "severe"
    validator = jsonschema.Draft202012Validator(json.loads(FRAGMENT.read_text()))
    assert not validator.is_valid(doc)
