"""Suppressions the repository checks in: `aftershock.io/ignore` annotations and `.aftershock/dismissals.yaml`,
both read at the base ref (a change cannot silence its own findings, and is told when it adds one),
`aftershock dismiss --write-file`, and the notice on a change that edits `.aftershock.yaml`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import agent_daemonset as agent
from charts import app_chart
from conftest import PROJECT
from gitrepo import commit, make_repo

SCHEMA = json.loads((PROJECT / "src" / "aftershock" / "schema" / "review.schema.json").read_text())
RULE = "pss-host-namespaces"


def _review(repo, base, head, renderer):
    result = review_change(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False), renderer
    )
    doc = review_document(result.review, result.judgement)
    jsonschema.validate(doc, SCHEMA)
    return result, doc["findings"]


def _rules(section):
    return {item["rule"] for item in section["items"]}


def test_annotation_at_base_silences_the_rule_for_that_object(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            **app_chart("charts/app", "app"),
            "charts/app/templates/agent.yaml": agent(
                False, f"{RULE}: the agent reads the host's PIDs"
            ),
        },
        "base",
    )
    head = commit(
        repo,
        {
            "charts/app/templates/agent.yaml": agent(
                True, f"{RULE}: the agent reads the host's PIDs"
            )
        },
        "pid",
    )
    result, section = _review(repo, base, head, renderer)
    assert RULE not in _rules(section)
    (silenced,) = [s for s in section["suppressed"] if s["rule"] == RULE]
    assert (
        silenced["reason"] == "the agent reads the host's PIDs"
        and "annotation" in silenced["source"]
    )
    assert all(f.rule_id != RULE for f in result.judgement.findings)
    assert "Suppressed by the repository" in render_markdown(
        review_document(result.review, result.judgement)
    )


def test_a_change_cannot_silence_its_own_finding_and_is_told(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {**app_chart("charts/app", "app"), "charts/app/templates/agent.yaml": agent(False)},
        "base",
    )
    head = commit(
        repo, {"charts/app/templates/agent.yaml": agent(True, f"{RULE}: trust me")}, "pid, silenced"
    )
    _, section = _review(repo, base, head, renderer)
    assert RULE in _rules(section) and "suppressed" not in section
    assert any(
        "adds aftershock.io/ignore for pss-host-namespaces" in n and "not honoured" in n
        for n in section["notices"]
    )


def test_malformed_annotation_is_a_notice_not_a_suppression(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {**app_chart("charts/app", "app"), "charts/app/templates/agent.yaml": agent(False, RULE)},
        "base",
    )
    head = commit(repo, {"charts/app/templates/agent.yaml": agent(True, RULE)}, "pid")
    _, section = _review(repo, base, head, renderer)
    assert RULE in _rules(section)
    assert any("is not `<rule>[,<rule>]: <reason>`" in n for n in section["notices"])


def _cli(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(PROJECT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "aftershock.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


def test_dismiss_write_file_is_honoured_once_on_the_base_branch(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {**app_chart("charts/app", "app"), "charts/app/templates/agent.yaml": agent(False)},
        "base",
    )
    commit(repo, {"charts/app/templates/agent.yaml": agent(True)}, "pid")
    reviewed = _cli(
        "review", "--repo", str(repo), "--base", base, "--no-tests", "--format", "json", cwd=repo
    )
    (fingerprint,) = [
        i["fingerprint"]
        for i in json.loads(reviewed.stdout)["findings"]["items"]
        if i["rule"] == RULE
    ]
    written = _cli(
        "dismiss",
        fingerprint[:12],
        "--reason",
        "the agent needs it",
        "--by",
        "ops",
        "--write-file",
        cwd=repo,
    )
    assert written.returncode == 0, written.stderr
    dismissals = repo / ".aftershock" / "dismissals.yaml"
    assert fingerprint in dismissals.read_text()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert (
        ".aftershock/dismissals.yaml" in status.stdout
    )  # git sees it (the state beside it stays ignored)

    # committed on the pull request itself: not honoured, the review says so
    with_file = commit(repo, {".aftershock/dismissals.yaml": dismissals.read_text()}, "dismiss")
    _, section = _review(repo, base, with_file, renderer)
    assert RULE in _rules(section) and any("adds a dismissal" in n for n in section["notices"])

    # once on the base branch: honoured, under suppressed, with its author
    merged = commit(
        repo, {"charts/app/templates/agent.yaml": agent(False)}, "unset the pid, keep the file"
    )
    again = commit(repo, {"charts/app/templates/agent.yaml": agent(True)}, "pid again")
    _, section = _review(repo, merged, again, renderer)
    assert RULE not in _rules(section)
    (silenced,) = [s for s in section["suppressed"] if s["rule"] == RULE]
    assert (
        silenced["source"] == "dismissals file, by ops"
        and silenced["reason"] == "the agent needs it"
    )


def test_invalid_dismissals_file_at_base_is_bad_input(tmp_path):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            **app_chart("charts/app", "app"),
            ".aftershock/dismissals.yaml": "dismissals: [{reason: x}]\n",
        },
        "base",
    )
    commit(
        repo, {"charts/app/values.yaml": "replicas: 5\nimage: nginx:1.27.0\nmode: fast\n"}, "scale"
    )
    done = _cli("review", "--repo", str(repo), "--base", base, "--no-tests", "--no-state", cwd=repo)
    assert done.returncode == 2 and "dismissals" in done.stderr and "Traceback" not in done.stderr


def test_a_change_to_the_config_is_named_in_a_notice(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo, {**app_chart("charts/app", "app"), ".aftershock.yaml": "rules: {}\n"}, "base"
    )
    head = commit(
        repo,
        {
            ".aftershock.yaml": f"rules:\n  {RULE}: {{enabled: false}}\nkubernetes_version: '1.31'\n",
            "charts/app/values.yaml": "replicas: 5\nimage: nginx:1.27.0\nmode: fast\n",
        },
        "relax",
    )
    _, section = _review(repo, base, head, renderer)
    (notice,) = [n for n in section["notices"] if ".aftershock.yaml" in n]
    assert (
        "used the base's file" in notice
        and f"rules.{RULE}" in notice
        and "kubernetes_version" in notice
    )


def test_an_object_whose_metadata_is_not_a_map_is_judged_without_a_crash(tmp_path, renderer):
    """Found by the fuzzer: a rendered Service with `metadata: 1.5` crashed the suppression step (exit 1)."""
    repo = make_repo(tmp_path)
    chart = {
        "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        "c/templates/objects.yaml": "{{- range .Values.objects }}\n---\n{{ toYaml . }}\n{{- end }}\n",
        "c/values.yaml": "objects:\n- {apiVersion: v1, kind: Service, metadata: 1.5, spec: {ports: [{port: 80}]}}\n",
    }
    base = commit(repo, chart, "feat")
    commit(repo, {"c/values.yaml": chart["c/values.yaml"].replace("port: 80", "port: 81")}, "fix")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    assert result.judgement.suppressed == ()
