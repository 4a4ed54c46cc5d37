"""End to end through real HTTP: a signed pull_request delivery becomes a real review (git fetch over
smart HTTP from the fake GitHub, real Helm), one sticky comment updated in place, and check runs that
go queued -> in_progress -> completed."""

from __future__ import annotations

import httpx
import pytest

from charts import app_chart
from gitrepo import commit, make_repo
from server_fakes import AppKey, FakeGitHub
from server_harness import deliver, pull_request_payload, service_settings, start_service, wait_for
from aftershock.server.ledger import Outcome
from aftershock.server.publish import COMMENT_MARKER

REPO = "acme/platform"


@pytest.fixture(scope="module")
def key() -> AppKey:
    return AppKey.generate()


@pytest.fixture
def fake(tmp_path, key):
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    yield fake
    fake.stop()


def _outcome(running, delivery: str) -> Outcome | None:
    row = running.service.ledger.get(delivery)
    return row.outcome if row is not None and row.outcome.final else None


def test_pushes_are_reviewed_with_one_sticky_comment_and_check_runs(tmp_path, fake, key):
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base")
    head = commit(repo, {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"}, "more replicas")
    fake.serve_repository(REPO, repo)
    running = start_service(service_settings(fake, key, tmp_path, upload_sarif=True, fail_on="minimal"))
    try:
        with httpx.Client() as client:
            answer = deliver(client, running.url, "pull_request", pull_request_payload(REPO, 5, head, base), "d-1")
            assert answer.status_code == 202 and answer.json()["outcome"] == "accepted"
            assert wait_for(lambda: _outcome(running, "d-1"), 120, "the first review") is Outcome.REVIEWED
            head2 = commit(repo, {"charts/app/values.yaml": "replicas: 4\nimage: nginx:1.27.0\nmode: fast\n"}, "again")
            fake.serve_repository(REPO, repo)
            deliver(client, running.url, "pull_request", pull_request_payload(REPO, 5, head2, base, "synchronize"), "d-2")
            assert wait_for(lambda: _outcome(running, "d-2"), 120, "the second review") is Outcome.REVIEWED
    finally:
        running.stop()
    comments = fake.comments_on(REPO, 5)
    assert len(comments) == 1 and comments[0]["body"].startswith(COMMENT_MARKER)
    assert comments[0].get("edits") == 1 and head2[:7] in comments[0]["body"]
    for sha in (head, head2):
        (run,) = fake.runs_for(sha)
        assert run.statuses == ["queued", "in_progress", "completed"]
        assert run.conclusion == "failure" and run.output["title"].startswith("Merge risk")  # any risk reaches "minimal"
        # the commit-title findings are actionable: annotated on the changed file, with their fingerprint
        assert run.annotations and all(a["path"] == "charts/app/values.yaml" for a in run.annotations)
        assert all("fingerprint " in a["message"] and a["annotation_level"] == "notice" for a in run.annotations)
    assert [s["commit_sha"] for s in fake.state.sarifs] == [head, head2]
    assert fake.state.sarifs[0]["ref"] == "refs/pull/5/head" and fake.state.sarifs[0]["sarif"]["version"] == "2.1.0"
    assert fake.state.exchanges == 1  # one installation token, cached across both jobs
    # the push was reviewed incrementally: base..head2, rendering only what head..head2 reaches
    assert "reviewing what changed since " + head[:7] in comments[0]["body"]
    assert f"`{base[:7]}..{head2[:7]}`" in comments[0]["body"]
    assert list((tmp_path / "jobs").iterdir()) == []  # per-job clones are deleted
