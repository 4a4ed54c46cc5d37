"""Chat commands through real deliveries: help, write-access checks with a polite refusal, dismiss and
reopen recorded in the state store, explain, pause/resume of reviews on push, and review commands."""

from __future__ import annotations

import httpx
import pytest

from aftershock.model.state_records import ReviewTarget
from aftershock.server.github.commands import CommandKind, parse_command
from aftershock.server.github.events import IntakeKind, RoutingOptions, route
from aftershock.server.queue.ledger import Outcome
from charts import app_chart
from gitrepo import commit, make_repo
from server_fakes import AppKey, FakeGitHub
from server_harness import (
    comment_payload,
    deliver,
    pull_request_payload,
    service_settings,
    start_service,
    wait_for,
)

REPO = "acme/platform"
KEY = "127.0.0.1/acme/platform"


@pytest.mark.parametrize(
    ("body", "kind", "argument", "reason"),
    [
        ("@aftershock help", CommandKind.HELP, "", ""),
        ("Thanks!\n\n@Aftershock   full review", CommandKind.FULL_REVIEW, "", ""),
        ("@aftershock review", CommandKind.REVIEW, "", ""),
        (
            "@aftershock dismiss 3f2a9c1d7e false positive: the port is internal",
            CommandKind.DISMISS,
            "3f2a9c1d7e",
            "false positive: the port is internal",
        ),
        ("@aftershock reopen 3f2a9c1d7e", CommandKind.REOPEN, "3f2a9c1d7e", ""),
        ("@aftershock explain pss-host-namespaces", CommandKind.EXPLAIN, "pss-host-namespaces", ""),
        ("@aftershock pause", CommandKind.PAUSE, "", ""),
        ("@aftershock[bot] resume", CommandKind.RESUME, "", ""),
        ("@aftershock dismiss 3f2a9c1d7e", CommandKind.UNKNOWN, "", ""),
        ("@aftershock make coffee", CommandKind.UNKNOWN, "", ""),
    ],
)
def test_parse_command(body, kind, argument, reason):
    command = parse_command(body)
    assert command is not None and (command.kind, command.argument, command.reason) == (
        kind,
        argument,
        reason,
    )


@pytest.mark.parametrize(
    "body",
    [
        "LGTM",
        "> @aftershock pause\nquoted, not asked",
        "```\n@aftershock pause\n```",
        "cc @aftershocks pause",
        None,
    ],
)
def test_comments_not_addressed_to_us(body):
    assert parse_command(body) is None


def _routed(payload):
    return route("issue_comment", "d", payload, RoutingOptions())


def test_which_comments_become_jobs():
    asked = comment_payload(REPO, 8, "@aftershock full review")
    assert _routed(asked).job.requested.value == "full" and _routed(asked).job.requested_by == "ada"
    on_issue = {**asked, "issue": {"number": 8}}
    by_bot = {
        **asked,
        "comment": {**asked["comment"], "user": {"login": "other[bot]", "type": "Bot"}},
    }
    edited = {**asked, "action": "edited"}
    no_installation = {key: value for key, value in asked.items() if key != "installation"}
    reasons = [_routed(p).reason for p in (on_issue, by_bot, edited, no_installation)]
    assert reasons == [
        "comment on an issue, not a pull request",
        "comment written by a bot",
        "issue_comment edited needs no answer",
        "the delivery names no App installation",
    ]
    assert all(
        _routed(p).kind is IntakeKind.IGNORE for p in (on_issue, by_bot, edited, no_installation)
    )


@pytest.fixture(scope="module")
def key() -> AppKey:
    return AppKey.generate()


def _final(running, delivery):
    row = running.service.ledger.get(delivery)
    return row if row is not None and row.outcome.final else None


