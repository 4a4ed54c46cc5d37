"""GitHub App auth and the REST calls against the fake GitHub over real HTTP: JWT exchange and token
caching, sticky comments found across pages by their marker, annotations in batches of 50."""

from __future__ import annotations

import time

import httpx
import jwt
import pytest

from aftershock.server.github.github_api import CHECK_RUN_NAME, GitHubClient, GitHubError
from aftershock.server.github.github_auth import InstallationTokens, app_jwt
from aftershock.server.settings import AppCredentials, git_url_for
from server_fakes import AppKey, FakeGitHub

REPO = "acme/platform"


@pytest.fixture(scope="module")
def key() -> AppKey:
    return AppKey.generate()


@pytest.fixture
def fake(tmp_path, key):
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    yield fake
    fake.stop()


def test_app_jwt_is_rs256_and_short_lived(key):
    token = app_jwt(AppCredentials("42", key.private_pem), now=1_000_000)
    claims = jwt.decode(token, key.public_pem, algorithms=["RS256"], options={"verify_exp": False})
    assert jwt.get_unverified_header(token)["alg"] == "RS256"
    assert claims == {"iss": "42", "iat": 1_000_000 - 60, "exp": 1_000_000 - 60 + 540}


def test_installation_tokens_are_cached_until_shortly_before_expiry(fake, key):
    now = [time.time()]
    with httpx.Client() as http:
        tokens = InstallationTokens(
            fake.url, AppCredentials("42", key.private_pem), http, clock=lambda: now[0]
        )
        first = tokens.token(7)
        assert tokens.token(7) == first and fake.state.exchanges == 1
        assert tokens.token(8) != first and fake.state.exchanges == 2  # one token per installation
        now[0] += 3600 - 200  # within five minutes of expiry: exchanged again
        assert tokens.token(7) != first and fake.state.exchanges == 3
        wrong = InstallationTokens(fake.url, AppCredentials("43", key.private_pem), http)
        with pytest.raises(GitHubError, match="HTTP 401"):
            wrong.token(7)


def test_sticky_comment_is_found_across_pages_and_never_duplicated(fake, key):
    with httpx.Client() as http:
        token = InstallationTokens(fake.url, AppCredentials("42", key.private_pem), http).token(7)
        client = GitHubClient(fake.url, token, http, app_id="42")
        marker = "<!-- aftershock:review-comment -->"
        for n in range(130):
            fake.add_comment(REPO, 1, f"comment {n}", {"login": "ada", "type": "User"})
        fake.add_comment(REPO, 1, f"quoting {marker}", {"login": "mallory", "type": "User"})
        fake.add_comment(
            REPO, 1, f"mirroring {marker}", {"login": "mirror[bot]", "type": "Bot"}, app_id="99"
        )
        first = client.upsert_sticky_comment(REPO, 1, marker, f"{marker}\nreview 1")
        second = client.upsert_sticky_comment(REPO, 1, marker, f"{marker}\nreview 2")
        huge = client.upsert_sticky_comment(REPO, 1, marker, f"{marker}\n" + "x" * 70_000)
    assert first == second == huge
    ours = [
        c
        for c in fake.comments_on(REPO, 1)
        if marker in c["body"]
        and "performed_via_github_app" in c
        and c["performed_via_github_app"]["id"] == 42
    ]
    assert len(ours) == 1 and len(ours[0]["body"]) <= 65_536 and "cut to fit" in ours[0]["body"]
    assert (
        fake.comments_on(REPO, 1)[130]["body"] == f"quoting {marker}"
    )  # a user's comment is never edited
    assert fake.comments_on(REPO, 1)[131]["body"] == f"mirroring {marker}"  # nor another app's


def test_annotations_go_in_batches_of_50_and_complete_the_run(fake, key):
    with httpx.Client() as http:
        client = GitHubClient(
            fake.url,
            InstallationTokens(fake.url, AppCredentials("42", key.private_pem), http).token(7),
            http,
        )
        run_id = client.create_check_run(REPO, "c" * 40, "queued", "Queued", "waiting")
        client.update_check_run(REPO, run_id, {"status": "in_progress"})
        notes = [
            {
                "path": "a.yaml",
                "start_line": n + 1,
                "end_line": n + 1,
                "annotation_level": "warning",
                "message": f"note {n}",
            }
            for n in range(120)
        ]
        client.complete_check_run(
            REPO, run_id, "failure", {"title": "Merge risk: High", "summary": "s"}, notes
        )
    run = fake.state.check_runs[run_id]
    assert run.annotation_batches == [0, 50, 50, 20]
    assert run.statuses == ["queued", "in_progress", "completed"] and run.conclusion == "failure"
    assert [a["message"] for a in run.annotations] == [f"note {n}" for n in range(120)]


def test_the_check_run_of_a_delivery_is_found_among_many_on_its_head(fake, key):
    head = "c" * 40
    with httpx.Client() as http:
        token = InstallationTokens(fake.url, AppCredentials("42", key.private_pem), http).token(7)
        client = GitHubClient(fake.url, token, http, app_id="42")
        ids = [
            client.create_check_run(REPO, head, "queued", "Queued", "waiting", external_id=f"d-{n}")
            for n in range(130)  # more than a page; GitHub's default filter lists only the newest
        ]
        assert client.find_check_run(REPO, head, "d-3") == ids[3]
        assert client.find_check_run(REPO, head, "d-129") == ids[129]
        assert client.find_check_run(REPO, head, "d-130") is None
        assert client.find_check_run(REPO, "d" * 40, "d-3") is None
    assert {(r.name, r.external_id) for r in fake.runs_for(head)} == {
        (CHECK_RUN_NAME, f"d-{n}") for n in range(130)
    }


@pytest.mark.parametrize(
    ("api", "git"),
    [
        ("https://api.github.com", "https://github.com"),
        ("https://ghe.example.com/api/v3", "https://ghe.example.com"),
        ("http://127.0.0.1:8123", "http://127.0.0.1:8123"),
    ],
)
def test_git_url_follows_the_api_url(api, git):
    assert git_url_for(api) == git
