"""The composite Action's steps, run as the action runs them (`scripts/action.sh review`) in a real
repository with GitHub's own webhook payloads (the shared corpus) rewritten to its commits: a pull
request reviewed, commented and failed by merge risk; a dismissal that survives to the next push
through the state database; the default branch's baseline on push; distinct exit codes."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from aftershock.report.sarif import FINGERPRINT_KEY
from charts import HOST_PID_DAEMONSET, app_chart, packaged
from conftest import CORPUS, PROJECT
from gitrepo import commit, make_repo
from server_fakes import AppKey, FakeGitHub

WEBHOOKS = CORPUS / "github-webhooks"
REPO = "acme/platform"

pytestmark = pytest.mark.skipif(
    not WEBHOOKS.is_dir(), reason=f"the webhook payload corpus is absent ({WEBHOOKS})"
)


def _payload(tmp: Path, name: str, **changes) -> Path:
    event = json.loads((WEBHOOKS / name).read_text())
    if "pull_request" in event:
        pull = event["pull_request"]
        pull["number"] = event["number"] = changes["number"]
        pull["head"]["sha"], pull["base"]["sha"] = changes["head"], changes["base"]
    else:
        event.update(changes)
    path = tmp / f"event-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(event))
    return path


def _step(
    repo: Path, tmp: Path, event_name: str, event: Path, fake: FakeGitHub, **extra: str
) -> tuple[int, dict, str]:
    output = tmp / f"output-{time.monotonic_ns()}"
    env = {
        **os.environ,
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_OUTPUT": str(output),
        "RUNNER_TEMP": str(tmp),
        "GITHUB_TOKEN": "ghs_workflow",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": fake.url,
        "AFTERSHOCK_PYTHON": sys.executable,
        "PYTHONPATH": str(PROJECT / "src"),
        "FAIL_ON": "high",
        "AFTERSHOCK_STATE_DIR": str(tmp / "state"),
        "AFTERSHOCK_RENDER_CACHE": str(tmp / "renders"),
        **extra,
    }
    done = subprocess.run(
        [str(PROJECT / "scripts" / "action.sh"), "review"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    values = (
        dict(line.split("=", 1) for line in output.read_text().splitlines())
        if output.exists()
        else {}
    )
    return done.returncode, values, done.stderr


def test_pull_request_then_push_then_baseline(tmp_path):
    fake = FakeGitHub.start(tmp_path / "git", "42", AppKey.generate().public_pem)
    fake.state.tokens["ghs_workflow"] = time.time() + 3600
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base")
    head = commit(repo, {"charts/app/templates/agent.yaml": HOST_PID_DAEMONSET}, "add a node agent")
    try:
        opened = _payload(
            tmp_path, "pull_request/opened.payload.json", number=7, head=head, base=base
        )
        code, out, err = _step(repo, tmp_path, "pull_request", opened, fake)
        assert (code, out["exit-code"], out.get("fail-job"), out["mode"]) == (
            0,
            "4",
            "true",
            "pull_request",
        ), err
        sarif = json.loads(Path(out["sarif-file"]).read_text())
        host = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "pss-host-namespaces"]
        fingerprint = host[0]["partialFingerprints"][FINGERPRINT_KEY]
        (comment,) = fake.comments_on(REPO, 7)
        assert (
            "pss-host-namespaces" in comment["body"] and "@aftershock help" not in comment["body"]
        )

        # a dismissal recorded in the carried state database is honoured on the next push
        subprocess.run(
            [
                sys.executable,
                "-m",
                "aftershock.cli",
                "dismiss",
                fingerprint,
                "--reason",
                "the agent needs it",
                "--by",
                "ops",
                "--repo",
                str(repo),
                "--state",
                str(tmp_path / "state" / "state.db"),
                "--target",
                "pr:7",
            ],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(PROJECT / "src")},
        )
        pushed = commit(repo, {"charts/app/README.md": "docs\n"}, "docs")
        synchronize = _payload(
            tmp_path, "pull_request/synchronize.payload.json", number=7, head=pushed, base=base
        )
        code, out, err = _step(repo, tmp_path, "pull_request", synchronize, fake)
        assert code == 0 and out["exit-code"] in ("0", "4"), err
        (comment,) = fake.comments_on(REPO, 7)
        assert comment.get("edits") == 1 and "the agent needs it" in comment["body"]

        # a push to the default branch: SARIF of the whole tree, no comment
        repository = json.loads((WEBHOOKS / "pull_request/synchronize.payload.json").read_text())[
            "repository"
        ]
        push = _payload(
            tmp_path, "pull_request/synchronize.payload.json", number=0, head=pushed, base=base
        )
        push.write_text(
            json.dumps(
                {
                    "ref": f"refs/heads/{repository['default_branch']}",
                    "before": base,
                    "after": pushed,
                    "repository": repository,
                }
            )
        )
        code, out, err = _step(repo, tmp_path, "push", push, fake, AFTERSHOCK_STATE_DIR="")
        assert code == 0 and out["mode"] == "baseline", err
        rules = {
            r["ruleId"]
            for r in json.loads(Path(out["sarif-file"]).read_text())["runs"][0]["results"]
        }
        assert "pss-host-namespaces" in rules
        assert fake.comments_on(REPO, 7)[0].get("edits") == 1  # nothing posted on push
    finally:
        fake.stop()


def test_cache_keys_name_the_lock_the_base_and_the_pull_request(tmp_path):
    event = _payload(
        tmp_path, "pull_request/synchronize.payload.json", number=12, head="a" * 40, base="b" * 40
    )
    output = tmp_path / "output"
    env = {
        **os.environ,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_ACTION_PATH": str(PROJECT),
    }
    subprocess.run(
        [str(PROJECT / "scripts" / "action.sh"), "keys"], env=env, check=True, timeout=60
    )
    keys = dict(line.split("=", 1) for line in output.read_text().splitlines())
    assert keys["base"] == "b" * 40 and keys["target"] == "pr12" and len(keys["lock"]) == 16
    assert len(keys["charts"]) == 16  # the chart cache's key: the files naming external charts


def test_other_pushes_are_skipped_and_other_events_are_bad_input(tmp_path):
    fake = FakeGitHub.start(tmp_path / "git", "42", AppKey.generate().public_pem)
    repo = make_repo(tmp_path / "work")
    sha = commit(repo, app_chart("charts/app", "app"), "base")
    try:
        push = tmp_path / "push.json"
        push.write_text(
            json.dumps(
                {
                    "ref": "refs/heads/feature",
                    "after": sha,
                    "repository": {"default_branch": "main"},
                }
            )
        )
        code, out, err = _step(repo, tmp_path, "push", push, fake)
        assert (code, out["exit-code"], out["mode"]) == (0, "0", "skip") and not out["sarif-file"]
        comment = WEBHOOKS / "issue_comment" / "created.payload.json"
        code, out, err = _step(repo, tmp_path, "issue_comment", comment, fake)
        assert (code, out["exit-code"]) == (2, "2") and "neither a pull request nor a push" in err
        assert "Traceback" not in err
    finally:
        fake.stop()


WEB_RELEASE = (
    "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: apps}\n"
    "spec:\n  chart:\n    spec:\n      chart: web\n      version: VERSION\n"
    "      sourceRef: {kind: HelmRepository, name: charts}\n"
)


def test_the_charts_step_fills_the_cache_and_a_chart_gap_fails_only_when_asked(tmp_path):
    """`action.sh charts` fetches the release's chart at base and head from a loopback chart
    repository; the version it cannot fetch is a gap the job does not fail on by default."""
    served = tmp_path / "served"
    served.mkdir()
    entries = []
    for version in ("1.0.0", "1.1.0"):
        archive = packaged(
            {
                "web/Chart.yaml": f"apiVersion: v2\nname: web\nversion: {version}\n",
                "web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n"
                f"data: {{v: '{version}'}}\n",
            }
        )
        (served / f"web-{version}.tgz").write_bytes(archive)
        digest = hashlib.sha256(archive).hexdigest()
        entries.append({"version": version, "digest": digest, "urls": [f"web-{version}.tgz"]})
    (served / "index.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "entries": {"web": entries}})
    )
    handler = partial(SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    source = f"apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {{name: charts, namespace: apps}}\nspec: {{url: {url}}}\n"
    repo = make_repo(tmp_path / "work")
    base = commit(
        repo,
        {"apps/source.yaml": source, "apps/web.yaml": WEB_RELEASE.replace("VERSION", "1.0.0")},
        "web",
    )
    head = commit(repo, {"apps/web.yaml": WEB_RELEASE.replace("VERSION", "1.1.0")}, "bump web")
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps({"pull_request": {"number": 3, "head": {"sha": head}, "base": {"sha": base}}})
    )
    cache = tmp_path / "charts"
    env = {**os.environ, "GITHUB_EVENT_PATH": str(event), "AFTERSHOCK_CHART_CACHE": str(cache),
           "AFTERSHOCK_PYTHON": sys.executable, "PYTHONPATH": str(PROJECT / "src")}  # fmt: skip
    try:
        fetched = subprocess.run(
            [str(PROJECT / "scripts" / "action.sh"), "charts"],
            cwd=repo, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    assert fetched.returncode == 0, fetched.stdout + fetched.stderr
    assert sorted(p.name for p in cache.glob("*.tgz")) == ["web-1.0.0.tgz", "web-1.1.0.tgz"]
    (cache / "web-1.1.0.tgz").unlink()  # a chart the runner could not fetch
    (cache / "web-1.1.0.tgz.sha256").unlink(missing_ok=True)
    fake = FakeGitHub.start(tmp_path / "git", "42", AppKey.generate().public_pem)
    try:
        quiet, values, stderr = _step(repo, tmp_path, "pull_request", event, fake,
                                      AFTERSHOCK_CHART_CACHE=str(cache), FAIL_ON="never", COMMENT="false")  # fmt: skip
        _, strict, _ = _step(repo, tmp_path, "pull_request", event, fake, FAIL_ON="never",
                             AFTERSHOCK_CHART_CACHE=str(cache), FAIL_ON_CHART_GAPS="true", COMMENT="false")  # fmt: skip
    finally:
        fake.stop()
    assert "web-1.1.0.tgz" in stderr and "not in the chart cache" in stderr  # said either way
    assert (quiet, values["exit-code"], "fail-job" in values) == (0, "0", False)
    assert (strict["exit-code"], strict["fail-job"]) == ("3", "true")
