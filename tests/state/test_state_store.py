"""The state store on real SQLite files and (when reachable) PostgreSQL: reviews, lifecycle, decisions, history."""

from __future__ import annotations

from dataclasses import replace

import pytest

from aftershock.findings.model import SubjectKind
from aftershock.model.state_lifecycle import LifecycleState
from aftershock.model.state_records import (
    ReviewMode,
    ReviewStatus,
    ReviewTarget,
    StoredVerdict,
    SuppressedFinding,
    Suppression,
    UnreviewedPart,
)
from aftershock.model.state_scope import ReviewScope
from aftershock.state.errors import StateError
from aftershock.state.store import open_store
from state_support import PR, REPO, finding, record, state_location  # noqa: F401 (fixture)

RBAC = finding(
    "rbac-wildcard", "charts/web::rbac.authorization.k8s.io/Role/default/web", {"verbs": ["*"]}
)
PSS = finding("pss-privileged", "charts/web::apps/Deployment/default/web", {"container": "app"})
IMG = finding("image-latest", "charts/api::apps/Deployment/default/api", {"image": "nginx:latest"})
H1, H2, H3, H4 = ("1" * 40, "2" * 40, "3" * 40, "4" * 40)


@pytest.fixture
def store(state_location):
    opened = open_store(state_location)
    yield opened
    opened.close()


def states(entries):
    return [(e.state, e.finding.rule_id) for e in entries]


def test_a_second_push_shows_new_retained_and_resolved(store):
    first = store.record_review(record(H1, (RBAC, PSS)))
    assert states(first.lifecycle.entries) == [
        (LifecycleState.NEW, "rbac-wildcard"),
        (LifecycleState.NEW, "pss-privileged"),
    ]
    second = store.record_review(record(H2, (PSS, IMG)))
    assert states(second.lifecycle.entries) == [
        (LifecycleState.RETAINED, "pss-privileged"),
        (LifecycleState.NEW, "image-latest"),
        (LifecycleState.RESOLVED, "rbac-wildcard"),
    ]
    assert second.lifecycle.resolved[0].resolved_since == H1
    stored = store.review_findings(second.review_id)
    assert [(state, f.rule_id, f.subject_display) for state, f in stored][2] == (
        LifecycleState.RESOLVED,
        "rbac-wildcard",
        "rbac.authorization.k8s.io/Role/default/web",
    )
    third = store.record_review(record(H3, (PSS, IMG)))  # the resolved one is not resolved again
    assert states(third.lifecycle.entries) == [
        (LifecycleState.RETAINED, "pss-privileged"),
        (LifecycleState.RETAINED, "image-latest"),
    ]


def test_history_lists_every_review_newest_first_with_honest_status(store):
    store.record_review(record(H1, (RBAC,)))
    gap = (UnreviewedPart("chart charts/api", "dependency redis is not vendored"),)
    store.record_review(record(H2, (RBAC,), status=ReviewStatus.PARTIAL, not_reviewed=gap))
    store.record_review(
        record(
            H3,
            (RBAC, PSS),
            status=ReviewStatus.FAILED,
            not_reviewed=(UnreviewedPart("review", "killed"),),
        )
    )
    store.record_review(record(H4, (RBAC,), target=ReviewTarget.branch("main")))
    history = store.history(REPO, PR)
    assert [(s.head_sha, s.status) for s in history] == [
        (H3, ReviewStatus.FAILED),
        (H2, ReviewStatus.PARTIAL),
        (H1, ReviewStatus.COMPLETE),
    ]
    assert (
        history[0].counts == {} and history[0].verdicts == ()
    )  # a failed review keeps no findings or verdicts
    assert history[1].not_reviewed == gap and history[1].counts == {"retained": 1}
    assert history[2].verdicts == (StoredVerdict("merge_risk", "low", H1, "observed: one change"),)
    assert (history[2].aftershock_version, history[2].config_hash, history[2].mode) == (
        "0.1.0",
        "cfg1",
        ReviewMode.FULL,
    )
    assert store.latest_review(REPO, PR).head_sha == H2
    assert store.latest_review(REPO, PR, include_failed=True).head_sha == H3
    assert [s.head_sha for s in store.history(REPO, ReviewTarget.branch("main"))] == [H4]
    assert store.history(REPO, ReviewTarget.pull_request(99)) == ()


