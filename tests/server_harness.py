"""Running the webhook service under test: settings pointing at a FakeGitHub, the real app on uvicorn in a
thread, signed deliveries, and small payloads of the events the service handles."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server_fakes import AppKey, FakeGitHub

SECRET = b"webhook-secret-for-tests"


@dataclass
class RunningService:
    url: str
    service: Any
    server: Any
    thread: threading.Thread
    stack: Any

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        self.stack.close()


def service_settings(fake: FakeGitHub, key: AppKey, tmp: Path, **changes: Any) -> Any:
    from dataclasses import replace

    from aftershock.server.settings import AppCredentials, RenderSettings, ServiceSettings

    settings = ServiceSettings(
        webhook_secret=SECRET,
        state=str(tmp / "state.db"),
        app=AppCredentials(fake.app_id, key.private_pem),
        api_url=fake.url,
        work_dir=tmp / "jobs",
        render=RenderSettings(workers=1, timeout_seconds=60.0),
    )
    return replace(settings, **changes)


def start_service(
    settings: Any, queue_url: str | None = None, queue_name: str = "aftershock"
) -> RunningService:
    """The real ASGI app on uvicorn, on a free loopback port, in a thread."""
    from contextlib import ExitStack

    import uvicorn

    from aftershock.server.app import create_app
    from aftershock.server.build import QueueChoice, build_service
    from aftershock.server.http import uvicorn_config

    stack = ExitStack()
    service = build_service(settings, QueueChoice(queue_url, queue_name), stack)
    config = uvicorn_config(
        create_app(service), settings.http, "127.0.0.1", 0, log_level="warning"
    )  # the configuration `serve` runs with
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            stack.close()
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    return RunningService(f"http://127.0.0.1:{port}", service, server, thread, stack)


def signed_headers(
    event: str, body: bytes, delivery: str, secret: bytes = SECRET
) -> dict[str, str]:
    from aftershock.server.github.signature import sign

    return {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": sign(secret, body),
        "Content-Type": "application/json",
    }


def deliver(
    client: Any, url: str, event: str, payload: Any, delivery: str, secret: bytes = SECRET
) -> Any:
    body = json.dumps(payload).encode()
    return client.post(
        f"{url}/webhook", content=body, headers=signed_headers(event, body, delivery, secret)
    )


def wait_for(predicate: Any, timeout: float = 60.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def pull_request_payload(
    full_name: str,
    number: int,
    head: str,
    base: str,
    action: str = "opened",
    installation: int = 7,
    draft: bool = False,
) -> dict[str, Any]:
    return {
        "action": action,
        "number": number,
        "pull_request": {
            "number": number,
            "state": "open",
            "draft": draft,
            "head": {"sha": head, "ref": "feature"},
            "base": {"sha": base, "ref": "main"},
            "commits": 1,
        },
        "repository": {"full_name": full_name},
        "installation": {"id": installation},
        "sender": {"login": "ada", "type": "User"},
    }


def rerun_payload(
    full_name: str, number: int, head: str, base: str, app_id: int = 42, installation: int = 7
) -> dict[str, Any]:
    """A check_run `rerequested` delivery ("Re-run" on the check run of `head`), shaped as GitHub sends it."""
    return {
        "action": "rerequested",
        "check_run": {
            "id": 901,
            "head_sha": head,
            "status": "completed",
            "conclusion": "failure",
            "app": {"id": app_id, "slug": "aftershock"},
            "pull_requests": [
                {
                    "number": number,
                    "head": {"sha": head, "ref": "feature"},
                    "base": {"sha": base, "ref": "main"},
                }
            ],
        },
        "repository": {"full_name": full_name},
        "installation": {"id": installation},
        "sender": {"login": "grace", "type": "User"},
    }


def comment_payload(
    full_name: str,
    number: int,
    body: str,
    login: str = "ada",
    installation: int = 7,
    comment_id: int = 555,
) -> dict[str, Any]:
    return {
        "action": "created",
        "issue": {
            "number": number,
            "pull_request": {"url": f"https://example.invalid/{full_name}/pulls/{number}"},
        },
        "comment": {"id": comment_id, "body": body, "user": {"login": login, "type": "User"}},
        "repository": {"full_name": full_name},
        "installation": {"id": installation},
        "sender": {"login": login, "type": "User"},
    }
