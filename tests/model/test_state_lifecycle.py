"""The pure parts of review state: the findings lifecycle, review scopes, full vs incremental, targets."""

from __future__ import annotations

import subprocess
from dataclasses import replace

import pytest

from aftershock.findings.model import SubjectKind
from aftershock.model.errors import ConfigError
from aftershock.model.state_lifecycle import LifecycleState, compare
from aftershock.model.state_mode import Ancestry, CurrentReview, RequestedMode, decide_review_mode
from aftershock.model.state_records import (
    Decision,
    ReviewMode,
    ReviewStatus,
    ReviewSummary,
    ReviewTarget,
    SuppressedFinding,
    Suppression,
    TargetKind,
    normalize_repository,
    stored_finding,
)
from aftershock.model.state_scope import ReviewScope
from gitrepo import commit, git, make_repo
from state_support import PR, REPO, T0, finding

RBAC = finding("rbac-wildcard", "web::rbac.authorization.k8s.io/Role/default/web", {"verbs": ["*"]})
PSS = finding("pss-privileged", "web::apps/Deployment/default/web", {"container": "app"})
IMG = finding("image-latest", "api::apps/Deployment/default/api", {"image": "nginx:latest"})


def dismissal(f, digest=None) -> Decision:
    return Decision(f.fingerprint, True, "accepted risk", "ada", T0, digest or f.evidence_digest)


def states(lifecycle):
    return [
        (entry.state, entry.finding.rule_id, entry.carried_forward) for entry in lifecycle.entries
    ]


def test_new_retained_and_resolved_since_the_previous_head():
    previous = [stored_finding(RBAC), stored_finding(PSS)]
    result = compare(previous, [PSS, IMG], {}, previous_head="a" * 40)
    assert states(result) == [
        (LifecycleState.RETAINED, "pss-privileged", False),
        (LifecycleState.NEW, "image-latest", False),
        (LifecycleState.RESOLVED, "rbac-wildcard", False),
    ]
    (resolved,) = result.resolved
    assert resolved.resolved_since == "a" * 40 and resolved.finding == stored_finding(RBAC)
    assert [e.finding for e in result.current] == [PSS, IMG]


def test_matching_ignores_message_and_location_but_not_subject():
    moved = replace(PSS, message="reworded", location=None)
    other_subject = finding(
        "pss-privileged", "web::apps/Deployment/default/web2", {"container": "app"}
    )
    result = compare([stored_finding(PSS)], [moved, other_subject], {})
    assert [e.state for e in result.entries] == [LifecycleState.RETAINED, LifecycleState.NEW]


def test_a_dismissal_holds_until_the_evidence_changes():
    result = compare([stored_finding(RBAC)], [RBAC], {RBAC.fingerprint: dismissal(RBAC)})
    (entry,) = result.entries
    assert entry.state is LifecycleState.DISMISSED and entry.dismissal.reason == "accepted risk"

    widened = finding("rbac-wildcard", RBAC.subject.id, {"verbs": ["*", "escalate"]})
    assert (
        widened.fingerprint == RBAC.fingerprint and widened.evidence_digest != RBAC.evidence_digest
    )
    (entry,) = compare(
        [stored_finding(RBAC)], [widened], {RBAC.fingerprint: dismissal(RBAC)}
    ).entries
    assert entry.state is LifecycleState.RETAINED
    assert entry.dismissal is None and entry.lapsed_dismissal.by == "ada"


def test_a_reopened_fingerprint_is_not_dismissed():
    reopened = replace(dismissal(RBAC), dismissed=False)
    (entry,) = compare([], [RBAC], {RBAC.fingerprint: reopened}).entries
    assert entry.state is LifecycleState.NEW


def test_what_the_review_did_not_examine_is_carried_forward_not_resolved():
    previous = [stored_finding(RBAC), stored_finding(IMG)]
    scope = ReviewScope.only(charts=frozenset({"web"}), files=frozenset(), commits=frozenset())
    result = compare(previous, [], {}, previous_head="a" * 40, in_scope=lambda f: scope.covers(f))
    assert states(result) == [
        (LifecycleState.RETAINED, "image-latest", True),
        (LifecycleState.RESOLVED, "rbac-wildcard", False),
    ]


IGNORED = Suppression("the operator needs it", "annotation aftershock.io/ignore at base")


def test_a_finding_the_repository_now_suppresses_is_suppressed_not_resolved():
    previous = [stored_finding(RBAC), stored_finding(PSS)]
    result = compare(
        previous, [PSS], {}, suppressed=[SuppressedFinding(RBAC, IGNORED)], previous_head="a" * 40
    )
    assert states(result) == [
        (LifecycleState.RETAINED, "pss-privileged", False),
        (LifecycleState.SUPPRESSED, "rbac-wildcard", False),
    ]
    (silenced,) = result.suppressed
    assert silenced.suppression == IGNORED and silenced.suppressed_since == "a" * 40
    assert result.resolved == () and [e.finding for e in result.current] == [PSS, RBAC]


