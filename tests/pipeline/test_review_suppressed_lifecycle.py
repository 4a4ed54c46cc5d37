"""A finding a previous push raised and a later push's base suppresses (the checked-in dismissals file, an
`aftershock.io/ignore` annotation) is *suppressed* in the lifecycle, never *resolved*, and comes back when the
suppression goes.

Real git repositories (a topic branch that merges main, so the merge-base, where suppressions are read,
moves), real Helm, real SQLite and, when a server answers at 127.0.0.1:5432, PostgreSQL.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import jsonschema
from rich.console import Console

from aftershock.judgement.stateful import StatefulReview
from aftershock.model.state_lifecycle import LifecycleState
from aftershock.model.state_mode import RequestedMode
from aftershock.pipeline import ReviewRequest
from aftershock.pipeline.state import (
    StateOptions,
    open_target_state,
    review_with_state,
)
from aftershock.render.interface import Renderer
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from aftershock.report.terminal import print_terminal
from charts import agent_daemonset as agent
from charts import app_chart
from conftest import PROJECT
from gitrepo import commit, git, make_repo
from state_support import state_location  # noqa: F401 (fixture)

SCHEMA = json.loads((PROJECT / "src" / "aftershock" / "schema" / "review.schema.json").read_text())
TARGET = "pr:15"
RULE = "pss-host-namespaces"
WHY = "the agent reads the host's PIDs"


def pull_request(tmp_path: Path) -> Path:
    """main holds charts a and b; branch `topic` (checked out) makes a's agent share the host's PIDs."""
    repo = make_repo(tmp_path)
    commit(
        repo,
        {**app_chart("a", "a"), "a/templates/agent.yaml": agent(False), **app_chart("b", "b")},
        "feat: two charts",
    )
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {"a/templates/agent.yaml": agent(True)}, "feat: the agent sees host PIDs")
    return repo


def on_main(repo: Path, files: dict, message: str) -> None:
    """Commit on main, then merge main into topic: the pull request's merge-base moves to it."""
    git(repo, "checkout", "-q", "main")
    commit(repo, files, message)
    git(repo, "checkout", "-q", "topic")
    git(repo, "merge", "-q", "--no-edit", "main")


def review(
    repo: Path, renderer: Renderer, location: str, requested: RequestedMode = RequestedMode.DEFAULT
) -> tuple[StatefulReview, dict]:
    request = ReviewRequest(repo=repo, head="HEAD", run_tests=False)
    stateful = review_with_state(request, renderer, None, StateOptions(location, TARGET, requested))
    doc = review_document(stateful.result.review, stateful.result.judgement, stateful)
    jsonschema.validate(doc, SCHEMA)
    return stateful, doc


def agent_entry(stateful: StatefulReview):
    (found,) = [e for e in stateful.lifecycle.entries if e.finding.rule_id == RULE]
    return found


def raised_rules(stateful: StatefulReview) -> set[str]:
    return {f.rule_id for f in stateful.result.judgement.findings}


def terminal(doc: dict) -> str:
    out = io.StringIO()
    print_terminal(doc, Console(file=out, width=400, color_system=None))
    return out.getvalue()


def test_dismissals_file_suppresses_a_raised_finding_then_it_is_retained_again(
    tmp_path, renderer, state_location
):
    repo = pull_request(tmp_path)
    first, _ = review(repo, renderer, state_location)
    raised = agent_entry(first)
    assert raised.state is LifecycleState.NEW and RULE in raised_rules(first)
    head1 = git(repo, "rev-parse", "HEAD")

    dismissals = f"dismissals:\n- fingerprint: {raised.fingerprint}\n  reason: {json.dumps(WHY)}\n  by: ops\n"
    on_main(repo, {".aftershock/dismissals.yaml": dismissals}, "chore: the agent may see host PIDs")
    second, doc = review(repo, renderer, state_location)
    silenced = agent_entry(second)
    assert silenced.state is LifecycleState.SUPPRESSED and not second.lifecycle.resolved
    assert (
        silenced.suppression.reason == WHY
        and silenced.suppression.source == "dismissals file, by ops"
    )
    assert silenced.suppressed_since == head1 and RULE not in raised_rules(second)
    section = doc["lifecycle"]
    assert section["counts"]["suppressed"] == 1 and section["counts"]["resolved"] == 0
    (item,) = section["suppressed"]
    assert item["fingerprint"] == raised.fingerprint and item["suppressed_since"] == head1
    assert item["suppression"] == {"reason": WHY, "source": "dismissals file, by ops"}
    text = render_markdown(doc)
    assert "Suppressed by the repository (1)" in text and WHY in text
    assert f"raised at `{head1[:7]}`, suppressed since: not resolved" in text
    assert "Resolved since" not in text
    with open_target_state(repo, state_location, TARGET) as opened:
        (latest, *_) = opened.store.history(opened.repository, opened.target)
    assert latest.counts.get("suppressed") == 1 and "resolved" not in latest.counts

    # a push that only touches chart b, reviewed incrementally: the suppression is carried, not raised
    commit(repo, {"b/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"}, "feat: b x3")
    third, doc = review(repo, renderer, state_location, RequestedMode.SINCE_LAST)
    carried = agent_entry(third)
    assert third.plan.since_sha == second.result.review.head.sha
    assert carried.state is LifecycleState.SUPPRESSED and carried.carried_forward
    assert carried.suppression.reason == WHY and RULE not in raised_rules(third)
    assert [s["rule"] for s in doc["findings"]["suppressed"]] == [RULE]
    assert not third.lifecycle.resolved

    on_main(repo, {".aftershock/dismissals.yaml": None}, "chore: the agent must not see host PIDs")
    fourth, doc = review(repo, renderer, state_location)
    back = agent_entry(fourth)
    assert back.state is LifecycleState.RETAINED and back.suppression is None
    assert RULE in raised_rules(fourth) and doc["lifecycle"]["counts"]["suppressed"] == 0
    # how many are listed depends on the other rules (rollout-everywhere also sees the DaemonSet roll)
    assert re.search(r"#### Retained \(\d+\)", render_markdown(doc))


def test_an_annotation_at_the_new_base_suppresses_what_the_last_push_raised(
    tmp_path, renderer, state_location
):
    repo = pull_request(tmp_path)
    first, _ = review(repo, renderer, state_location)
    assert agent_entry(first).state is LifecycleState.NEW
    head1 = git(repo, "rev-parse", "HEAD")

    on_main(repo, {"a/templates/agent.yaml": agent(False, f"{RULE}: {WHY}")}, "chore: ignore")
    second, doc = review(repo, renderer, state_location)
    silenced = agent_entry(second)
    assert silenced.state is LifecycleState.SUPPRESSED and not second.lifecycle.resolved
    assert silenced.suppression.source == "annotation aftershock.io/ignore at base"
    assert RULE not in raised_rules(second)
    shown = terminal(doc)
    assert "suppressed (1)" in shown and WHY in shown and "resolved since" not in shown
    assert f"raised at {head1[:7]}, suppressed since: not resolved" in shown
