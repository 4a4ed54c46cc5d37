"""The HTTP edge of the service, over real HTTP: signatures (401 before anything is recorded), the body
limit, deduplication by delivery GUID, ping, ignored events, drafts, /healthz and /metrics."""

from __future__ import annotations

import json

import httpx
import pytest

from aftershock.server.github.signature import sign, signature_valid
from server_fakes import AppKey, FakeGitHub
from server_harness import (
    SECRET,
    deliver,
    pull_request_payload,
    service_settings,
    signed_headers,
    start_service,
    wait_for,
)

REPO = "acme/platform"


@pytest.fixture(scope="module")
def key() -> AppKey:
    return AppKey.generate()


@pytest.fixture
def running(tmp_path, key):
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    service = start_service(service_settings(fake, key, tmp_path, max_body_bytes=4096))
    yield service
    service.stop()
    fake.stop()


def test_signature_is_hmac_sha256_of_the_raw_body():
    body = b'{"zen": "Design for failure."}'
    header = sign(SECRET, body)
    assert header.startswith("sha256=") and len(header) == 71
    assert signature_valid(SECRET, body, header)
    assert not signature_valid(SECRET, body + b" ", header)
    assert not signature_valid(b"other", body, header)
    assert not signature_valid(SECRET, body, None)
    assert not signature_valid(SECRET, body, header.replace("sha256=", "sha1="))
    assert not signature_valid(
        b"", body, sign(b"", body)
    )  # no secret configured: nobody is accepted


def test_missing_or_bad_signatures_get_401_and_are_not_recorded(running):
    body = json.dumps({"zen": "x", "hook_id": 1}).encode()
    with httpx.Client() as client:
        for headers in (
            {"X-GitHub-Event": "ping", "X-GitHub-Delivery": "bad-1"},
            {**signed_headers("ping", body, "bad-2"), "X-Hub-Signature-256": sign(b"wrong", body)},
            {**signed_headers("ping", body, "bad-3"), "X-Hub-Signature-256": "sha256=" + "0" * 64},
        ):
            assert (
                client.post(f"{running.url}/webhook", content=body, headers=headers).status_code
                == 401
            )
        tampered = signed_headers("ping", body, "bad-4")
        assert (
            client.post(f"{running.url}/webhook", content=body + b" ", headers=tampered).status_code
            == 401
        )
    assert running.service.ledger.counts() == {}


def test_body_limit_and_missing_delivery_id(running):
    big = json.dumps({"zen": "x" * 5000}).encode()
    body = b'{"zen": "x"}'
    with httpx.Client() as client:
        assert (
            client.post(
                f"{running.url}/webhook", content=big, headers=signed_headers("ping", big, "big")
            ).status_code
            == 413
        )
        headers = signed_headers("ping", body, "")
        assert (
            client.post(f"{running.url}/webhook", content=body, headers=headers).status_code == 400
        )
    assert running.service.ledger.counts() == {}


def test_ping_duplicates_and_ignored_events(running):
    with httpx.Client() as client:
        first = deliver(
            client, running.url, "ping", {"zen": "Keep it logically awesome.", "hook_id": 1}, "g-1"
        )
        again = deliver(
            client, running.url, "ping", {"zen": "Keep it logically awesome.", "hook_id": 1}, "g-1"
        )
        labeled = deliver(
            client,
            running.url,
            "pull_request",
            pull_request_payload(REPO, 3, "a" * 40, "b" * 40, "labeled"),
            "g-2",
        )
        draft = deliver(
            client,
            running.url,
            "pull_request",
            pull_request_payload(REPO, 3, "a" * 40, "b" * 40, draft=True),
            "g-3",
        )
        other = deliver(client, running.url, "installation", {"action": "created"}, "g-4")
    assert (first.status_code, first.json()["outcome"], first.json()["duplicate"]) == (
        200,
        "pong",
        False,
    )
    assert (again.status_code, again.json()["duplicate"]) == (200, True)
    assert labeled.json()["outcome"] == "ignored" and "needs no review" in labeled.json()["reason"]
    assert draft.json()["outcome"] == "ignored" and "draft" in draft.json()["reason"]
    assert other.json()["outcome"] == "ignored"
    assert running.service.ledger.counts() == {"pong": 1, "ignored": 3}