def test_suppressed_since_names_only_a_head_that_raised_it():
    first = compare([], [], {}, suppressed=[SuppressedFinding(RBAC, IGNORED)])
    assert first.suppressed[0].suppressed_since is None  # never raised
    still = compare(
        [stored_finding(RBAC)],
        [],
        {},
        suppressed=[SuppressedFinding(RBAC, IGNORED)],
        previous_suppressions={RBAC.fingerprint: IGNORED},
        previous_head="a" * 40,
    )
    assert still.suppressed[0].suppressed_since is None  # suppressed there already
    was_dismissed = compare(
        [stored_finding(RBAC)],
        [],
        {RBAC.fingerprint: dismissal(RBAC)},
        suppressed=[SuppressedFinding(RBAC, IGNORED)],
        previous_head="a" * 40,
    )
    (entry,) = was_dismissed.entries
    assert entry.state is LifecycleState.SUPPRESSED and entry.suppressed_since is None


def test_a_suppression_removed_brings_the_finding_back_and_a_fix_resolves_it():
    previous = [stored_finding(RBAC), stored_finding(PSS)]
    before = {RBAC.fingerprint: IGNORED, PSS.fingerprint: IGNORED}
    result = compare(previous, [RBAC], {}, previous_suppressions=before, previous_head="a" * 40)
    assert states(result) == [
        (LifecycleState.RETAINED, "rbac-wildcard", False),
        (LifecycleState.RESOLVED, "pss-privileged", False),  # gone at head: it did go away
    ]
    assert result.entries[0].suppression is None


def test_a_suppressed_finding_not_examined_again_is_carried_forward_suppressed():
    previous = [stored_finding(RBAC), stored_finding(IMG)]
    result = compare(
        previous,
        [],
        {},
        previous_suppressions={IMG.fingerprint: IGNORED},
        previous_head="a" * 40,
        in_scope=lambda _finding: False,
    )
    assert states(result) == [
        (LifecycleState.RETAINED, "rbac-wildcard", True),
        (LifecycleState.SUPPRESSED, "image-latest", True),
    ]
    assert result.suppressed[0].suppression == IGNORED


@pytest.mark.parametrize(
    ("kind", "subject", "covered"),
    [
        (SubjectKind.OBJECT, "charts/web::apps/Deployment/default/web", True),
        (SubjectKind.OBJECT, "charts/api::apps/Deployment/default/api", False),
        (SubjectKind.CHART, "charts/web", True),
        (SubjectKind.VALUES_KEY, "charts/web/values.yaml#image.tag", True),
        (SubjectKind.VALUES_KEY, "overrides/prod.yaml#image.tag", True),
        (SubjectKind.VALUES_KEY, "charts/api/values.yaml#image.tag", False),
        (SubjectKind.FILE, "overrides/prod.yaml", True),
        (SubjectKind.FILE, "README.md", False),
        (SubjectKind.COMMIT, "c" * 40, True),
        (SubjectKind.COMMIT, "d" * 40, False),
    ],
)
def test_an_incremental_scope_covers_its_charts_files_and_commits(kind, subject, covered):
    scope = ReviewScope.only(
        frozenset({"charts/web"}), frozenset({"overrides/prod.yaml"}), frozenset({"c" * 40})
    )
    assert scope.covers(stored_finding(finding("r", subject, kind=kind))) is covered


def test_a_whole_review_does_not_cover_the_charts_it_could_not_render():
    scope = ReviewScope.whole_change(skipped_charts=frozenset({"charts/api"}))
    assert scope.covers(stored_finding(RBAC))
    assert not scope.covers(stored_finding(finding("r", "charts/api::v1/Service/default/api")))
    assert not scope.covers(
        stored_finding(finding("r", "charts/api/values.yaml#x", kind=SubjectKind.VALUES_KEY))
    )
    assert scope.covers(stored_finding(finding("r", "charts/web::v1/Service/default/web")))


def summary(
    head="a" * 40, *, base="b" * 40, status=ReviewStatus.COMPLETE, config="cfg1"
) -> ReviewSummary:
    return ReviewSummary(
        1,
        REPO,
        PR,
        base,
        head,
        status,
        ReviewMode.FULL,
        None,
        "0.1.0",
        config,
        T0,
        T0,
        (),
        {},
        (),
    )


NOW = CurrentReview(
    head_sha="c" * 40, base_sha="b" * 40, config_hash="cfg1", aftershock_version="0.1.0"
)


def test_since_last_is_incremental_from_the_last_reviewed_head():
    plan = decide_review_mode(RequestedMode.SINCE_LAST, summary(), NOW, Ancestry.ANCESTOR)
    assert (plan.mode, plan.since_sha, plan.force_pushed) == (
        ReviewMode.INCREMENTAL,
        "a" * 40,
        False,
    )
    assert plan.reason == "reviewing what changed since aaaaaaa"