class _Conversation:
    """A service with one reviewed pull request (#8), and a way to send deliveries and read replies."""

    def __init__(self, tmp_path, key):
        self.fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
        self.repo = repo = make_repo(tmp_path / "work")
        self.base = commit(repo, app_chart("charts/app", "app"), "base")
        self.head = commit(
            repo,
            {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
            "more replicas",
        )
        self.fake.serve_repository(REPO, repo)
        self.fake.set_pull(REPO, 8, self.head, self.base)
        self.fake.set_permission(REPO, "maintainer", "write")
        self.fake.set_permission(REPO, "reader", "read")
        self.running = start_service(service_settings(self.fake, key, tmp_path))
        self.store = self.running.service.store
        self._numbers = iter(range(100))
        assert (
            self.send("pull_request", pull_request_payload(REPO, 8, self.head, self.base)).outcome
            is Outcome.REVIEWED
        )

    def send(self, event, payload):
        delivery = f"c-{next(self._numbers)}"
        with httpx.Client() as client:
            assert deliver(client, self.running.url, event, payload, delivery).status_code in (
                200,
                202,
            )
        return wait_for(lambda: _final(self.running, delivery), 120, f"delivery {delivery}")

    def say(self, body, login="ada"):
        return self.send("issue_comment", comment_payload(REPO, 8, body, login))

    def last_reply(self):
        return self.fake.comments_on(REPO, 8)[-1]["body"]

    def close(self):
        self.running.stop()
        self.fake.stop()


@pytest.fixture
def talk(tmp_path, key):
    conversation = _Conversation(tmp_path, key)
    yield conversation
    conversation.close()


def test_help_dismiss_reopen_and_explain(talk):
    target = ReviewTarget.pull_request(8)
    finding = talk.store.review_findings(talk.store.latest_review(KEY, target).id)[0][1]
    assert talk.say("@aftershock help").outcome is Outcome.REPLIED
    assert "`@aftershock dismiss <fingerprint> <reason>`" in talk.last_reply()
    refused = talk.say(f"@aftershock dismiss {finding.fingerprint[:10]} nah", "reader")
    assert "refused" in refused.detail and talk.last_reply().startswith(
        "Sorry @reader, only people with write access"
    )
    assert talk.store.dismissals(KEY, target) == {}
    talk.say(f"@aftershock dismiss {finding.fingerprint[:10]} known, tracked in #12", "maintainer")
    decision = talk.store.dismissals(KEY, target)[finding.fingerprint]
    assert (decision.reason, decision.by) == ("known, tracked in #12", "maintainer")
    talk.say(f"@aftershock explain {finding.fingerprint[:12]}", "reader")
    assert (
        talk.last_reply().startswith(f"**{finding.title}** (`{finding.rule_id}`")
        and finding.message in talk.last_reply()
    )
    talk.say(f"@aftershock reopen {finding.fingerprint}", "reader")
    assert talk.store.dismissals(KEY, target) == {}
    talk.say("@aftershock explain no-such-rule-or-finding")
    assert "matches no rule and no finding" in talk.last_reply()
    assert (
        talk.say("@aftershock dance").outcome is Outcome.REPLIED
        and "I did not understand" in talk.last_reply()
    )


def test_pause_resume_and_review_commands(talk):
    push = pull_request_payload(REPO, 8, talk.head, talk.base, "synchronize")
    assert "refused" in talk.say("@aftershock pause", "reader").detail
    talk.say("@aftershock pause", "maintainer")
    paused = talk.send("pull_request", push)
    assert paused.outcome is Outcome.IGNORED and "paused" in paused.detail
    nothing_new = talk.say("@aftershock review")
    assert nothing_new.outcome is Outcome.REPLIED and talk.last_reply().startswith(
        "No new commits since the last review"
    )
    talk.say("@aftershock resume", "maintainer")
    assert talk.send("pull_request", push).outcome is Outcome.REVIEWED
    full = talk.say("@aftershock full review")
    assert full.outcome is Outcome.REVIEWED and full.detail.startswith("full review")
    newer = commit(
        talk.repo,
        {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.1\nmode: fast\n"},
        "fix: image",
    )
    talk.fake.serve_repository(REPO, talk.repo)
    talk.fake.set_pull(REPO, 8, newer, talk.base)
    incremental = talk.say("@aftershock review")
    assert incremental.outcome is Outcome.REVIEWED and incremental.detail.startswith(
        f"incremental review of {newer[:7]}"
    )
    latest = talk.store.latest_review(KEY, ReviewTarget.pull_request(8))
    assert (latest.mode.value, latest.since_sha, latest.base_sha) == (
        "incremental",
        talk.head,
        talk.base,
    )
    body = talk.fake.comments_on(REPO, 8)[0]["body"]
    assert f"reviewing what changed since {talk.head[:7]}" in body
    # base..head is reviewed; only what since..head reaches is rendered again (not a review of since..head alone)
    assert f"`{talk.base[:7]}..{newer[:7]}`" in body
    assert (
        f"The charts changed since {talk.head[:7]} were rendered and compared at both refs" in body
    )
    reviews = [
        c
        for c in talk.fake.comments_on(REPO, 8)
        if c["body"].startswith("<!-- aftershock:review-comment -->")
    ]
    assert len(reviews) == 1
    runs = talk.fake.runs_for(talk.head)
    assert len(runs) == 3 and {r.conclusion for r in runs} == {
        "success"
    }  # low merge risk, below the default "high"
