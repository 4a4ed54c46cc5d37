"""The review state as a user drives it: `aftershock review` with --state/--since-last, `dismiss`, `reopen`,
`history`, a busy target, a failed review, and PostgreSQL by URL. Real git, real Helm, real databases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from aftershock.cli.options import render_cache_folder
from aftershock.pipeline.state import open_target_state
from charts import app_chart
from gitrepo import Symlink, commit, git, make_repo
from state_support import PG_DSN, PG_URL, postgres_problem

AFTERSHOCK = [sys.executable, "-m", "aftershock.cli"]


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": "true"}
    return subprocess.run(
        [*AFTERSHOCK, *args], cwd=repo, capture_output=True, text=True, env=env, timeout=120
    )


def review(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(
        repo, "review", "--workers", "1", "--render-cache", str(repo.parent / "render-cache"), *args
    )


def values(image: str, replicas: int = 2) -> str:
    return f"replicas: {replicas}\nimage: {image}\nmode: fast\n"


def one_line_error(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> str:
    assert result.returncode == code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def topic(tmp_path: Path) -> tuple[Path, str]:
    """Charts a and b on main; branch `topic` checked out with nginx:latest in chart a."""
    repo = make_repo(tmp_path)
    base = commit(repo, {**app_chart("a", "a"), **app_chart("b", "b")}, "feat: two charts")
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {"a/values.yaml": values("nginx:latest")}, "feat: latest nginx")
    return repo, base


def test_review_dismiss_history_reopen_and_force_push(topic):
    repo, base = topic
    stateless = review(repo, "--base", base, "--no-state", "--format", "json")
    assert stateless.returncode == 0, stateless.stderr
    assert (
        "lifecycle" not in json.loads(stateless.stdout)
        and not (repo / ".aftershock" / "state.db").exists()
    )

    first = review(repo, "--base", base, "--format", "json")
    assert first.returncode == 0, first.stderr
    lifecycle = json.loads(first.stdout)["lifecycle"]
    assert lifecycle["target"]["display"] == "branch topic" and lifecycle["mode"] == "full"
    assert (
        lifecycle["reason"].startswith("first review")
        and (repo / ".aftershock" / "state.db").is_file()
    )
    [latest] = [i for i in lifecycle["new"] if i["rule"] == "image-latest-tag"]
    assert any((repo.parent / "render-cache").rglob("*")), "the render cache keeps the renders"

    dismissed = run(
        repo,
        "dismiss",
        latest["fingerprint"][:12],
        "--reason",
        "pinned by digest in production",
        "--by",
        "alice",
    )
    assert (
        dismissed.returncode == 0
        and f"dismissed {latest['fingerprint']} in branch topic" in dismissed.stdout
    )

    commit(repo, {"b/values.yaml": values("nginx:1.27.0", replicas=3)}, "feat: three b replicas")
    second = review(repo, "--base", base, "--format", "markdown")
    assert second.returncode == 0, second.stderr
    assert "No actionable findings." in second.stdout and "#### Dismissed (1)" in second.stdout
    assert (
        "dismissed by alice on " in second.stdout
        and "pinned by digest in production" in second.stdout
    )

    history = run(repo, "history")
    lines = history.stdout.splitlines()
    assert history.returncode == 0 and [line.split()[0] for line in lines] == ["#2", "#1"]
    assert "full  complete" in lines[0] and "dismissed 1" in lines[0] and "merge " in lines[0]
    assert f"{base[:7]}..{git(repo, 'rev-parse', 'HEAD')[:7]}" in lines[0]
    reviews = json.loads(run(repo, "history", "--format", "json").stdout)["reviews"]
    assert [(r["status"], r["mode"], r["counts"]["new"] > 0) for r in reviews] == [
        ("complete", "full", True),
        ("complete", "full", True),
    ]
    assert set(reviews[0]["verdicts"]) == {"merge_risk", "security_risk"}

    reopened = run(repo, "reopen", latest["fingerprint"])
    assert reopened.returncode == 0 and "reopened" in reopened.stdout
    one_line_error(run(repo, "reopen", latest["fingerprint"]), 2, "no dismissed finding")

    git(repo, "reset", "-q", "--hard", base)
    commit(
        repo, {"a/values.yaml": values("nginx:latest", replicas=5)}, "feat: five latest replicas"
    )
    rewritten = review(repo, "--base", base, "--since-last", "--format", "json")
    assert rewritten.returncode == 0, rewritten.stderr
    assert "aftershock: force-push detected: last reviewed head" in rewritten.stderr
    lifecycle = json.loads(rewritten.stdout)["lifecycle"]
    assert (
        lifecycle["mode"] == "full"
        and lifecycle["force_pushed"]
        and lifecycle["previous_head"] is not None
    )
    assert [
        i["rule"] for i in lifecycle["new"] if i["actionable"]
    ] == []  # reopened: raised again, as retained
    assert "image-latest-tag" in [i["rule"] for i in lifecycle["retained"]]


def test_a_busy_target_makes_the_second_review_wait_then_say_so(topic):
    repo, base = topic
    with (
        open_target_state(repo, None, "pr:42") as held,
        held.store.review_lock(held.repository, held.target),
    ):
        busy = review(repo, "--base", base, "--target", "42", "--lock-timeout", "0.3")
    one_line_error(busy, 3, "another review of PR #42", "is running", "waited 0.3 s")


def test_a_failed_review_is_in_the_history_as_failed(topic):
    repo, base = topic
    commit(repo, {"a/files/link": Symlink("/etc/passwd")}, "feat: a link out of the repository")
    one_line_error(review(repo, "--base", base), 2, "a/files/link")
    history = run(repo, "history").stdout.splitlines()
    assert len(history) == 2 and "full  failed" in history[0] and "no verdicts" in history[0]
    assert history[1].strip().startswith("not reviewed: review:") and "a/files/link" in history[1]


def test_contradicting_state_options_are_refused():
    one_line_error(
        run(Path.cwd(), "review", "--since-last", "--full"), 2, "--since-last and --full contradict"
    )
    one_line_error(
        run(Path.cwd(), "review", "--no-state", "--since-last"), 2, "--no-state keeps no review"
    )


def test_render_cache_folder_defaults(tmp_path):
    repo = make_repo(tmp_path)
    assert render_cache_folder("off", repo) is None
    assert render_cache_folder("~/x", repo) == Path("~/x").expanduser()
    assert render_cache_folder(None, repo, {"XDG_CACHE_HOME": "/c"}) == Path(
        "/c/aftershock/renders"
    )
    assert render_cache_folder(None, repo, {}) == repo / ".aftershock" / "render-cache"
    assert (
        git(repo, "status", "--porcelain") == "" and (repo / ".aftershock" / ".gitignore").is_file()
    )  # ignores itself


@pytest.fixture
def postgres_url():
    problem = postgres_problem()
    if problem:
        pytest.skip(problem)
    import psycopg

    schema = f"aftershock_cli_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def test_postgresql_by_url(topic, postgres_url):
    repo, base = topic
    first = review(
        repo, "--base", base, "--state", postgres_url, "--target", "pr:9", "--format", "json"
    )
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["lifecycle"]["target"]["display"] == "PR #9"
    history = run(repo, "history", "--state", postgres_url, "--target", "9").stdout.splitlines()
    assert len(history) == 1 and history[0].startswith("#1 ") and "full  complete" in history[0]
    assert not (repo / ".aftershock" / "state.db").exists()


def test_a_review_that_keeps_state_judged_in_a_child_writes_the_same_review(topic, monkeypatch):
    """`aftershock review` with its state: judged in a forked child (the threshold lowered to this
    review's size) beside the document, the same document and lifecycle as judged in place."""
    from click.testing import CliRunner

    from aftershock.cli.main import cli
    from aftershock.pipeline import judge_beside

    repo, base = topic
    docs, forks, fork = [], [], os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    for fork_at, state in ((judge_beside.FORK_AT, "in-place.db"), (1, "forked.db")):
        monkeypatch.setattr(judge_beside, "FORK_AT", fork_at)
        args = ["review", "--repo", str(repo), "--base", base, "--workers", "1", "--format", "json"]
        done = CliRunner().invoke(cli, [*args, "--state", str(repo.parent / state)])
        assert done.exit_code == 0, done.output
        docs.append(json.loads(done.stdout))
    in_place, forked = docs
    for doc in docs:
        doc["repository"] = "<repository>"
        lifecycle = doc.pop("lifecycle")
        doc["new"] = sorted(i["fingerprint"] for i in lifecycle["new"])
    assert forked == in_place and forked["new"] and forks == [1]  # the second review forked
