"""Signed but malformed deliveries, over real HTTP: each answers 400 with one log line, records nothing,
and never reaches a job (issue 12, item 9: they answered 500 with a traceback)."""

from __future__ import annotations

import json
import logging

import httpx
import pytest

from server_fakes import AppKey, FakeGitHub
from server_harness import (
    comment_payload,
    pull_request_payload,
    rerun_payload,
    service_settings,
    signed_headers,
    start_service,
)

REPO = "acme/platform"
HEAD, BASE = "a" * 40, "b" * 40


@pytest.fixture(scope="module")
def key() -> AppKey:
    return AppKey.generate()


@pytest.fixture
def running(tmp_path, key):
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    service = start_service(service_settings(fake, key, tmp_path))
    yield service
    service.stop()
    fake.stop()


def _with(payload: dict, path: str, value: object) -> dict:
    changed = json.loads(json.dumps(payload))
    *parents, last = path.split(".")
    node = changed
    for name in parents:
        node = node[name]
    node[last] = value
    return changed


PUSH = pull_request_payload(REPO, 3, HEAD, BASE)
MALFORMED = [
    ("pull_request", _with(PUSH, "installation.id", "x"), "installation.id"),
    ("pull_request", _with(PUSH, "repository", "x"), "repository"),
    ("pull_request", _with(PUSH, "repository.full_name", "../../admin"), "repository.full_name"),
    ("pull_request", _with(PUSH, "number", "3"), "number"),
    ("pull_request", _with(PUSH, "pull_request.head", ["x"]), "pull_request.head"),
    (
        "pull_request",
        _with(PUSH, "pull_request.head.sha", "--upload-pack=touch /tmp/x"),
        "pull_request.head.sha",
    ),
    ("pull_request", _with(PUSH, "sender", 5), "sender"),
    (
        "issue_comment",
        _with(comment_payload(REPO, 3, "@aftershock help"), "issue.number", {"a": 1}),
        "issue.number",
    ),
    (
        "issue_comment",
        _with(comment_payload(REPO, 3, "@aftershock help"), "comment.body", ["@aftershock help"]),
        "comment.body",
    ),
    (
        "check_run",
        _with(rerun_payload(REPO, 3, HEAD, BASE), "check_run.pull_requests", "x"),
        "check_run.pull_requests",
    ),
    ("ping", _with(PUSH, "action", 7), "action"),
]


def _post(client: httpx.Client, url: str, event: str, body: bytes, delivery: str) -> httpx.Response:
    return client.post(
        f"{url}/webhook", content=body, headers=signed_headers(event, body, delivery)
    )


@pytest.mark.parametrize("event,payload,field", MALFORMED, ids=[m[2] for m in MALFORMED])
def test_a_field_of_the_wrong_type_answers_400_with_one_log_line(
    running, caplog, event, payload, field
):
    with caplog.at_level(logging.WARNING, logger="aftershock.server"), httpx.Client() as client:
        answer = _post(client, running.url, event, json.dumps(payload).encode(), "m-1")
    assert answer.status_code == 400, answer.text
    assert field in answer.json()["error"]
    lines = [r for r in caplog.records if r.name.startswith("aftershock")]
    assert len(lines) == 1 and "m-1" in lines[0].getMessage() and lines[0].exc_info is None
    assert running.service.ledger.counts() == {}


def test_json_nested_100000_deep_answers_400(running, caplog):
    body = b"[" * 100_000 + b"]" * 100_000
    with caplog.at_level(logging.WARNING, logger="aftershock.server"), httpx.Client() as client:
        answer = _post(client, running.url, "pull_request", body, "m-deep")
        assert answer.status_code == 400 and answer.json()["error"] == "the body is not JSON"
        assert client.get(f"{running.url}/healthz").status_code == 200  # the service lives on
    assert [r.exc_info for r in caplog.records if r.name.startswith("aftershock")] == [None]
    assert running.service.ledger.counts() == {}