@pytest.mark.parametrize(
    ("last", "ancestry", "reason"),
    [
        (None, None, "first review of this target"),
        (
            summary(),
            Ancestry.NOT_ANCESTOR,
            "force-push detected: last reviewed head aaaaaaa is not an ancestor of ccccccc",
        ),
        (
            summary(),
            Ancestry.MISSING,
            "force-push detected: last reviewed head aaaaaaa is no longer in this repository",
        ),
        (summary(), None, "could not check that aaaaaaa is an ancestor of ccccccc"),
        (
            summary(status=ReviewStatus.PARTIAL),
            Ancestry.ANCESTOR,
            "the last review (aaaaaaa) was partial",
        ),
        (summary(base="e" * 40), Ancestry.ANCESTOR, "the base moved from eeeeeee to bbbbbbb"),
        (summary(config="cfg0"), Ancestry.ANCESTOR, "aftershock or its configuration changed"),
    ],
)
def test_since_last_falls_back_to_a_full_review_and_says_why(last, ancestry, reason):
    plan = decide_review_mode(RequestedMode.SINCE_LAST, last, NOW, ancestry)
    assert plan.mode is ReviewMode.FULL and plan.since_sha is None
    assert plan.reason.startswith(reason)
    assert plan.force_pushed is (ancestry in (Ancestry.NOT_ANCESTOR, Ancestry.MISSING))


def test_a_force_push_is_reported_whatever_mode_was_asked_for():
    for requested in RequestedMode:
        plan = decide_review_mode(requested, summary(), NOW, Ancestry.NOT_ANCESTOR)
        assert (
            plan.mode is ReviewMode.FULL
            and plan.force_pushed
            and plan.reason.startswith("force-push detected")
        )
    assert (
        decide_review_mode(RequestedMode.FULL, summary(), NOW, Ancestry.ANCESTOR).mode
        is ReviewMode.FULL
    )
    assert (
        decide_review_mode(RequestedMode.DEFAULT, summary(), NOW, Ancestry.ANCESTOR).mode
        is ReviewMode.FULL
    )


def test_an_unchanged_head_is_incremental_with_nothing_new():
    plan = decide_review_mode(
        RequestedMode.SINCE_LAST, summary(head="c" * 40), NOW, Ancestry.ANCESTOR
    )
    assert (plan.mode, plan.since_sha) == (ReviewMode.INCREMENTAL, "c" * 40)
    assert plan.reason == "no new commits since the last review of ccccccc"


def ancestry(repo, last: str, new: str) -> Ancestry:
    """The answer the pipeline gets from git, as the mode module's docstring describes."""

    def run(*args):
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False).returncode

    if run("cat-file", "-e", f"{last}^{{commit}}") != 0:
        return Ancestry.MISSING
    return (
        Ancestry.ANCESTOR
        if run("merge-base", "--is-ancestor", last, new) == 0
        else Ancestry.NOT_ANCESTOR
    )


def test_force_push_detection_on_a_real_history(tmp_path):
    repo = make_repo(tmp_path)
    base = commit(repo, {"a.txt": "1\n"}, "base")
    reviewed = commit(repo, {"a.txt": "2\n"}, "first push")
    pushed = commit(repo, {"a.txt": "3\n"}, "second push")
    git(repo, "reset", "-q", "--hard", base)
    rewritten = commit(repo, {"a.txt": "4\n"}, "force-pushed")
    last = summary(head=reviewed, base=base)
    now = replace(NOW, base_sha=base)
    plan = decide_review_mode(
        RequestedMode.SINCE_LAST,
        last,
        replace(now, head_sha=pushed),
        ancestry(repo, reviewed, pushed),
    )
    assert plan.mode is ReviewMode.INCREMENTAL and plan.since_sha == reviewed
    plan = decide_review_mode(
        RequestedMode.SINCE_LAST,
        last,
        replace(now, head_sha=rewritten),
        ancestry(repo, reviewed, rewritten),
    )
    assert plan.mode is ReviewMode.FULL and plan.force_pushed
    assert ancestry(repo, "f" * 40, rewritten) is Ancestry.MISSING


@pytest.mark.parametrize(
    ("text", "kind", "name"),
    [
        ("12", TargetKind.PULL_REQUEST, "12"),
        ("#7", TargetKind.PULL_REQUEST, "7"),
        ("pr:3", TargetKind.PULL_REQUEST, "3"),
        ("feature/x", TargetKind.BRANCH, "feature/x"),
        ("branch:123", TargetKind.BRANCH, "123"),
    ],
)
def test_review_targets_parse(text, kind, name):
    assert ReviewTarget.parse(text) == ReviewTarget(kind, name)


def test_an_empty_target_is_refused():
    with pytest.raises(ConfigError, match="empty review target"):
        ReviewTarget.parse(" ")


@pytest.mark.parametrize(
    "remote",
    [
        "git@github.com:acme/platform.git",
        "https://github.com/acme/platform",
        "ssh://git@github.com/acme/platform.git",
        "https://token@GitHub.com/acme/platform.git",
    ],
)
def test_clones_of_one_repository_share_a_key(remote):
    assert normalize_repository(remote, "/src/platform") == "github.com/acme/platform"
    assert normalize_repository(None, "/src/platform") == "/src/platform"