def test_a_failed_review_resolves_nothing(store):
    store.record_review(record(H1, (RBAC, PSS)))
    failed = store.record_review(record(H2, (), status=ReviewStatus.FAILED))
    assert failed.lifecycle.entries == ()
    after = store.record_review(record(H3, (RBAC, PSS)))
    assert after.lifecycle.previous_head == H1
    assert [e.state for e in after.lifecycle.entries] == [LifecycleState.RETAINED] * 2


def test_a_partial_review_carries_forward_what_it_could_not_see(store):
    store.record_review(record(H1, (RBAC, IMG)))
    scope = ReviewScope.whole_change(skipped_charts=frozenset({"charts/api"}))
    partial = store.record_review(record(H2, (), status=ReviewStatus.PARTIAL), scope)
    assert [(e.state, e.finding.rule_id, e.carried_forward) for e in partial.lifecycle.entries] == [
        (LifecycleState.RETAINED, "image-latest", True),
        (LifecycleState.RESOLVED, "rbac-wildcard", False),
    ]
    without_scope = store.record_review(record(H3, (), status=ReviewStatus.PARTIAL))
    assert [(e.state, e.carried_forward) for e in without_scope.lifecycle.entries] == [
        (LifecycleState.RETAINED, True)
    ]


def test_an_incremental_review_carries_forward_untouched_charts(store):
    store.record_review(record(H1, (RBAC, IMG)))
    scope = ReviewScope.only(
        frozenset({"charts/web"}), frozenset({"charts/web/values.yaml"}), frozenset({H2})
    )
    result = store.record_review(record(H2, (PSS,), mode=ReviewMode.INCREMENTAL), scope)
    assert [(e.state, e.finding.rule_id, e.carried_forward) for e in result.lifecycle.entries] == [
        (LifecycleState.NEW, "pss-privileged", False),
        (LifecycleState.RETAINED, "image-latest", True),
        (LifecycleState.RESOLVED, "rbac-wildcard", False),
    ]
    assert store.history(REPO, PR)[0].mode is ReviewMode.INCREMENTAL


def test_dismissed_until_the_evidence_changes_then_reopened(store):
    store.record_review(record(H1, (RBAC, PSS)))
    decision = store.dismiss(REPO, PR, RBAC.fingerprint[:10], "the operator needs it", "ada")
    assert (decision.fingerprint, decision.evidence_digest, decision.by) == (
        RBAC.fingerprint,
        RBAC.evidence_digest,
        "ada",
    )
    same = store.record_review(record(H2, (RBAC, PSS)))
    (dismissed,) = same.lifecycle.dismissed
    assert (
        dismissed.finding.rule_id == "rbac-wildcard"
        and dismissed.dismissal.reason == "the operator needs it"
    )
    assert store.history(REPO, PR)[0].counts == {"dismissed": 1, "retained": 1}

    widened = finding("rbac-wildcard", RBAC.subject.id, {"verbs": ["*", "escalate"]})
    back = store.record_review(record(H3, (widened, PSS)))
    assert states(back.lifecycle.entries) == [
        (LifecycleState.RETAINED, "rbac-wildcard"),
        (LifecycleState.RETAINED, "pss-privileged"),
    ]
    assert back.lifecycle.entries[0].lapsed_dismissal.reason == "the operator needs it"

    store.dismiss(REPO, PR, PSS.fingerprint, "false positive", "bob")
    assert (
        store.record_review(record(H4, (widened, PSS))).lifecycle.dismissed[0].finding.rule_id
        == "pss-privileged"
    )
    store.reopen(REPO, PR, PSS.fingerprint, by="carol")
    assert store.dismissals(REPO, PR).keys() == {RBAC.fingerprint}
    assert store.preview(REPO, PR, (widened, PSS)).dismissed == ()


