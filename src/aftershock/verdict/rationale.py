"""The rationale paragraph of each verdict, generated from the facts of the review and its findings.

Sentences, in order: what changed, what was observed (the findings that set the level), what the
tests showed, what narrowed, and what remains unverified. No sentence is written without a fact
behind it, and the same review always gives the same text.
"""

from __future__ import annotations

from collections.abc import Sequence

from aftershock.findings.model import RULE_ERROR_ID, Category, Delta, Finding
from aftershock.model.releases import split_release_id
from aftershock.model.review import ChartOutcome, ChartReview, Review
from aftershock.model.tests import TESTS_PART
from aftershock.verdict.confidence import unverified_parts
from aftershock.verdict.levels import touches_security
from aftershock.verdict.model import NO_ACTIONABLE_FINDINGS, Assessment

MAX_NAMED = 3


def merge_rationale(review: Review, findings: Sequence[Finding], assessment: Assessment) -> str:
    actionable = [f for f in findings if f.actionable and f.rule_id != RULE_ERROR_ID]
    sentences = [
        _what_changed(review),
        _observed(actionable),
        _tests(review, findings),
        _unverified(review, findings),
    ]
    return " ".join(s for s in sentences if s)


def security_rationale(review: Review, findings: Sequence[Finding], assessment: Assessment) -> str:
    security = [
        f for f in findings if f.category is Category.SECURITY and f.rule_id != RULE_ERROR_ID
    ]
    actionable = [f for f in security if f.actionable]
    touched = sorted(
        {str(c.key) for r in review.chart_reviews for c in r.changes if touches_security(c)}
    )
    if touched:
        surface = f"The change touches the security surface of {_named(touched)}."
    else:
        surface = "The change touches no RBAC, network, Secret, exposure or pod security field in what was rendered."
    improved = [f for f in security if f.delta in (Delta.NARROWED, Delta.RESOLVED)]
    narrowed = (
        f"It narrows or removes {len(improved)} existing security concern(s)." if improved else ""
    )
    sentences = [
        surface,
        _observed(actionable, "security "),
        narrowed,
        _unverified(review, findings),
    ]
    return " ".join(s for s in sentences if s)


def _what_changed(review: Review) -> str:
    head = f"{len(review.commits)} commit(s) change {len(review.files)} file(s)"
    installs: dict[tuple[str, str | None], list[ChartReview]] = {}
    for r in review.chart_reviews:
        if r.renders_differently:
            installs.setdefault((r.chart, r.release), []).append(r)
    if not installs:
        rendered = (
            "no rendered Kubernetes object changes"
            if review.chart_reviews or review.affected
            else "no chart is affected"
        )
        return f"{head}; {rendered}."
    names = [
        _install_summary(reviews)
        for _, reviews in sorted(installs.items(), key=lambda item: (item[0][0], item[0][1] or ""))
    ]
    return f"{head}; {len(installs)} chart install(s) render differently: {_named(names)}."


def _install_summary(reviews: list[ChartReview]) -> str:
    """`orders@orders (3 objects)` (`api@api in prod` for a fleet's cluster), naming the scenarios
    when the default one does not change."""
    first = reviews[0]
    name = first.name
    if first.release:
        key, tree = split_release_id(first.release)
        name += f"@{key.name}" + (f" in {tree}" if tree else "")
    default = [r for r in reviews if r.scenario == "default" and r.outcome is ChartOutcome.CHANGED]
    if default:
        return f"{name} ({len(default[0].changes)} object(s))"
    scenarios = ", ".join(sorted(r.scenario for r in reviews))
    return f"{name} (only in scenario(s) {scenarios})"


def _observed(actionable: list[Finding], kind: str = "") -> str:
    if not actionable:
        return f"{NO_ACTIONABLE_FINDINGS}{' for security' if kind else ''}."
    top = actionable[:MAX_NAMED]
    named = "; ".join(f"{f.severity.label.lower()}: {f.title} on {f.subject.display}" for f in top)
    more = f" and {len(actionable) - len(top)} more" if len(actionable) > len(top) else ""
    return f"Observed {len(actionable)} actionable {kind}finding(s) ({named}{more})."


def _tests(review: Review, findings: Sequence[Finding]) -> str:
    stale = [f for f in findings if f.category is Category.TESTS and f.actionable]
    stale_text = (
        f"; {len(stale)} test assertion(s) no longer match the head render" if stale else ""
    )
    evidence = review.tests
    cut = next((gap.reason for gap in review.not_reviewed if gap.part == TESTS_PART), None)
    if evidence is None and cut:
        return f"Chart tests were not reviewed ({cut}){stale_text}."
    if evidence is None:  # --no-tests (or `review: tests: false`): whether suites exist is unknown
        return f"Chart tests were not run{stale_text}."
    if not evidence.charts:
        return f"No affected chart has helm-unittest suites{stale_text}."
    runs = [t for chart in evidence.charts for t in chart.tests]
    failing = sum(t.change.value == "newly_failing" for t in runs)
    errors = sum(len(c.base.suite_errors) + len(c.head.suite_errors) for c in evidence.charts)
    not_run = sum(c.base.not_run for c in evidence.charts)
    where = (
        f"at head and, where a finding needs it, at base ({not_run} passing at head not run there)"
        if not_run
        else "at base and head"
    )
    observed = f"The charts' {len(runs)} helm-unittest test(s) ran {where}: {failing} newly failing"
    if errors:
        observed += f", {errors} suite(s) could not run"
    return observed + stale_text + "."


def _unverified(review: Review, findings: Sequence[Finding]) -> str:
    gaps = list(unverified_parts(review, findings))
    context = [gap.part for gap in review.not_reviewed if gap.context]
    pre = sum(f.delta is Delta.PRE_EXISTING for f in findings)
    parts = []
    if gaps:
        parts.append(
            f"Not verified: {_named(gaps)}; the level counts what was observed, the rest is unknown."
        )
    else:
        parts.append("Every affected chart was rendered and compared at both refs.")
    if context:
        parts.append(
            f"Context not reviewed, failing alike at both refs (the change did not make it fail, and reaches it only through a lookup, renders elsewhere, or reaches its chart through another dependency): {_named(context)}."
        )
    if pre:
        parts.append(f"{pre} pre-existing concern(s) are listed apart and do not count.")
    return " ".join(parts)


def _named(items: Sequence[str]) -> str:
    shown = list(items[:MAX_NAMED])
    if len(items) > MAX_NAMED:
        shown.append(f"{len(items) - MAX_NAMED} more")
    return ", ".join(shown)
