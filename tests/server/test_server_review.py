"""End to end through real HTTP: a signed pull_request delivery becomes a real review (git fetch over
smart HTTP from the fake GitHub, real Helm), one sticky comment updated in place, and check runs that
go queued -> in_progress -> completed."""

from __future__ import annotations

import httpx
import pytest

from aftershock.server.github.events import IntakeKind, RoutingOptions, route
from aftershock.server.publish import COMMENT_MARKER
from aftershock.server.queue.ledger import Outcome
from charts import app_chart
from gitrepo import commit, make_repo
from server_fakes import AppKey, FakeGitHub
from server_harness import (
    deliver,
    pull_request_payload,
    rerun_payload,
    service_settings,
    start_service,
    wait_for,
)

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
    # commitlint at base: the repository keeps Conventional Commits, so the titles below are findings
    base = commit(
        repo,
        {
            **app_chart("charts/app", "app"),
            ".commitlintrc.yaml": "extends: ['@commitlint/config-conventional']\n",
        },
        "base",
    )
    head = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "more replicas",
    )
    fake.serve_repository(REPO, repo)
    running = start_service(
        service_settings(fake, key, tmp_path, upload_sarif=True, fail_on="minimal")
    )
    try:
        with httpx.Client() as client:
            answer = deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, head, base),
                "d-1",
            )
            assert answer.status_code == 202 and answer.json()["outcome"] == "accepted"
            assert (
                wait_for(lambda: _outcome(running, "d-1"), 120, "the first review")
                is Outcome.REVIEWED
            )
            head2 = commit(
                repo,
                {"charts/app/values.yaml": "replicas: 4\nimage: nginx:1.27.0\nmode: fast\n"},
                "again",
            )
            fake.serve_repository(REPO, repo)
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, head2, base, "synchronize"),
                "d-2",
            )
            assert (
                wait_for(lambda: _outcome(running, "d-2"), 120, "the second review")
                is Outcome.REVIEWED
            )
    finally:
        running.stop()
    comments = fake.comments_on(REPO, 5)
    assert len(comments) == 1 and comments[0]["body"].startswith(COMMENT_MARKER)
    assert comments[0].get("edits") == 1 and head2[:7] in comments[0]["body"]
    for sha in (head, head2):
        (run,) = fake.runs_for(sha)
        assert run.statuses == ["queued", "in_progress", "completed"]
        assert run.conclusion == "failure" and run.output["title"].startswith(
            "Merge risk"
        )  # any risk reaches "minimal"
        # the commit-title findings are actionable: annotated on the changed file, with their fingerprint
        assert run.annotations and all(
            a["path"] == "charts/app/values.yaml" for a in run.annotations
        )
        assert all(
            "fingerprint " in a["message"] and a["annotation_level"] == "notice"
            for a in run.annotations
        )
    assert [s["commit_sha"] for s in fake.state.sarifs] == [head, head2]
    assert (
        fake.state.sarifs[0]["ref"] == "refs/pull/5/head"
        and fake.state.sarifs[0]["sarif"]["version"] == "2.1.0"
    )
    assert fake.state.exchanges == 1  # one installation token, cached across both jobs
    # the push was reviewed incrementally: base..head2, rendering only what head..head2 reaches
    assert "reviewing what changed since " + head[:7] in comments[0]["body"]
    assert f"`{base[:7]}..{head2[:7]}`" in comments[0]["body"]
    assert list((tmp_path / "jobs").iterdir()) == []  # per-job clones are deleted


