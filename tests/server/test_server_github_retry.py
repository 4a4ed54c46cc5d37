"""GitHub down or busy, against the fake GitHub on loopback (issue 12, item 8: every job failed at once, was
never retried, and only some kinds of job logged why): calls are retried with bounded backoff, and a
final failure is one error line for every kind of job and a counter in /metrics."""

from __future__ import annotations

import logging
import socket

import httpx
import pytest

from aftershock.server.github.github_api import GitHubClient, GitHubError, RetryPolicy
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
FAST = {"github_attempts": 4, "github_backoff_seconds": 0.01}


@pytest.fixture(scope="module")
def key() -> AppKey:
    return AppKey.generate()


def _final(running, delivery: str) -> Outcome | None:
    row = running.service.ledger.get(delivery)
    return row.outcome if row is not None and row.outcome.final else None


def _closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def test_a_busy_github_is_retried_with_bounded_backoff(tmp_path, key):
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    try:
        with httpx.Client() as http:
            client = GitHubClient(fake.url, "ghs_unknown", http, retry=RetryPolicy(3, 0.01))
            fake.state.unavailable_answers = 2
            with pytest.raises(
                GitHubError, match="HTTP 401"
            ):  # two 503s retried, then GitHub's real answer
                client.pull_request(REPO, 1)
            assert fake.state.calls == ["GET /repos/acme/platform/pulls/1"] * 3
            fake.state.calls.clear()
            fake.state.unavailable_answers = 10
            with pytest.raises(GitHubError, match="HTTP 503"):  # bounded: three attempts in all
                client.pull_request(REPO, 1)
            assert len(fake.state.calls) == 3
            fake.state.calls.clear()
            fake.state.unavailable_answers = 0
            with pytest.raises(GitHubError, match="HTTP 401"):
                client.post_comment(
                    REPO, 1, "hello"
                )  # a refused POST is GitHub's answer: never retried
            assert len(fake.state.calls) == 1
    finally:
        fake.stop()
    assert (
        RetryPolicy(6, 0.5, 8.0).delay(5, None) == 8.0 and RetryPolicy(6, 0.5).delay(2, None) == 1.0
    )


def test_a_review_survives_github_answering_503_for_a_while(tmp_path, key):
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base")
    head = commit(
        repo, {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"}, "three"
    )
    fake.serve_repository(REPO, repo)
    running = start_service(service_settings(fake, key, tmp_path, **FAST))
    try:
        fake.state.unavailable_answers = (
            3  # the token exchange and the check run announce meet a busy GitHub
        )
        with httpx.Client() as client:
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, head, base),
                "b-1",
            )
        assert wait_for(lambda: _final(running, "b-1"), 120, "the review") is Outcome.REVIEWED
    finally:
        running.stop()
        fake.stop()
    assert len(fake.comments_on(REPO, 5)) == 1


def test_an_unreachable_github_fails_every_kind_of_job_with_one_line_and_a_counter(
    tmp_path, key, caplog
):
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    settings = service_settings(fake, key, tmp_path, api_url=_closed_port_url(), **FAST)
    running = start_service(settings)
    try:
        with caplog.at_level(logging.ERROR, logger="aftershock.server"), httpx.Client() as client:
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, "a" * 40, "b" * 40),
                "u-review",
            )
            deliver(
                client,
                running.url,
                "issue_comment",
                comment_payload(REPO, 5, "@aftershock help"),
                "u-command",
            )
            for delivery in ("u-review", "u-command"):
                assert (
                    wait_for(lambda delivery=delivery: _final(running, delivery), 60, delivery)
                    is Outcome.FAILED
                )
            metrics = client.get(f"{running.url}/metrics").text
    finally:
        running.stop()
        fake.stop()
    assert "4 attempt(s)" in running.service.ledger.get("u-review").detail
    for kind, delivery in (("review", "u-review"), ("command", "u-command")):
        assert f'aftershock_job_failures_total{{cause="github",kind="{kind}"}} 1' in metrics
        (line,) = [
            r for r in caplog.records if r.levelno == logging.ERROR and delivery in r.getMessage()
        ]
        assert "cannot reach GitHub" in line.getMessage() and line.exc_info is None
