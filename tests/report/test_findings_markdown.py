"""The findings fragment of the pull-request comment: verdicts first, concerns by severity, the rest folded, bounded."""

from __future__ import annotations

from dataclasses import replace

from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Finding,
    Location,
    Severity,
    Subject,
    SubjectKind,
    sort_key,
)
from aftershock.report.comment.findings_markdown import findings_markdown
from aftershock.report.findings_document import findings_document
from aftershock.verdict.model import RiskLevel, Verdict, Verdicts


def make(
    index: int,
    severity=Severity.MEDIUM,
    delta=Delta.INTRODUCED,
    message="Deployment x <runs> as root",
) -> Finding:
    return Finding(
        f"rule-{index % 7}",
        "Title",
        severity,
        Confidence.HIGH,
        Category.SECURITY,
        Evidence.OBSERVED,
        delta,
        Subject(SubjectKind.OBJECT, f"c::x{index}", f"Deployment x{index}"),
        message,
        Location("charts/a/values.yaml", 3),
    )


def section(findings, actionable=None):
    merge = Verdict("merge", RiskLevel.HIGH, "abc1234", (), "Merge rationale.")
    verdicts = Verdicts(
        merge,
        replace(merge, kind="security", rationale="Security rationale."),
        actionable if actionable is not None else sum(f.actionable for f in findings),
    )
    return findings_document(sorted(findings, key=sort_key), verdicts)


def test_verdicts_then_concerns_worst_first_then_folded_groups():
    findings = [
        make(1, Severity.LOW),
        make(2, Severity.CRITICAL),
        make(3, Severity.HIGH, Delta.PRE_EXISTING),
        make(4, Severity.HIGH, Delta.RESOLVED),
    ]
    text = findings_markdown(section(findings))
    order = [
        text.index(s)
        for s in (
            "Merge risk: High",
            "Security architecture risk: High",
            "### Concerns",
            "**Critical · security",
            "**Low · security",
            "Pre-existing concerns (1)",
            "Narrowed or resolved by this change (1)",
        )
    ]
    assert order == sorted(order)
    assert "- High · security · observed:" in text  # the pre-existing one, not bold
    assert "`charts/a/values.yaml:3`" in text


def test_no_actionable_findings_is_said_plainly():
    text = findings_markdown(section([make(1, delta=Delta.PRE_EXISTING)]))
    assert "### Concerns\n\nNo actionable findings." in text


def test_html_in_messages_is_escaped():
    assert "&lt;runs&gt;" in findings_markdown(section([make(1)]))


def test_many_findings_stay_within_the_budget():
    findings = [make(i, message="x" * 300) for i in range(2000)]
    text = findings_markdown(section(findings), max_chars=20_000)
    assert len(text) <= 20_000
    assert "more in the JSON output" in text