def test_a_rerun_of_our_check_run_reviews_that_commit_again_in_full(tmp_path, fake, key):
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base")
    head = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "more replicas",
    )
    fake.serve_repository(REPO, repo)
    running = start_service(service_settings(fake, key, tmp_path))
    try:
        with httpx.Client() as client:
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, head, base),
                "d-1",
            )
            assert (
                wait_for(lambda: _outcome(running, "d-1"), 120, "the first review")
                is Outcome.REVIEWED
            )
            answer = deliver(
                client, running.url, "check_run", rerun_payload(REPO, 5, head, base), "d-2"
            )
            assert answer.status_code == 202 and answer.json()["outcome"] == "accepted"
            assert wait_for(lambda: _outcome(running, "d-2"), 120, "the re-run") is Outcome.REVIEWED
        row = running.service.ledger.get("d-2")
        assert row.job["requested"] == "full" and row.job["requested_by"] == "grace"
    finally:
        running.stop()
    _first, again = fake.runs_for(head)  # the re-run has a check run of its own
    assert again.statuses == ["queued", "in_progress", "completed"] and again.output[
        "title"
    ].startswith("Merge risk")
    assert "full review requested" in fake.comments_on(REPO, 5)[0]["body"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"app_id": 7}, "another app"),
        ({"action": "completed"}, "needs no review"),
        ({"pull_requests": []}, "no pull request"),
    ],
)
def test_a_rerun_is_ignored_unless_it_is_of_our_check_run_on_a_pull_request(change, reason):
    payload = rerun_payload(REPO, 5, "a" * 40, "b" * 40, app_id=change.get("app_id", 42))
    payload["action"] = change.get("action", "rerequested")
    if "pull_requests" in change:
        payload["check_run"]["pull_requests"] = change["pull_requests"]
    intake = route("check_run", "d-9", payload, RoutingOptions(app_id="42"))
    assert intake.kind is IntakeKind.IGNORE and reason in intake.reason
    assert (
        route("check_run", "d-9", rerun_payload(REPO, 5, "a" * 40, "b" * 40), RoutingOptions()).kind
        is IntakeKind.IGNORE
    )


SUITE = "suite: s\ntests:\n  - it: is a Deployment\n    asserts: [{isKind: {of: Deployment}}]\n"


def test_the_review_settings_of_the_configuration_apply_to_the_app(tmp_path, fake, key):
    """`review:` in `.aftershock.yaml` (at base) sets the App's reviews as it sets the CLI's: here
    `tests: false`, so the chart's suite is not run and the rationale says so."""
    repo = make_repo(tmp_path / "work")
    files = {
        **app_chart("charts/app", "app"),
        "charts/app/tests/app_test.yaml": SUITE,
        ".aftershock.yaml": "review: {tests: false}\n",
    }
    base = commit(repo, files, "feat: app")
    head = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "feat: 3",
    )
    fake.serve_repository(REPO, repo)
    running = start_service(service_settings(fake, key, tmp_path))
    try:
        with httpx.Client() as client:
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 7, head, base),
                "d-1",
            )
            assert wait_for(lambda: _outcome(running, "d-1"), 120, "the review") is Outcome.REVIEWED
    finally:
        running.stop()
    (comment,) = fake.comments_on(REPO, 7)
    assert "Chart tests were not run." in comment["body"]
    assert "helm-unittest test" not in comment["body"]


def test_a_hostile_schema_is_not_reviewed_fetches_nothing_and_serve_keeps_answering(
    tmp_path, fake, key
):
    """Issue 31: a pull request whose schema names a loopback address and holds a catastrophic
    pattern; the App's review refuses the chart, the address gets no request, and /healthz answers
    throughout the review."""
    import http.server
    import json
    import threading

    hits: list[str] = []

    class Counting(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"const": "FETCHED"}')

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    address = f"http://127.0.0.1:{httpd.server_address[1]}/x.json"
    repo = make_repo(tmp_path / "work")
    base = commit(repo, {**app_chart("charts/app", "app"), **app_chart("charts/b", "b")}, "base")
    schema = {"properties": {"replicas": {"$ref": address}}}
    redos = {"properties": {"mode": {"pattern": "^(a+)+$"}}}
    head = commit(
        repo,
        {
            "charts/app/values.schema.json": json.dumps(schema),
            "charts/b/values.schema.json": json.dumps(redos),
            "charts/b/values.yaml": f"replicas: 2\nimage: nginx:1.27.0\nmode: {'a' * 40}!\n",
        },
        "schemas",
    )
    fake.serve_repository(REPO, repo)
    running = start_service(service_settings(fake, key, tmp_path))
    answers: list[int] = []
    try:
        with httpx.Client(timeout=10) as client:
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 7, head, base),
                "h-1",
            )

            def reviewed() -> Outcome | None:
                answers.append(client.get(f"{running.url}/healthz").status_code)
                return _outcome(running, "h-1")

            assert wait_for(reviewed, 180, "the review") is Outcome.REVIEWED
    finally:
        running.stop()
        httpd.shutdown()
        httpd.server_close()
    assert hits == []
    assert answers and set(answers) == {200}
    (comment,) = fake.comments_on(REPO, 7)
    assert "refers outside the repository" in comment["body"] and "FETCHED" not in comment["body"]
