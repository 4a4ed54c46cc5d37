"""The workflow event the Action reads: a pull request event without what a review needs is one clear
ConfigError naming the event file, whatever shape the `pull_request` member has."""

from __future__ import annotations

import json

import pytest

from aftershock.model.errors import ConfigError
from aftershock.server.action_event import ActionKind, read_event

SHA_HEAD, SHA_BASE = "a" * 40, "b" * 40


def _env(tmp_path, payload, name="pull_request"):
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload))
    return {"GITHUB_EVENT_PATH": str(event), "GITHUB_EVENT_NAME": name}


def test_a_pull_request_event_gives_its_number_head_and_base(tmp_path):
    payload = {
        "pull_request": {"number": "7", "head": {"sha": SHA_HEAD}, "base": {"sha": SHA_BASE}}
    }
    event = read_event(_env(tmp_path, payload))
    assert (event.kind, event.number, event.head, event.base_tip) == (
        ActionKind.PULL_REQUEST,
        7,
        SHA_HEAD,
        SHA_BASE,
    )


@pytest.mark.parametrize(
    "pull",
    [
        None,
        "",
        "4",
        [],
        {},
        {"number": 4, "head": {"sha": SHA_HEAD}},
        {"number": "x", "head": {"sha": SHA_HEAD}, "base": {"sha": SHA_BASE}},
    ],
)
def test_a_pull_request_event_without_number_or_shas_is_a_config_error(tmp_path, pull):
    env = _env(tmp_path, {"pull_request": pull})
    with pytest.raises(ConfigError, match="no number, head sha or base sha") as raised:
        read_event(env)
    assert raised.value.where == env["GITHUB_EVENT_PATH"]


def test_a_pull_request_event_with_no_pull_request_member_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no number, head sha or base sha"):
        read_event(_env(tmp_path, {"action": "opened"}, name="pull_request_target"))
