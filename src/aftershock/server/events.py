"""What a webhook delivery asks of the service: pong, ignore (with why), a review, or a command (pure).

`route` reads only the event name and the payload; whether a pull request is paused is the
ledger's to say, so the caller applies it (see `WebhookService.accept`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any

from aftershock.server.commands import CommandKind, parse_command
from aftershock.server.jobspec import CommandJob, Job, PullRequestRef, ReviewJob, Trigger
from aftershock.state.mode import RequestedMode

REVIEWED_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})


class IntakeKind(str, enum.Enum):
    PONG = "pong"
    IGNORE = "ignore"
    JOB = "job"


@dataclass(frozen=True)
class RoutingOptions:
    mention: str = "aftershock"
    review_drafts: bool = False
    app_id: str | None = None  # this GitHub App's id: a re-run is honoured for its own check runs only


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
    action = str(payload.get("action") or "")
    repository = str((payload.get("repository") or {}).get("full_name") or "")
    if event == "ping":
        return Intake(IntakeKind.PONG, "ping", action, repository)
    if event == "pull_request":
        intake = _pull_request(delivery_id, payload, action, repository, options)
    elif event == "issue_comment":
        intake = _issue_comment(delivery_id, payload, action, repository, options)
    elif event == "check_run":
        intake = _check_run(delivery_id, payload, action, repository, options)
    else:
        return Intake(IntakeKind.IGNORE, f"event {event or '(none)'} is not handled", action, repository)
    if intake.job is not None and intake.job.pull.installation_id is None:
        return replace(intake, kind=IntakeKind.IGNORE, reason="the delivery names no App installation", job=None)
    return intake


def _installation(payload: dict[str, Any]) -> int | None:
    installation = payload.get("installation") or {}
    return int(installation["id"]) if installation.get("id") is not None else None


def _pull_request(delivery_id: str, payload: dict[str, Any], action: str, repository: str, options: RoutingOptions) -> Intake:
    pr = payload.get("pull_request") or {}
    number = payload.get("number") or pr.get("number")
    if not repository or not number or not pr:
        return Intake(IntakeKind.IGNORE, "pull_request payload without repository or number", action, repository)
    head = (pr.get("head") or {}).get("sha")
    name = str(number)
    if action not in REVIEWED_ACTIONS:
        return Intake(IntakeKind.IGNORE, f"pull_request {action} needs no review", action, repository, name, head)
    if pr.get("state") == "closed":
        return Intake(IntakeKind.IGNORE, "the pull request is closed", action, repository, name, head)
    if pr.get("draft") and not options.review_drafts:
        return Intake(IntakeKind.IGNORE, "draft pull request (drafts are not reviewed)", action, repository, name, head)
    job = ReviewJob(
        delivery_id=delivery_id,
        pull=PullRequestRef(repository, int(number), _installation(payload)),
        # A push to a reviewed pull request renders only what its new commits reach (falling back to a
        # full review, with the reason, when the last review cannot be a starting point).
        requested=RequestedMode.SINCE_LAST if action == "synchronize" else RequestedMode.DEFAULT,
        trigger=Trigger.PUSH,
        head_sha=head,
        base_sha=(pr.get("base") or {}).get("sha"),
        requested_by=str((payload.get("sender") or {}).get("login") or ""),
    )
    return Intake(IntakeKind.JOB, f"pull_request {action}", action, repository, name, head, job)


def _issue_comment(delivery_id: str, payload: dict[str, Any], action: str, repository: str, options: RoutingOptions) -> Intake:
    issue = payload.get("issue") or {}
    comment = payload.get("comment") or {}
    name = str(issue["number"]) if issue.get("number") is not None else None
    if action != "created":
        return Intake(IntakeKind.IGNORE, f"issue_comment {action} needs no answer", action, repository, name)
    if not issue.get("pull_request"):
        return Intake(IntakeKind.IGNORE, "comment on an issue, not a pull request", action, repository, name)
    author = comment.get("user") or {}
    if author.get("type") == "Bot":
        return Intake(IntakeKind.IGNORE, "comment written by a bot", action, repository, name)
    command = parse_command(comment.get("body"), options.mention)
    if command is None:
        return Intake(IntakeKind.IGNORE, f"comment not addressed to @{options.mention}", action, repository, name)
    pull = PullRequestRef(repository, int(issue["number"]), _installation(payload))
    login = str(author.get("login") or "")
    job: Job
    if command.kind in (CommandKind.REVIEW, CommandKind.FULL_REVIEW):
        requested = RequestedMode.SINCE_LAST if command.kind is CommandKind.REVIEW else RequestedMode.FULL
        job = ReviewJob(delivery_id, pull, requested, Trigger.COMMAND, requested_by=login)
    else:
        job = CommandJob(delivery_id, pull, command, login, int(comment.get("id") or 0))
    return Intake(IntakeKind.JOB, f"command {command.kind.value}", action, repository, name, None, job)


def _check_run(delivery_id: str, payload: dict[str, Any], action: str, repository: str, options: RoutingOptions) -> Intake:
    """"Re-run" on one of our check runs: a full review of that commit of the pull request it belongs to."""
    run = payload.get("check_run") or {}
    if action != "rerequested":
        return Intake(IntakeKind.IGNORE, f"check_run {action} needs no review", action, repository)
    if options.app_id is None or str((run.get("app") or {}).get("id") or "") != options.app_id:
        return Intake(IntakeKind.IGNORE, "re-run of a check run of another app", action, repository)
    pulls = [p for p in run.get("pull_requests") or () if isinstance(p, dict) and p.get("number")]
    head = run.get("head_sha")
    if not pulls or not head:
        return Intake(IntakeKind.IGNORE, "re-run of a check run on no pull request", action, repository)
    number = int(pulls[0]["number"])
    job = ReviewJob(
        delivery_id=delivery_id,
        pull=PullRequestRef(repository, number, _installation(payload)),
        requested=RequestedMode.FULL,
        trigger=Trigger.PUSH,  # like a push: it names the commit, and gets a check run of its own
        head_sha=str(head),
        base_sha=(pulls[0].get("base") or {}).get("sha"),
        requested_by=str((payload.get("sender") or {}).get("login") or ""),
    )
    return Intake(IntakeKind.JOB, "check_run rerequested", action, repository, str(number), str(head), job)
