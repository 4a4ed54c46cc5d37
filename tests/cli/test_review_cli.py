"""The `aftershock review` command as a user runs it: one clear line and a non-zero exit on bad input."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from charts import app_chart
from gitrepo import Symlink, commit, make_repo

AFTERSHOCK = [sys.executable, "-m", "aftershock.cli"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": "true"}
    return subprocess.run(
        [*AFTERSHOCK, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


def assert_one_line_error(
    result: subprocess.CompletedProcess[str], *needles: str, code: int = 2
) -> None:
    assert result.returncode == code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    path = make_repo(tmp_path)
    return path, commit(path, app_chart("c", "c"), "feat: chart")


def test_not_a_git_repository(tmp_path):
    assert_one_line_error(
        run("review", "--repo", str(tmp_path), "--base", "HEAD~1"),
        "not a git repository",
        str(tmp_path),
    )


def test_unknown_ref(repo):
    path, _ = repo
    assert_one_line_error(
        run("review", "--repo", str(path), "--base", "no-such-branch"),
        "unknown git ref",
        "no-such-branch",
    )


def test_empty_range(repo):
    path, base = repo
    assert_one_line_error(run("review", "--repo", str(path), "--base", base), "nothing to review")


def test_no_base_and_no_default_branch(tmp_path):
    path = make_repo(tmp_path, branch="feature")
    commit(path, app_chart("c", "c"), "feat: chart")
    assert_one_line_error(run("review", "--repo", str(path)), "no default branch", "--base")


def test_base_defaults_to_merge_base_with_main(repo):
    path, base = repo
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "-b", "topic"], check=True)
    commit(path, {"c/values.yaml": "replicas: 5\nimage: nginx:1.27.0\nmode: fast\n"}, "feat: five")
    result = run("review", "--repo", str(path), "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["base"]["sha"] == base and doc["base"]["ref"].startswith("merge-base(main")


def test_malformed_chart_yaml_leaves_the_chart_not_reviewed(repo):
    # a pull request that breaks a chart does not stop its review: the chart is not reviewed
    path, base = repo
    commit(path, {"c/Chart.yaml": "apiVersion: v2\nname: [c\n"}, "fix: break")
    result = run("review", "--repo", str(path), "--base", base)
    assert result.returncode == 3 and "Traceback" not in result.stderr, result.stderr
    assert "not reviewed: chart c at head" in result.stderr and "Chart.yaml" in result.stderr


def test_malformed_values_file_is_not_reviewed(repo):
    path, base = repo
    commit(path, {"c/values.yaml": "replicas: {2\n"}, "fix: break")
    result = run("review", "--repo", str(path), "--base", base)
    assert result.returncode == 3 and "Traceback" not in result.stderr, result.stderr
    assert "not reviewed: values file c/values.yaml at head" in result.stderr


def test_template_error_prints_helm_text_and_exits_partial(repo):
    path, base = repo
    commit(
        path, {"c/templates/boom.yaml": '{{ fail "boom: replicas must be odd" }}\n'}, "feat: boom"
    )
    result = run(
        "review",
        "--repo",
        str(path),
        "--base",
        base,
        "--format",
        "json",
        "--output",
        str(path / "out.json"),
    )
    assert_one_line_error(
        result,
        "not reviewed: template c/templates/boom.yaml of chart c at head",
        "replicas must be odd",
        code=3,
    )
    doc = json.loads((path / "out.json").read_text())
    assert doc["status"] == "partial" and doc["objects"] == []


def test_file_over_size_limit(repo):
    path, base = repo
    commit(path, {"c/files/big.bin": b"\0" * 4096}, "feat: big")
    assert_one_line_error(  # the chart that needs it is not reviewed; the review itself goes on
        run("review", "--repo", str(path), "--base", base, "--max-file-size", "1024"),
        "not reviewed: chart c at head",
        "c/files/big.bin",
        "size limit",
        code=3,
    )


@pytest.mark.parametrize("target", ["/etc/passwd", "../../../outside"])
def test_escaping_symlink_is_refused(repo, target):
    path, base = repo
    commit(path, {"c/files/link": Symlink(target)}, "feat: link")
    assert_one_line_error(
        run("review", "--repo", str(path), "--base", base),
        "symlink leaves the repository",
        "c/files/link",
    )


def test_debug_shows_the_traceback(repo):
    path, _ = repo
    result = run("--debug", "review", "--repo", str(path), "--base", "no-such-branch")
    assert result.returncode != 0 and "Traceback" in result.stderr


def test_progress_bar_only_on_a_terminal_and_never_for_json(repo):
    path, base = repo
    commit(path, {"c/values.yaml": "replicas: 5\nimage: nginx:1.27.0\nmode: fast\n"}, "feat: five")

    def stderr_on_tty(fmt: str) -> str:
        leader, follower = pty.openpty()
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        proc = subprocess.run(
            [*AFTERSHOCK, "review", "--repo", str(path), "--base", base, "--format", fmt],
            stdout=subprocess.PIPE,
            stderr=follower,
            env=env,
            timeout=120,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        assert proc.returncode == 0
        return b"".join(chunks).decode(errors="replace")

    assert "rendering" in stderr_on_tty("terminal")
    assert stderr_on_tty("json") == ""


def test_sarif_output_validates_and_points_into_the_change(repo):
    import jsonschema

    path, base = repo
    daemon = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  hostPID: {{ .Values.hostPID }}\n  containers: [{name: a, image: 'nginx:1.27.0'}]\n"
    commit(
        path,
        {
            "c/templates/pod.yaml": daemon,
            "c/values.yaml": "replicas: 2\nimage: nginx:1.27.0\nmode: fast\nhostPID: true\n",
        },
        "feat: host pid",
    )
    result = run("review", "--repo", str(path), "--base", base, "--format", "sarif")
    assert result.returncode == 0, result.stderr
    sarif = json.loads(result.stdout)
    schema = json.loads(
        (Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json").read_text()
    )
    jsonschema.Draft7Validator(schema).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert any(r["ruleId"] == "pss-host-namespaces" for r in results)
    new = [r for r in results if r["baselineState"] == "new"]
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for r in new
        for loc in r.get("locations", [])
    }
    assert new and uris <= {
        "c/templates/pod.yaml",
        "c/values.yaml",
    }  # what the change introduced lands in it


def test_fail_on_risk_exits_4_only_when_reached(repo):
    path, base = repo
    commit(
        path,
        {
            "c/templates/pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  hostNetwork: true\n  containers: [{name: a, image: 'nginx:1.27.0'}]\n"
        },
        "feat: host net",
    )
    high = run(
        "review", "--repo", str(path), "--base", base, "--format", "json", "--fail-on-risk", "high"
    )
    assert high.returncode == 4 and "reaches --fail-on-risk high" in high.stderr
    critical = run(
        "review",
        "--repo",
        str(path),
        "--base",
        base,
        "--format",
        "json",
        "--fail-on-risk",
        "critical",
    )
    assert critical.returncode == 0, critical.stderr
    assert json.loads(critical.stdout)["findings"]["verdicts"]["merge"]["level"] == "high"


def test_configuration_is_read_at_the_base_ref(repo):
    path, base = repo
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  hostNetwork: true\n  containers: [{name: a, image: 'nginx:1.27.0'}]\n"
    commit(
        path,
        {
            "c/templates/pod.yaml": pod,
            ".aftershock.yaml": "rules:\n  pss-host-namespaces:\n    enabled: false\n",
        },
        "feat: sneaky",
    )
    doc = json.loads(run("review", "--repo", str(path), "--base", base, "--format", "json").stdout)
    assert (
        doc["config"] == "defaults"
    )  # the head's own configuration cannot switch off the rule reviewing it
    assert any(
        i["rule"] == "pss-host-namespaces" and i["actionable"] for i in doc["findings"]["items"]
    )


def test_malformed_configuration_is_one_clear_error(repo, tmp_path):
    path, base = repo
    commit(path, {"c/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"}, "feat: 3")
    config = tmp_path / "bad.yaml"
    config.write_text("rules:\n  no-such-rule: {enabled: false}\n")
    assert_one_line_error(
        run("review", "--repo", str(path), "--base", base, "--config", str(config)), "no-such-rule"
    )


def test_rules_and_explain_commands():
    listing = run("rules")
    assert listing.returncode == 0 and "pss-host-namespaces" in listing.stdout
    doc = run("explain", "rbac-wildcard")
    for section in ("What it checks", "Why it matters", "Example", "How to fix"):
        assert section in doc.stdout
    assert_one_line_error(run("explain", "no-such-rule"), "unknown rule")


def test_kustomize_warnings_are_prefixed_lines_said_once(tmp_path):
    namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: web, labels: {tier: %s}}\n"
    path = make_repo(tmp_path)
    files = {
        "overlays/prod/kustomization.yaml": "resources: [ns.yaml]\n"
        "patchesStrategicMerge: [patch.yaml]\n",
        "overlays/prod/ns.yaml": namespace % "a",
        "overlays/prod/patch.yaml": namespace % "b",
    }
    base = commit(path, files, "feat: overlay")
    commit(path, {"overlays/prod/patch.yaml": namespace % "c"}, "feat: tier c")
    out = path / "out.json"
    result = run(
        "review", "--repo", str(path), "--base", base, "--format", "json", "--output", str(out)
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "aftershock: warning: kustomization overlays/prod at base and head: 'patchesStrategicMerge' "
        "is deprecated. Please use 'patches' instead. Run 'kustomize edit fix' to update your "
        "Kustomization automatically."
    ]
    (entry,) = json.loads(out.read_text())["chart_reviews"]
    assert entry["head"]["warnings"] == entry["base"]["warnings"]


def test_quiet_prints_the_verdicts_and_the_status_in_three_lines(repo):
    path, base = repo
    commit(path, {"c/values.yaml": "replicaCount: 3\n"}, "feat: three")
    result = run("review", "--repo", str(path), "--base", base, "--no-state", "--quiet")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("aftershock ") and "Merge risk: " in lines[0]
    assert lines[1].startswith("Security architecture risk: ")
    assert lines[2].startswith("Review complete")


def test_quiet_is_for_the_text_format_only(repo):
    path, base = repo
    result = run("review", "--repo", str(path), "--base", base, "--quiet", "--format", "json")
    assert_one_line_error(result, "--quiet prints a summary in text")


def test_profile_prints_the_stages_and_the_json_carries_them_only_when_asked(repo, tmp_path):
    path, base = repo
    commit(path, {"c/values.yaml": "replicas: 5\nimage: nginx:1.27.0\nmode: fast\n"}, "feat: five")
    common = ("review", "--repo", str(path), "--base", base, "--no-state", "--format", "json")
    profiled = run(*common, "--profile", "--output", str(tmp_path / "p.json"))
    assert profiled.returncode == 0, profiled.stderr
    stages = [line.split()[1] for line in profiled.stderr.splitlines()[1:-1]]
    assert stages[:5] == ["start-up", "open", "charts", "gitops", "render"]
    assert stages[-3:] == ["judge", "document", "write"]
    assert profiled.stderr.splitlines()[-1].split()[1] == "total"
    timings = json.loads((tmp_path / "p.json").read_text())["timings"]
    assert [t["stage"] for t in timings] == stages[:-1]  # written after it says the others
    startup = timings[0]
    assert startup["cpu_seconds"] > 0 and startup["wall_seconds"] > 0
    plain = run(*common, "--output", str(tmp_path / "plain.json"))
    assert plain.returncode == 0 and plain.stderr == ""
    assert "timings" not in json.loads((tmp_path / "plain.json").read_text())