def test_healthz_and_metrics(running):
    with httpx.Client() as client:
        deliver(client, running.url, "ping", {"zen": "z"}, "m-1")
        client.post(
            f"{running.url}/webhook",
            content=b"{}",
            headers={"X-GitHub-Event": "ping", "X-GitHub-Delivery": "m-2"},
        )
        health = client.get(f"{running.url}/healthz")
        metrics = client.get(f"{running.url}/metrics")
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    assert metrics.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = metrics.text
    assert "# TYPE aftershock_queue_depth gauge\naftershock_queue_depth 0\n" in text
    assert 'aftershock_deliveries_total{event="ping",outcome="pong"} 1\n' in text
    assert 'aftershock_webhook_rejected_total{reason="signature"} 1\n' in text
    for family in (
        "aftershock_review_duration_seconds histogram",
        "aftershock_renders_total counter",
        "aftershock_failures_total counter",
    ):
        assert f"# TYPE {family}\n" in text


def test_deliveries_left_unfinished_are_run_after_a_restart(tmp_path, key):
    from aftershock.server.github.commands import ChatCommand, CommandKind
    from aftershock.server.queue.jobspec import CommandJob, PullRequestRef, job_to_json
    from aftershock.server.queue.ledger import Ledger, Outcome
    from aftershock.state.store import open_store

    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    settings = service_settings(fake, key, tmp_path)
    store = open_store(settings.state)  # a previous process acknowledged these, then died
    for delivery, outcome in (
        ("left-accepted", Outcome.ACCEPTED),
        ("left-running", Outcome.RUNNING),
        ("left-done", Outcome.REPLIED),
    ):
        job = CommandJob(
            delivery,
            PullRequestRef(REPO, 9, 7),
            ChatCommand(CommandKind.HELP, text="@aftershock help"),
            "ada",
            1,
        )
        Ledger(store).record(
            delivery,
            "issue_comment",
            "created",
            REPO,
            "9",
            None,
            outcome,
            "command help",
            job_to_json(job),
        )
    store.close()
    running = start_service(settings)
    try:
        ledger = running.service.ledger
        wait_for(
            lambda: all(
                ledger.get(d).outcome is Outcome.REPLIED for d in ("left-accepted", "left-running")
            ),
            30,
        )
    finally:
        running.stop()
        fake.stop()
    assert len(fake.comments_on(REPO, 9)) == 2  # the finished one is not answered again


def test_serve_command_runs_the_service(tmp_path, key):
    import os
    import signal
    import socket
    import subprocess
    import sys

    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "AFTERSHOCK_WEBHOOK_SECRET": SECRET.decode(),
        "AFTERSHOCK_APP_ID": "42",
        "AFTERSHOCK_PRIVATE_KEY": key.private_pem,
        "AFTERSHOCK_GITHUB_API_URL": fake.url,
    }
    code = "from aftershock.cli.serve import serve_command; serve_command()"
    process = subprocess.Popen(
        [sys.executable, "-c", code, "--port", str(port), "--state", str(tmp_path / "s.db")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"

    def healthy():
        try:
            return httpx.get(f"{url}/healthz").status_code == 200
        except httpx.TransportError:
            return process.poll() is not None  # stop waiting when it died

    try:
        wait_for(healthy, 30, "serve to answer")
        with httpx.Client() as client:
            assert deliver(client, url, "ping", {"zen": "z"}, "cli-1").json()["outcome"] == "pong"
    finally:
        process.send_signal(signal.SIGTERM)
        status = process.wait(30)
        fake.stop()
    log = process.stderr.read().decode()
    assert status == 0 and "Application shutdown complete" in log, log[
        -2000:
    ]  # drained, then an orderly exit


def _raw(url: str, request: bytes) -> bytes:
    import socket

    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_a_request_with_too_many_headers_or_two_framings_is_refused(running):
    many = b"".join(b"x-h%d: v\r\n" % i for i in range(10_000))
    flooded = _raw(running.url, b"GET /healthz HTTP/1.1\r\nHost: a\r\n" + many + b"\r\n")
    assert flooded.startswith(b"HTTP/1.1 431 ")
    smuggled = _raw(
        running.url,
        b"POST /webhook HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
        b"Transfer-Encoding: chunked\r\nX-GitHub-Event: ping\r\n\r\n0\r\n\r\n",
    )
    assert smuggled.startswith(b"HTTP/1.1 400 ") and b"Transfer-Encoding" in smuggled
    assert running.service.ledger.counts() == {}
    with httpx.Client() as client:  # and the ordinary request still gets through
        assert client.get(f"{running.url}/healthz").status_code == 200
