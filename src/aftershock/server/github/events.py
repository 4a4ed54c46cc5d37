"""What a webhook delivery asks of the service: pong, ignore (with why), a review, or a command (pure).

`route` reads only the event name and the payload; whether a pull request is paused is the
ledger's to say, so the caller applies it (see `WebhookService.accept`). A field of the wrong type
(an installation id that is not a number, a repository that is not an object, a head that is not a
commit sha) raises MalformedPayload naming the field: signed or not, it is bad input, never a crash.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, replace
from typing import Any

from aftershock.model.state_mode import RequestedMode
from aftershock.server.github.commands import CommandKind, parse_command
from aftershock.server.queue.jobspec import CommandJob, Job, PullRequestRef, ReviewJob, Trigger

REVIEWED_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
_SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")  # SHA-1 or SHA-256; it becomes a git argument
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")  # owner/name; it becomes a URL path


class MalformedPayload(ValueError):
    """A delivery's payload has a field of the wrong type or form; the message names the field."""


class IntakeKind(str, enum.Enum):
    PONG = "pong"
    IGNORE = "ignore"
    JOB = "job"


@dataclass(frozen=True)
class RoutingOptions:
    mention: str = "aftershock"
    review_drafts: bool = False
    app_id: str | None = (
        None  # this GitHub App's id: a re-run is honoured for its own check runs only
    )


@dataclass(frozen=True)
class Intake:
    """The service's answer to one delivery. `repository`, `target_name` and `head_sha` feed the ledger."""

    kind: IntakeKind
    reason: str
    action: str = ""
    repository: str = ""
    target_name: str | None = None
    head_sha: str | None = None
    job: Job | None = None


def route(event: str, delivery_id: str, payload: Any, options: RoutingOptions) -> Intake:
    """The intake for a delivery of `event` (the X-GitHub-Event header) with a parsed JSON payload."""
    if not isinstance(payload, dict):
        return Intake(IntakeKind.IGNORE, "payload is not a JSON object")
    action = _text(payload, "action", "action")
    repository = _text(
        _object(payload, "repository", "repository"), "full_name", "repository.full_name"
    )
    if repository and not _REPOSITORY.fullmatch(repository):
        raise MalformedPayload(f"repository.full_name {repository[:80]!r} is not owner/name")
    if event == "ping":
        return Intake(IntakeKind.PONG, "ping", action, repository)
    if event == "pull_request":
        intake = _pull_request(delivery_id, payload, action, repository, options)
    elif event == "issue_comment":
        intake = _issue_comment(delivery_id, payload, action, repository, options)
    elif event == "check_run":
        intake = _check_run(delivery_id, payload, action, repository, options)
    else:
        return Intake(
            IntakeKind.IGNORE, f"event {event or '(none)'} is not handled", action, repository
        )
    if intake.job is not None and intake.job.pull.installation_id is None:
        return replace(
            intake,
            kind=IntakeKind.IGNORE,
            reason="the delivery names no App installation",
            job=None,
        )
    return intake


