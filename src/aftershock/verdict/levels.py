"""The two verdict levels as pure functions of the findings and of what could not be reviewed.

Merge risk = the highest of:
1. Minimal;
2. each actionable finding (introduced or widened) by severity: info -> Minimal, low -> Low,
   medium -> Medium, high -> High, critical -> Critical; a low-confidence finding counts one level
   lower, never below Low;
3. Low when any chart renders differently (the change does something to a cluster);
4. High when a chart renders at base and fails at head (the change breaks rendering), and the
   floor of a chart bump that could not be rendered by its kind (verdict/confidence.py).
A part that could not be reviewed otherwise (a chart that did not render, a rule that failed, a
changed line no render ran) does not raise the level, which counts what was observed: it lowers the
confidence, said on the verdict line ("partly verified (2 parts)"). Pre-existing, narrowed and
resolved findings never raise it.

Security architecture risk = the same over security findings only, with (3) replaced by: Low
when the change touches the security surface (RBAC, NetworkPolicy, Secret, ServiceAccount,
Service, Ingress, admission configuration objects; or pod fields for security context, host
namespaces, volumes, service accounts, images and ports; a change of labels and annotations alone
does not), and (4) unchanged, but a bump's floor only where something rendered touches the security surface.
"""

from __future__ import annotations

from collections.abc import Sequence

from aftershock.findings.model import RULE_ERROR_ID, Category, Confidence, Finding, Severity
from aftershock.model.diff import ObjectChange
from aftershock.model.review import ChartOutcome, RenderStatus, Review
from aftershock.verdict.confidence import bump_floors, unverified_parts
from aftershock.verdict.model import Assessment, RiskLevel, highest

