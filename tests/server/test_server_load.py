"""A bounded burst: 200 signed deliveries (reviews, pings, ignored events, duplicates and bad signatures)
sent concurrently over real HTTP. Every valid delivery leads to exactly one review or one ignored
event (or pong), none is lost, no badly signed one is recorded. Prints deliveries/s and the p95 time
to acknowledge."""

from __future__ import annotations

import json
import random
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from aftershock.server.github.signature import sign
from charts import app_chart
from gitrepo import commit, make_repo
from server_fakes import AppKey, FakeGitHub
from server_harness import (
    comment_payload,
    pull_request_payload,
    service_settings,
    signed_headers,
    start_service,
    wait_for,
)

REPO = "acme/platform"
REVIEWS, PINGS, IGNORED, DUPLICATES, BAD = 8, 20, 100, 40, 32


def _valid_deliveries(head: str, base: str) -> list[tuple[str, str, dict, str]]:
    """(delivery id, event, payload, expected outcome) for every distinct valid delivery."""
    valid = [
        (f"review-{n}", "pull_request", pull_request_payload(REPO, 100 + n, head, base), "reviewed")
        for n in range(REVIEWS)
    ]
    valid += [
        (f"ping-{n}", "ping", {"zen": "Speak like a human.", "hook_id": n}, "pong")
        for n in range(PINGS)
    ]
    for n in range(IGNORED):
        match n % 4:
            case 0:
                valid.append(
                    (
                        f"ign-{n}",
                        "pull_request",
                        pull_request_payload(REPO, 200 + n, head, base, "labeled"),
                        "ignored",
                    )
                )
            case 1:
                valid.append(
                    (
                        f"ign-{n}",
                        "issue_comment",
                        comment_payload(REPO, 200 + n, "Looks good to me"),
                        "ignored",
                    )
                )
            case 2:
                valid.append(
                    (
                        f"ign-{n}",
                        "check_suite",
                        {"action": "completed", "repository": {"full_name": REPO}},
                        "ignored",
                    )
                )
            case _:
                valid.append(
                    (
                        f"ign-{n}",
                        "pull_request",
                        pull_request_payload(REPO, 200 + n, head, base, draft=True),
                        "ignored",
                    )
                )
    return valid


def _requests(
    valid: list[tuple[str, str, dict, str]],
) -> list[tuple[str, bytes, dict[str, str], bool]]:
    """(delivery id, body, headers, well signed) for all 200 requests, shuffled with a fixed seed."""
    rng = random.Random(7)
    out = []
    for delivery, event, payload, _ in valid:
        body = json.dumps(payload).encode()
        out.append((delivery, body, signed_headers(event, body, delivery), True))
    out += [out[rng.randrange(len(valid))] for _ in range(DUPLICATES)]
    for n in range(BAD):
        body = json.dumps(pull_request_payload(REPO, 900 + n, "a" * 40, "b" * 40)).encode()
        headers = signed_headers("pull_request", body, f"bad-{n}")
        match n % 3:
            case 0:
                headers["X-Hub-Signature-256"] = sign(b"not-the-secret", body)
            case 1:
                del headers["X-Hub-Signature-256"]
            case _:
                body = body.replace(b'"opened"', b'"closed"')  # tampered after signing
        out.append((f"bad-{n}", body, headers, False))
    rng.shuffle(out)
    return out


def test_burst_of_200_deliveries(tmp_path):
    key = AppKey.generate()
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base")
    head = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "fix: replicas",
    )
    fake.serve_repository(REPO, repo)
    running = start_service(service_settings(fake, key, tmp_path, workers=2))
    valid = _valid_deliveries(head, base)
    requests = _requests(valid)
    assert len(requests) == 200
    try:
        with httpx.Client(limits=httpx.Limits(max_connections=16)) as client:

            def send(item):
                delivery, body, headers, _ = item
                started = time.perf_counter()
                answer = client.post(f"{running.url}/webhook", content=body, headers=headers)
                return delivery, answer.status_code, answer.json(), time.perf_counter() - started

            started = time.perf_counter()
            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(send, requests))
            wall = time.perf_counter() - started
        ledger = running.service.ledger
        wait_for(
            lambda: all(ledger.get(d).outcome.final for d, *_ in valid),
            180,
            "every review to finish",
        )
        rows = {d: ledger.get(d) for d, *_ in valid}
        counts = ledger.counts()
    finally:
        running.stop()
        fake.stop()
    latencies = sorted(a[3] for a in answers)
    p95 = latencies[int(0.95 * len(latencies)) - 1]
    print(
        f"\nburst: {len(requests)} deliveries in {wall:.2f} s = {len(requests) / wall:.0f} deliveries/s; "
        f"time to acknowledge p50 {latencies[len(latencies) // 2] * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, "
        f"max {latencies[-1] * 1000:.1f} ms"
    )
    assert all(status == 401 for d, status, _, _ in answers if d.startswith("bad-"))
    first_answers = {}
    for delivery, status, body, _ in answers:
        if not delivery.startswith("bad-"):
            assert status in (200, 202)
            first_answers[delivery] = first_answers.get(delivery, 0) + (not body["duplicate"])
    assert first_answers == {
        d: 1 for d, *_ in valid
    }  # one acknowledgement that counted, per delivery
    assert {d: r.outcome.value for d, r in rows.items()} == {
        d: expected for d, _, _, expected in valid
    }
    assert counts == {
        "reviewed": REVIEWS,
        "pong": PINGS,
        "ignored": IGNORED,
    }  # nothing else recorded: no bad one
    completed = [r for r in fake.state.check_runs.values() if r.statuses[-1] == "completed"]
    assert len(completed) == REVIEWS == len(fake.state.check_runs)
    assert all(len(fake.comments_on(REPO, 100 + n)) == 1 for n in range(REVIEWS))
    assert wall < 60 and p95 < 5.0
