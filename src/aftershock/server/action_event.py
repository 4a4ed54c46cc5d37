"""What the GitHub Action is asked to do, read from the workflow's event: review a pull request, record
the default branch's baseline on a push, or nothing (a push to another branch, a deleted branch)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from aftershock.model.errors import ConfigError

_PULL_EVENTS = ("pull_request", "pull_request_target")
_NO_COMMIT = "0" * 40


class ActionKind(Enum):
    PULL_REQUEST = "pull_request"  # review merge-base..head: comment, SARIF, state
    BASELINE = "baseline"  # a push to the default branch: SARIF of the whole tree, no comment
    SKIP = "skip"  # nothing to review; `reason` says why


@dataclass(frozen=True)
class ActionEvent:
    kind: ActionKind
    head: str = ""
    base_tip: str = ""  # the pull request's base branch tip
    number: int = 0  # the pull request
    reason: str = ""


def read_event(env: Mapping[str, str]) -> ActionEvent:
    """The event of GITHUB_EVENT_PATH, named by GITHUB_EVENT_NAME (else guessed from the payload)."""
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        raise ConfigError(
            "GITHUB_EVENT_PATH is not set", hint="run this inside a GitHub Actions workflow"
        )
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(f"cannot read the workflow event: {error}", where=path) from None
    if not isinstance(payload, dict):
        raise ConfigError("the workflow event is not a JSON object", where=path)
    name = env.get("GITHUB_EVENT_NAME") or ("pull_request" if "pull_request" in payload else "push")
    if name in _PULL_EVENTS:
        return _pull_request(payload, path)
    if name == "push":
        return _push(payload, path)
    raise ConfigError(
        f"the workflow event {name!r} is neither a pull request nor a push",
        where=path,
        hint="trigger the workflow with `on: pull_request` and `on: push`",
    )


def _pull_request(payload: dict[str, Any], path: str) -> ActionEvent:
    pull = payload.get("pull_request") or {}
    try:
        return ActionEvent(
            ActionKind.PULL_REQUEST,
            head=pull["head"]["sha"],
            base_tip=pull["base"]["sha"],
            number=int(pull["number"]),
        )
    except (TypeError, KeyError, ValueError):
        raise ConfigError(
            "the pull request event has no number, head sha or base sha",
            where=path,
            hint="trigger the workflow with `on: pull_request`",
        ) from None


def _push(payload: dict[str, Any], path: str) -> ActionEvent:
    ref, after = payload.get("ref"), payload.get("after")
    default = (payload.get("repository") or {}).get("default_branch")
    if not isinstance(ref, str) or not isinstance(after, str):
        raise ConfigError("the push event has no ref or after sha", where=path)
    if after == _NO_COMMIT:
        return ActionEvent(ActionKind.SKIP, reason=f"{ref} was deleted")
    if not default or ref != f"refs/heads/{default}":
        return ActionEvent(
            ActionKind.SKIP,
            head=after,
            reason=f"a push to {ref}: only the default branch ({default or 'unknown'}) records a baseline",
        )
    return ActionEvent(ActionKind.BASELINE, head=after)
