"""The composite Action's entry point on a real checkout: the review, one sticky comment updated in
place on the fake GitHub, SARIF written, outputs and summary, and the exit status by merge risk."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import yaml

from aftershock.server.action import EXIT_ERROR, EXIT_OK, EXIT_RISK, run
from aftershock.server.publish import COMMENT_MARKER
from charts import app_chart
from gitrepo import commit, make_repo
from server_fakes import AppKey, FakeGitHub

PROJECT = Path(__file__).resolve().parents[2]
REPO = "acme/platform"


def test_action_reviews_comments_and_fails_only_at_the_level(tmp_path):
    fake = FakeGitHub.start(tmp_path / "git", "42", AppKey.generate().public_pem)
    fake.state.tokens["ghs_workflow"] = time.time() + 3600
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base")
    head = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "more replicas",
    )
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps({"pull_request": {"number": 4, "head": {"sha": head}, "base": {"sha": base}}})
    )
    output, summary, sarif = tmp_path / "output", tmp_path / "summary.md", tmp_path / "out.sarif"
    env = {
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_TOKEN": "ghs_workflow",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": fake.url,
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    try:
        assert (
            run(["--repo", str(repo), "--fail-on", "critical", "--sarif", str(sarif)], env)
            == EXIT_OK
        )
        assert run(["--repo", str(repo), "--fail-on", "minimal"], env) == EXIT_RISK
        assert (
            run(
                ["--repo", str(repo), "--fail-on", "never", "--no-comment"],
                {**env, "GITHUB_EVENT_PATH": ""},
            )
            == EXIT_ERROR
        )
    finally:
        fake.stop()
    (comment,) = fake.comments_on(REPO, 4)
    assert comment["body"].startswith(COMMENT_MARKER) and comment.get("edits") == 1
    assert json.loads(sarif.read_text())["version"] == "2.1.0"
    values = dict(line.split("=", 1) for line in output.read_text().splitlines())
    assert (
        values["merge-risk"] in ("minimal", "low", "medium", "high", "critical")
        and values["complete"] == "true"
    )
    assert summary.read_text().startswith("## aftershock · Merge risk:")
    assert fake.state.check_runs == {}  # the workflow's own job is the check


def test_action_yml_runs_its_script_and_pins_every_third_party_action():
    action = yaml.safe_load((PROJECT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) >= {
        "fail-on",
        "upload-sarif",
        "comment",
        "token",
        "fail-on-partial",
    }
    steps = action["runs"]["steps"]
    scripts = [step["run"] for step in steps if "action.sh" in step.get("run", "")]
    assert [s.split()[-1] for s in scripts] == ["keys", "install", "charts", "review"]
    used = [step["uses"] for step in steps if "uses" in step]
    assert all(re.fullmatch(r"[\w/-]+@[0-9a-f]{40}", uses) for uses in used), used
    text = (PROJECT / "action.yml").read_text()
    assert all(
        re.search(re.escape(uses) + r"\s+# v\d+\.\d+\.\d+", text) for uses in used
    )  # which version each sha is
    assert any(uses.startswith("github/codeql-action/upload-sarif@") for uses in used)
    assert (
        sum(uses.startswith("actions/cache@") for uses in used) == 4
    )  # venv, render cache, review state, chart cache
    assert set(action["outputs"]) >= {"merge-risk", "security-risk", "sarif-file", "exit-code"}