def test_a_suppression_is_kept_with_the_review_and_carried_with_its_reason(store):
    silenced = Suppression("the operator needs it", "dismissals file, by ops")
    store.record_review(record(H1, (RBAC, IMG)))
    second = store.record_review(
        replace(record(H2, (IMG,)), suppressed=(SuppressedFinding(RBAC, silenced),))
    )
    assert states(second.lifecycle.entries) == [
        (LifecycleState.RETAINED, "image-latest"),
        (LifecycleState.SUPPRESSED, "rbac-wildcard"),
    ]
    assert second.lifecycle.suppressed[0].suppressed_since == H1
    assert store.history(REPO, PR)[0].counts == {"retained": 1, "suppressed": 1}
    assert [state for state, _ in store.review_findings(second.review_id)] == [
        LifecycleState.RETAINED,
        LifecycleState.SUPPRESSED,
    ]

    # an incremental review that looked at neither: both carried, the suppression read back
    carried = store.record_review(record(H3, (), mode=ReviewMode.INCREMENTAL))
    assert [(e.state, e.carried_forward) for e in carried.lifecycle.entries] == [
        (LifecycleState.RETAINED, True),
        (LifecycleState.SUPPRESSED, True),
    ]
    assert carried.lifecycle.suppressed[0].suppression == silenced
    assert (
        store.preview(REPO, PR, (), ReviewScope.only(frozenset(), frozenset(), frozenset()))
        .suppressed[0]
        .suppression
        == silenced
    )

    back = store.record_review(record(H4, (RBAC, IMG)))
    assert states(back.lifecycle.entries) == [
        (LifecycleState.RETAINED, "rbac-wildcard"),
        (LifecycleState.RETAINED, "image-latest"),
    ]


def test_decisions_refer_to_findings_of_the_last_review(store):
    store.record_review(record(H1, (RBAC,)))
    with pytest.raises(
        StateError,
        match=r"no finding 0123456789 in the last review of PR #12 \(github.com/acme/platform\)",
    ):
        store.dismiss(REPO, PR, "0123456789", "why", "ada")
    with pytest.raises(StateError, match="needs a reason"):
        store.dismiss(REPO, PR, RBAC.fingerprint, "  ", "ada")
    with pytest.raises(StateError, match="no finding"):
        store.dismiss(REPO, PR, RBAC.fingerprint[:4], "too short a prefix", "ada")
    with pytest.raises(StateError, match="no dismissed finding"):
        store.reopen(REPO, PR, RBAC.fingerprint)
    with pytest.raises(StateError, match="no finding"):
        store.dismiss(REPO, ReviewTarget.pull_request(13), RBAC.fingerprint, "other target", "ada")


def test_payloads_and_subject_kinds_survive_the_round_trip(store):
    commit_finding = finding("fixup-left", "c" * 40, kind=SubjectKind.COMMIT)
    rec = replace(
        record(H1, (commit_finding,)),
        payloads={commit_finding.fingerprint: {"rule": "fixup-left", "line": None}},
    )
    recorded = store.record_review(rec)
    ((state, stored),) = store.review_findings(recorded.review_id)
    assert (state, stored.subject_kind, stored.subject_id) == (
        LifecycleState.NEW,
        "commit",
        "c" * 40,
    )
    assert stored.payload == {"rule": "fixup-left", "line": None}


def test_reopening_the_same_store_sees_everything(state_location):
    first = open_store(state_location)
    first.record_review(record(H1, (RBAC,)))
    first.close()
    again = open_store(state_location)
    assert [s.head_sha for s in again.history(REPO, PR)] == [H1]
    again.close()
