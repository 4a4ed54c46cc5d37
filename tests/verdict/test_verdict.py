"""The verdict functions: levels from findings and unreviewed parts, never lowered by a gap, and their rationale."""

from __future__ import annotations

from dataclasses import replace

from aftershock.findings.model import (
    RULE_ERROR_ID,
    Category,
    Confidence,
    Delta,
    Evidence,
    Finding,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.model.change import Side
from aftershock.model.review import ChartOutcome, ChartRender, NotReviewed, RenderStatus
from aftershock.verdict import verdicts
from aftershock.verdict.model import NO_ACTIONABLE_FINDINGS, RiskLevel
from rulecases import FIXTURES, build_review, read_manifests


def make(
    severity=Severity.HIGH,
    category=Category.SECURITY,
    delta=Delta.INTRODUCED,
    confidence=Confidence.HIGH,
    rule="r",
):
    return Finding(
        rule,
        "A title",
        severity,
        confidence,
        category,
        Evidence.OBSERVED,
        delta,
        Subject(SubjectKind.OBJECT, f"x::{rule}{severity.value}{delta.value}", "Thing x"),
        "message",
    )


def unchanged_review(tmp_path):
    objects = read_manifests(FIXTURES / "pss-host-namespaces" / "introduced-hostpid" / "base.yaml")
    return build_review(objects, objects, tmp_path=tmp_path)


def changed_review(tmp_path):
    folder = FIXTURES / "pss-host-namespaces" / "introduced-hostpid"
    return build_review(
        read_manifests(folder / "base.yaml"),
        read_manifests(folder / "head.yaml"),
        tmp_path=tmp_path,
    )


def test_nothing_changed_and_nothing_found_is_minimal(tmp_path):
    result = verdicts(unchanged_review(tmp_path), [])
    assert result.merge.level is RiskLevel.MINIMAL and result.security.level is RiskLevel.MINIMAL
    assert result.headline == NO_ACTIONABLE_FINDINGS
    assert NO_ACTIONABLE_FINDINGS in result.merge.rationale
    assert result.merge.title == f"Merge risk: Minimal · up to {'1' * 7}"


def test_a_rendered_change_is_at_least_low(tmp_path):
    result = verdicts(changed_review(tmp_path), [])
    assert result.merge.level is RiskLevel.LOW
    assert result.security.level is RiskLevel.LOW  # hostPID is a pod security field
    assert "render differently" in result.merge.rationale


def test_a_chart_changed_in_several_scenarios_counts_once(tmp_path):
    """The reason counted renders: one chart changed in six scenarios read "6 chart(s) render differently"."""
    review = changed_review(tmp_path)
    [chart] = review.chart_reviews
    review = replace(
        review,
        chart_reviews=tuple(replace(chart, scenario=f"toggle:{n}") for n in range(5)) + (chart,),
    )
    assert verdicts(review, []).merge.reasons == ("1 chart(s) render differently (charts/app)",)


def test_actionable_findings_set_the_level_by_severity(tmp_path):
    review = unchanged_review(tmp_path)
    assert verdicts(review, [make(Severity.CRITICAL)]).merge.level is RiskLevel.CRITICAL
    assert (
        verdicts(review, [make(Severity.MEDIUM, delta=Delta.WIDENED)]).merge.level
        is RiskLevel.MEDIUM
    )
    assert verdicts(review, [make(Severity.INFO)]).merge.level is RiskLevel.MINIMAL


def test_low_confidence_counts_one_level_lower_but_not_below_low(tmp_path):
    review = unchanged_review(tmp_path)
    assert (
        verdicts(review, [make(Severity.HIGH, confidence=Confidence.LOW)]).merge.level
        is RiskLevel.MEDIUM
    )
    assert (
        verdicts(review, [make(Severity.LOW, confidence=Confidence.LOW)]).merge.level
        is RiskLevel.LOW
    )


def test_pre_existing_narrowed_and_resolved_findings_do_not_count(tmp_path):
    review = unchanged_review(tmp_path)
    quiet = [
        make(Severity.CRITICAL, delta=d)
        for d in (Delta.PRE_EXISTING, Delta.NARROWED, Delta.RESOLVED)
    ]
    result = verdicts(review, quiet)
    assert result.merge.level is RiskLevel.MINIMAL
    assert "1 pre-existing concern(s) are listed apart" in result.merge.rationale
    assert "narrows or removes 2 existing security concern(s)" in result.security.rationale


def test_security_verdict_counts_only_security_findings(tmp_path):
    result = verdicts(unchanged_review(tmp_path), [make(Severity.HIGH, Category.RELIABILITY)])
    assert result.merge.level is RiskLevel.HIGH
    assert result.security.level is RiskLevel.MINIMAL


def with_chart_gap(review, base_status, head_status):
    chart = replace(
        review.chart_reviews[0],
        outcome=ChartOutcome.NOT_REVIEWED,
        base=ChartRender(Side.BASE, base_status),
        head=ChartRender(Side.HEAD, head_status, error="boom"),
    )
    gap = NotReviewed(f"chart {chart.chart}", "boom", Side.HEAD)
    return replace(review, chart_reviews=(chart,), not_reviewed=(gap,))


def test_an_unreviewed_part_lowers_the_confidence_not_the_level(tmp_path):
    review = with_chart_gap(unchanged_review(tmp_path), RenderStatus.FAILED, RenderStatus.FAILED)
    result = verdicts(review, [])
    assert result.merge.level is RiskLevel.MINIMAL and result.security.level is RiskLevel.MINIMAL
    assert result.merge.title == f"Merge risk: Minimal · up to {'1' * 7} · partly verified (1 part)"
    assert result.merge.unverified == ("chart charts/app (head)",)
    assert verdicts(review, [make(Severity.CRITICAL)]).merge.level is RiskLevel.CRITICAL
    assert "Not verified: chart charts/app (head)" in result.merge.rationale
    assert not review.complete


def test_a_context_gap_is_listed_apart_and_counts_nowhere(tmp_path):
    review = with_chart_gap(unchanged_review(tmp_path), RenderStatus.FAILED, RenderStatus.FAILED)
    review = replace(
        review, not_reviewed=tuple(replace(g, context=True) for g in review.not_reviewed)
    )
    result = verdicts(review, [])
    assert result.merge.unverified == () and result.merge.title.endswith(f"up to {'1' * 7}")
    assert review.complete
    assert "Context not reviewed" in result.merge.rationale


def test_a_chart_bump_that_could_not_render_floors_the_merge_level_by_its_kind():
    from aftershock.verdict.confidence import bump_level

    assert bump_level("1.2.3", "1.2.4") == (RiskLevel.LOW, "patch")
    assert bump_level("v1.2.3", "v1.3.0") == (RiskLevel.MEDIUM, "minor")
    assert bump_level("1.2.3", "2.0.0") == (RiskLevel.HIGH, "major")
    digest = "sha256:" + "a" * 64
    assert bump_level(f"1.0@{digest}", "1.0@sha256:" + "b" * 64) == (RiskLevel.LOW, "digest")


def test_a_chart_the_change_breaks_is_high(tmp_path):
    review = with_chart_gap(unchanged_review(tmp_path), RenderStatus.OK, RenderStatus.FAILED)
    result = verdicts(review, [])
    assert result.merge.level is RiskLevel.HIGH
    assert result.merge.reasons == ("chart charts/app renders at base but fails at head",)


def test_rule_errors_count_as_unverified(tmp_path):
    error = replace(
        make(Severity.MEDIUM, Category.RELIABILITY, rule=RULE_ERROR_ID),
        subject=Subject(SubjectKind.CHART, "x", "rule x"),
    )
    result = verdicts(unchanged_review(tmp_path), [error])
    assert result.merge.level is RiskLevel.MINIMAL
    assert result.merge.unverified == ("rule x could not run",)
    assert "Not verified: rule x" in result.merge.rationale


def test_verdicts_are_pure(tmp_path):
    review, findings = changed_review(tmp_path), [make(), make(Severity.LOW, Category.HYGIENE)]
    assert verdicts(review, findings) == verdicts(review, list(findings))


def test_the_rationale_says_tests_were_not_run_rather_than_that_there_are_none(tmp_path):
    from aftershock.model.tests import TestEvidence

    review = unchanged_review(tmp_path)
    not_run = verdicts(replace(review, tests=None), []).merge.rationale
    none_found = verdicts(replace(review, tests=TestEvidence(untested=("c",))), []).merge.rationale
    assert "Chart tests were not run." in not_run and "suites" not in not_run
    assert "No affected chart has helm-unittest suites." in none_found


def test_a_change_of_labels_alone_does_not_touch_the_security_surface():
    from aftershock.diff.fields import diff_documents
    from aftershock.model.diff import ObjectChange, ObjectChangeKind
    from aftershock.model.objects import ObjectKey
    from aftershock.verdict.levels import touches_security

    def change(kind: str, group: str, before: dict, after: dict) -> ObjectChange:
        return ObjectChange(
            ObjectChangeKind.CHANGED,
            ObjectKey(group, kind, "ns", "x"),
            "v1",
            "c",
            (),
            diff_documents(before, after),
        )

    version = {"metadata": {"labels": {"app.kubernetes.io/version": "1.0"}}}
    bumped = {"metadata": {"labels": {"app.kubernetes.io/version": "1.1"}}}
    role = "rbac.authorization.k8s.io"
    assert not touches_security(change("ClusterRole", role, version, bumped))
    pod = {"spec": {"template": {"metadata": {"labels": {"v": "1"}}, "spec": {"image": "a:1"}}}}
    relabelled = {
        "spec": {"template": {"metadata": {"labels": {"v": "2"}}, "spec": {"image": "a:1"}}}
    }
    assert not touches_security(change("Deployment", "apps", pod, relabelled))
    imaged = {"spec": {"template": {"metadata": {"labels": {"v": "1"}}, "spec": {"image": "a:2"}}}}
    assert touches_security(change("Deployment", "apps", pod, imaged))
    rules = {**version, "rules": [{"verbs": ["get"]}]}
    assert touches_security(change("ClusterRole", role, version, rules))


def test_a_release_bump_that_could_not_render_floors_the_merge_level(tmp_path):
    from aftershock.ingest.object_documents import parse_manifests

    def source(tag: str):
        text = (
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\n"
            f"metadata: {{name: podinfo, namespace: flux-system}}\nspec: {{ref: {{tag: {tag}}}}}\n"
        )
        return parse_manifests({"app/templates/oci.yaml": text}, chart="charts/app", namespace="x")

    review = build_review(source("6.5.4"), source("6.6.0"), tmp_path=tmp_path)
    gap = NotReviewed("release flux-system/podinfo", "the chart's archive is not at hand")
    result = verdicts(replace(review, not_reviewed=(gap,)), [])
    assert result.merge.level is RiskLevel.MEDIUM
    assert "podinfo bumped 6.5.4 → 6.6.0 (minor) was not rendered" in result.merge.reasons
    assert result.security.level is RiskLevel.MINIMAL  # nothing rendered touches its surface
    assert result.merge.title.endswith("· partly verified (1 part)")


def test_a_template_breaking_at_head_is_merge_risk_not_security_risk(tmp_path):
    """A failed upgrade is the merge verdict's High; for security the template is a part not
    verified (its confidence), not a High of its own."""
    from aftershock.model.review import TemplateFailure

    review = changed_review(tmp_path)
    (chart,) = review.chart_reviews
    broken = TemplateFailure("charts/app/templates/netpol.yaml", None, "render error at head")
    review = replace(
        review,
        chart_reviews=(replace(chart, templates_not_rendered=(broken,)),),
        not_reviewed=(
            NotReviewed("template charts/app/templates/netpol.yaml", "error", Side.HEAD),
        ),
    )
    result = verdicts(review, [])
    assert result.merge.level is RiskLevel.HIGH
    assert result.security.level is not RiskLevel.HIGH and result.security.unverified