_BY_SEVERITY = {
    Severity.INFO: RiskLevel.MINIMAL,
    Severity.LOW: RiskLevel.LOW,
    Severity.MEDIUM: RiskLevel.MEDIUM,
    Severity.HIGH: RiskLevel.HIGH,
    Severity.CRITICAL: RiskLevel.CRITICAL,
}
SECURITY_KINDS = frozenset(
    {
        ("rbac.authorization.k8s.io", k)
        for k in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")
    }
    | {
        ("networking.k8s.io", "NetworkPolicy"),
        ("", "Secret"),
        ("", "ServiceAccount"),
        ("", "Service"),
        ("networking.k8s.io", "Ingress"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("policy", "PodSecurityPolicy"),
    }
)
SECURITY_FIELD_WORDS = (
    "securityContext",
    "hostNetwork",
    "hostPID",
    "hostIPC",
    "hostPath",
    "hostPort",
    "volumes",
    "serviceAccountName",
    "automountServiceAccountToken",
    "image",
    "capabilities",
    "privileged",
)


def finding_level(finding: Finding) -> RiskLevel:
    level = _BY_SEVERITY[finding.severity]
    if finding.confidence is Confidence.LOW and level.rank > RiskLevel.LOW.rank:
        return level.lowered(RiskLevel.LOW)
    return level


def merge_risk(review: Review, findings: Sequence[Finding]) -> Assessment:
    candidates = _finding_candidates([f for f in findings if f.actionable])
    changed = sorted(
        {r.chart for r in review.chart_reviews if r.renders_differently}
    )  # charts, not scenarios
    if changed:
        named = ", ".join(changed[:3]) + (", …" if len(changed) > 3 else "")
        candidates.append((RiskLevel.LOW, f"{len(changed)} chart(s) render differently ({named})"))
    candidates += _broken_at_head(review) + bump_floors(review)
    return _assess(candidates, unverified_parts(review, findings))


def security_risk(review: Review, findings: Sequence[Finding]) -> Assessment:
    security = [f for f in findings if f.actionable and f.category is Category.SECURITY]
    candidates = _finding_candidates(security)
    touched = sorted(
        {str(c.key) for r in review.chart_reviews for c in r.changes if touches_security(c)}
    )
    if touched:
        candidates.append(
            (
                RiskLevel.LOW,
                f"the change touches the security surface ({', '.join(touched[:3])}{', …' if len(touched) > 3 else ''})",
            )
        )
    # A template that breaks at head is a failed upgrade (merge risk), nothing it grants or opens:
    # for security it is a part not verified, on the confidence. A bump's floor counts only where
    # something rendered touches the security surface.
    if touched:
        candidates += bump_floors(review)
    return _assess(candidates, unverified_parts(review, findings))


def touches_security(change: ObjectChange) -> bool:
    """Whether the change reaches the security surface; a change of labels and annotations alone
    does not (a version label relabels every object a chart bump renders)."""
    fields = [f for f in change.fields if not _metadata_only(f.path_parts or (f.path,))]
    if change.fields and not fields:
        return False
    if (change.key.group, change.key.kind) in SECURITY_KINDS:
        return True
    return any(word in field.path for field in fields for word in SECURITY_FIELD_WORDS)


def _metadata_only(parts: tuple[str, ...]) -> bool:
    """A path under an object's (or a pod template's) labels or annotations."""
    text = ".".join(parts)
    return text.startswith(_METADATA) or any(f".{m}" in f".{text}" for m in _TEMPLATE_METADATA)


_METADATA = ("metadata.labels", "metadata.annotations")
_TEMPLATE_METADATA = (
    "template.metadata.labels",
    "template.metadata.annotations",
    "jobTemplate.metadata.labels",
    "jobTemplate.metadata.annotations",
)


def _finding_candidates(findings: Sequence[Finding]) -> list[tuple[RiskLevel, str]]:
    out = []
    for finding in findings:
        if finding.rule_id == RULE_ERROR_ID:
            continue  # counted as an unreviewed part
        lowered = (
            " (low confidence)"
            if finding_level(finding) is not _BY_SEVERITY[finding.severity]
            else ""
        )
        out.append(
            (
                finding_level(finding),
                f"{finding.severity.value} {finding.category.value} finding {finding.rule_id}{lowered}",
            )
        )
    return out


def _broken_at_head(review: Review) -> list[tuple[RiskLevel, str]]:
    """High for each chart or template that renders at base and fails at head (or that the change
    adds and fails): observed. The other parts not reviewed lower confidence, not level, but a chart
    bump's (verdict/confidence.py)."""
    out = []
    added = review.added_paths
    for chart in review.chart_reviews:
        if chart.probe:
            continue  # made-up values: a failure there is not reviewed, not an observed break
        for failure in chart.templates_not_rendered:
            if failure.reads_cluster:
                continue  # a lookup answered offline: not reviewed, not an observed break
            if chart.base.status is RenderStatus.OK and failure.base_error is None:
                how = (
                    "that the change adds fails"
                    if failure.template in added
                    else "renders at base but fails"
                )
                out.append(
                    (
                        RiskLevel.HIGH,
                        f"template {failure.template} of chart {chart.chart} {how} at head",
                    )
                )
        if chart.outcome is not ChartOutcome.NOT_REVIEWED or chart.rejects_upgrade:
            continue  # rejected upgrade values are observed: upgrade-values-rejected judges them
        if (
            chart.base.status is RenderStatus.OK
            and chart.head.status is RenderStatus.FAILED
            and not chart.head.reads_cluster
        ):
            out.append((RiskLevel.HIGH, f"chart {chart.chart} renders at base but fails at head"))
    return out


def _assess(
    candidates: list[tuple[RiskLevel, str]], unverified: tuple[str, ...] = ()
) -> Assessment:
    level = highest([level for level, _ in candidates])
    ordered = sorted(candidates, key=lambda item: (-item[0].rank, item[1]))
    reasons = tuple(
        dict.fromkeys(
            reason for lvl, reason in ordered if lvl is level and lvl is not RiskLevel.MINIMAL
        )
    )
    return Assessment(level, reasons, unverified)