def _object(container: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = container.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MalformedPayload(f"{where} is not an object")
    return value


def _text(container: dict[str, Any], key: str, where: str) -> str:
    value = container.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise MalformedPayload(f"{where} is not a string")
    return value


def _number(container: dict[str, Any], key: str, where: str) -> int | None:
    value = container.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
        raise MalformedPayload(f"{where} is not a positive integer")
    return value


def _sha(container: dict[str, Any], key: str, where: str) -> str | None:
    value = _text(container, key, where)
    if value and not _SHA.fullmatch(value):
        raise MalformedPayload(f"{where} is not a commit sha")
    return value or None


def _installation(payload: dict[str, Any]) -> int | None:
    return _number(_object(payload, "installation", "installation"), "id", "installation.id")


def _login(payload: dict[str, Any], key: str = "sender") -> str:
    return _text(_object(payload, key, key), "login", f"{key}.login")


def _pull_request(
    delivery_id: str, payload: dict[str, Any], action: str, repository: str, options: RoutingOptions
) -> Intake:
    pr = _object(payload, "pull_request", "pull_request")
    number = _number(payload, "number", "number") or _number(pr, "number", "pull_request.number")
    if not repository or not number or not pr:
        return Intake(
            IntakeKind.IGNORE,
            "pull_request payload without repository or number",
            action,
            repository,
        )
    head = _sha(_object(pr, "head", "pull_request.head"), "sha", "pull_request.head.sha")
    base = _sha(_object(pr, "base", "pull_request.base"), "sha", "pull_request.base.sha")
    name = str(number)
    if action not in REVIEWED_ACTIONS:
        return Intake(
            IntakeKind.IGNORE,
            f"pull_request {action} needs no review",
            action,
            repository,
            name,
            head,
        )
    if pr.get("state") == "closed":
        return Intake(
            IntakeKind.IGNORE, "the pull request is closed", action, repository, name, head
        )
    if pr.get("draft") and not options.review_drafts:
        return Intake(
            IntakeKind.IGNORE,
            "draft pull request (drafts are not reviewed)",
            action,
            repository,
            name,
            head,
        )
    job = ReviewJob(
        delivery_id=delivery_id,
        pull=PullRequestRef(repository, number, _installation(payload)),
        # A push to a reviewed pull request renders only what its new commits reach (falling back to a
        # full review, with the reason, when the last review cannot be a starting point).
        requested=RequestedMode.SINCE_LAST if action == "synchronize" else RequestedMode.DEFAULT,
        trigger=Trigger.PUSH,
        head_sha=head,
        base_sha=base,
        requested_by=_login(payload),
    )
    return Intake(IntakeKind.JOB, f"pull_request {action}", action, repository, name, head, job)


def _issue_comment(
    delivery_id: str, payload: dict[str, Any], action: str, repository: str, options: RoutingOptions
) -> Intake:
    issue = _object(payload, "issue", "issue")
    comment = _object(payload, "comment", "comment")
    number = _number(issue, "number", "issue.number")
    name = str(number) if number is not None else None
    if action != "created":
        return Intake(
            IntakeKind.IGNORE, f"issue_comment {action} needs no answer", action, repository, name
        )
    if not issue.get("pull_request") or number is None:
        return Intake(
            IntakeKind.IGNORE, "comment on an issue, not a pull request", action, repository, name
        )
    author = _object(comment, "user", "comment.user")
    if author.get("type") == "Bot":
        return Intake(IntakeKind.IGNORE, "comment written by a bot", action, repository, name)
    command = parse_command(_text(comment, "body", "comment.body"), options.mention)
    if command is None:
        return Intake(
            IntakeKind.IGNORE,
            f"comment not addressed to @{options.mention}",
            action,
            repository,
            name,
        )
    pull = PullRequestRef(repository, number, _installation(payload))
    login = _text(author, "login", "comment.user.login")
    job: Job
    if command.kind in (CommandKind.REVIEW, CommandKind.FULL_REVIEW):
        requested = (
            RequestedMode.SINCE_LAST if command.kind is CommandKind.REVIEW else RequestedMode.FULL
        )
        job = ReviewJob(delivery_id, pull, requested, Trigger.COMMAND, requested_by=login)
    else:
        job = CommandJob(
            delivery_id, pull, command, login, _number(comment, "id", "comment.id") or 0
        )
    return Intake(
        IntakeKind.JOB, f"command {command.kind.value}", action, repository, name, None, job
    )


def _check_run(
    delivery_id: str, payload: dict[str, Any], action: str, repository: str, options: RoutingOptions
) -> Intake:
    """ "Re-run" on one of our check runs: a full review of that commit of the pull request it belongs to."""
    run = _object(payload, "check_run", "check_run")
    if action != "rerequested":
        return Intake(IntakeKind.IGNORE, f"check_run {action} needs no review", action, repository)
    if (
        options.app_id is None
        or str(_object(run, "app", "check_run.app").get("id") or "") != options.app_id
    ):
        return Intake(IntakeKind.IGNORE, "re-run of a check run of another app", action, repository)
    listed = run.get("pull_requests") or []
    if not isinstance(listed, list):
        raise MalformedPayload("check_run.pull_requests is not a list")
    pulls = [p for p in listed if isinstance(p, dict) and p.get("number")]
    head = _sha(run, "head_sha", "check_run.head_sha")
    if not pulls or not head:
        return Intake(
            IntakeKind.IGNORE, "re-run of a check run on no pull request", action, repository
        )
    number = _number(pulls[0], "number", "check_run.pull_requests[0].number")
    assert number is not None
    job = ReviewJob(
        delivery_id=delivery_id,
        pull=PullRequestRef(repository, number, _installation(payload)),
        requested=RequestedMode.FULL,
        trigger=Trigger.PUSH,  # like a push: it names the commit, and gets a check run of its own
        head_sha=head,
        base_sha=_sha(
            _object(pulls[0], "base", "check_run.pull_requests[0].base"),
            "sha",
            "check_run.pull_requests[0].base.sha",
        ),
        requested_by=_login(payload),
    )
    return Intake(
        IntakeKind.JOB, "check_run rerequested", action, repository, str(number), head, job
    )
