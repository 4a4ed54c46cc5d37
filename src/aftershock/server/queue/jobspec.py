"""What a queue carries: review jobs and chat-command jobs, as frozen dataclasses and as JSON (pure).

Jobs travel as JSON (through Redis or the ledger), so a job written by one version of the service
and read by a worker of the same version round-trips exactly.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from aftershock.model.state_mode import RequestedMode
from aftershock.model.state_records import ReviewTarget
from aftershock.server.github.commands import ChatCommand, CommandKind


@dataclass(frozen=True)
class PullRequestRef:
    """A pull request of `repository` (`owner/name`), and the App installation that may act on it."""

    repository: str
    number: int
    installation_id: int | None = None

    @property
    def target(self) -> ReviewTarget:
        return ReviewTarget.pull_request(self.number)

    @property
    def key(self) -> str:
        return f"{self.repository}#{self.number}"


class Trigger(str, enum.Enum):
    PUSH = "push"  # opened, synchronize, reopened, ready_for_review
    COMMAND = "command"


@dataclass(frozen=True)
class ReviewJob:
    """Review a pull request. `head_sha` is None when a command asked: the job reads the current head."""

    delivery_id: str
    pull: PullRequestRef
    requested: RequestedMode
    trigger: Trigger
    head_sha: str | None = None
    base_sha: str | None = None
    requested_by: str = ""
    check_run_id: int | None = None  # the queued check run, when one was announced


@dataclass(frozen=True)
class CommandJob:
    """Answer a chat command of `author` in comment `comment_id`."""

    delivery_id: str
    pull: PullRequestRef
    command: ChatCommand
    author: str
    comment_id: int


Job = ReviewJob | CommandJob


def job_to_json(job: Job) -> dict[str, Any]:
    pull = {
        "repository": job.pull.repository,
        "number": job.pull.number,
        "installation_id": job.pull.installation_id,
    }
    if isinstance(job, ReviewJob):
        return {
            "type": "review",
            "delivery_id": job.delivery_id,
            "pull": pull,
            "requested": job.requested.value,
            "trigger": job.trigger.value,
            "head_sha": job.head_sha,
            "base_sha": job.base_sha,
            "requested_by": job.requested_by,
            "check_run_id": job.check_run_id,
        }
    command = {
        "kind": job.command.kind.value,
        "argument": job.command.argument,
        "reason": job.command.reason,
        "text": job.command.text,
    }
    return {
        "type": "command",
        "delivery_id": job.delivery_id,
        "pull": pull,
        "command": command,
        "author": job.author,
        "comment_id": job.comment_id,
    }


def job_from_json(data: dict[str, Any]) -> Job:
    pull = PullRequestRef(
        data["pull"]["repository"], int(data["pull"]["number"]), data["pull"].get("installation_id")
    )
    if data["type"] == "review":
        return ReviewJob(
            delivery_id=data["delivery_id"],
            pull=pull,
            requested=RequestedMode(data["requested"]),
            trigger=Trigger(data["trigger"]),
            head_sha=data.get("head_sha"),
            base_sha=data.get("base_sha"),
            requested_by=data.get("requested_by", ""),
            check_run_id=data.get("check_run_id"),
        )
    if data["type"] == "command":
        c = data["command"]
        command = ChatCommand(
            CommandKind(c["kind"]), c.get("argument", ""), c.get("reason", ""), c.get("text", "")
        )
        return CommandJob(
            data["delivery_id"], pull, command, data["author"], int(data["comment_id"])
        )
    raise ValueError(f"unknown job type {data['type']!r}")
