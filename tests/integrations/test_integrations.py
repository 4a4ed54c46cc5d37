"""Where users run aftershock besides the Action: the pre-commit hook (with the real `pre-commit`,
`try-repo`, in a temporary repository), the Helm plugin manifest (checked against Helm's plugin
metadata and its command line run), and the container image (only where a Docker daemon answers)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from charts import HOST_PID_DAEMONSET, app_chart
from conftest import PROJECT
from gitrepo import commit, git, make_repo

PRE_COMMIT = "pre-commit==4.7.0"
# Helm 3's plugin.Metadata, decoded strictly (an unknown key makes Helm load no plugin at all);
# Helm 4 reads this legacy format too, but refuses `command` and `platformCommand` together.
HELM3_PLUGIN_FIELDS = {
    "name",
    "version",
    "usage",
    "description",
    "ignoreFlags",
    "platformCommand",
    "command",
    "platformHooks",
    "hooks",
    "downloaders",
    "useTunnel",
}
HELM_PLUGIN_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


@pytest.fixture(scope="module")
def pre_commit(tmp_path_factory) -> Path:
    """The real pre-commit: from the shared virtualenv, else installed into a temporary one."""
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    if found:
        return Path(found)
    venv = tmp_path_factory.mktemp("pre-commit-venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    done = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", PRE_COMMIT],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        pytest.skip(
            f"{PRE_COMMIT} could not be installed: {(done.stderr.strip().splitlines() or ['?'])[-1]}"
        )
    return venv / "bin" / "pre-commit"


def _hook_env(tmp: Path) -> dict[str, str]:
    # language: system runs the aftershock on PATH: this project's, from the shared virtualenv
    return {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "PYTHONPATH": str(PROJECT / "src"),
        "PRE_COMMIT_HOME": str(tmp / "pre-commit-home"),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def test_pre_commit_hook_reviews_the_index_and_fails_on_risk(tmp_path, pre_commit):
    repo = make_repo(tmp_path)
    head = commit(repo, app_chart("charts/app", "app"), "base")
    (repo / "charts/app/templates/agent.yaml").write_text(HOST_PID_DAEMONSET)
    git(repo, "add", "charts/app/templates/agent.yaml")
    index_before = git(repo, "write-tree")
    run = [str(pre_commit), "try-repo", str(PROJECT), "aftershock", "--verbose"]
    risky = subprocess.run(
        run, cwd=repo, env=_hook_env(tmp_path), capture_output=True, text=True, timeout=600
    )
    assert risky.returncode != 0, risky.stdout + risky.stderr
    assert "reaches --fail-on-risk high" in risky.stdout + risky.stderr
    assert "Merge risk:" in risky.stdout and "Chart tests" not in risky.stdout  # the quick summary
    assert (
        git(repo, "rev-parse", "HEAD") == head and git(repo, "write-tree") == index_before
    )  # nothing committed
    assert git(repo, "for-each-ref", "--format=%(refname)") == "refs/heads/main"

    git(repo, "reset", "-q", "charts/app/templates/agent.yaml")
    (repo / "charts/app/README.md").write_text("how to run it\n")
    git(repo, "add", "charts/app/README.md")
    calm = subprocess.run(
        run, cwd=repo, env=_hook_env(tmp_path), capture_output=True, text=True, timeout=600
    )
    assert calm.returncode == 0, calm.stdout + calm.stderr


def test_helm_plugin_manifest_is_valid_for_helm_and_its_command_runs(tmp_path):
    manifest = yaml.safe_load((PROJECT / "plugin.yaml").read_text())
    assert set(manifest) <= HELM3_PLUGIN_FIELDS, set(manifest) - HELM3_PLUGIN_FIELDS
    assert HELM_PLUGIN_NAME.fullmatch(manifest["name"]) and manifest["name"] == "aftershock"
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    assert "command" not in manifest  # deprecated: Helm 4 wants platformCommand
    (platform,) = manifest["platformCommand"]  # no os/arch: every platform
    assert set(platform) == {"command"}
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("charts/app", "app"), "base")
    commit(
        repo, {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"}, "scale"
    )
    # as Helm runs it: HELM_PLUGIN_DIR set, the command's variables expanded, the arguments after the name
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "HELM_PLUGIN_DIR": str(PROJECT),
        "PYTHON": sys.executable,
    }
    command = os.path.expandvars(
        platform["command"].replace("$HELM_PLUGIN_DIR", env["HELM_PLUGIN_DIR"])
    )
    done = subprocess.run(
        [
            command,
            "review",
            "--repo",
            str(repo),
            "--base",
            base,
            "--no-state",
            "--no-tests",
            "--format",
            "json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["base"]["sha"] == base
    bare = tmp_path / "bare"  # a Python without aftershock's dependencies, and none on PATH
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    missing = subprocess.run(
        [command, "review", "--repo", str(repo)],
        env={**env, "PYTHON": str(bare / "bin" / "python")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    (line,) = missing.stderr.splitlines()
    assert "aftershock is not installed; run `pipx install " in line


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0


@pytest.mark.skipif(
    not _docker_answers(),
    reason="no Docker daemon answers here (docker info fails or docker is absent)",
)
def test_container_image_reviews_a_mounted_repository(tmp_path):
    subprocess.run(
        ["docker", "build", "-t", "aftershock:test", str(PROJECT)], check=True, timeout=1800
    )
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("charts/app", "app"), "base")
    commit(
        repo, {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"}, "scale"
    )
    done = subprocess.run(
        [
            "docker",
            "run",
            "--rm",
            "-v",
            f"{repo}:/repo:ro",
            "aftershock:test",
            "review",
            "--repo",
            "/repo",
            "--base",
            base,
            "--no-state",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["base"]["sha"] == base
    user = subprocess.run(
        ["docker", "run", "--rm", "--entrypoint", "id", "aftershock:test", "-u"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert user.stdout.strip() != "0"
    compilers = subprocess.run(
        [
            "docker",
            "run",
            "--rm",
            "--entrypoint",
            "sh",
            "aftershock:test",
            "-c",
            "command -v gcc cc || true",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert compilers.stdout.strip() == ""


def test_dockerfile_pins_its_base_and_runs_unprivileged():
    text = (PROJECT / "Dockerfile").read_text()
    assert re.search(r"python:3\.\d+-slim[\w-]*@sha256:[0-9a-f]{64}", text)
    assert re.search(r"^USER (?!root)\w+", text, re.M) and 'ENTRYPOINT ["aftershock"]' in text
    assert "-c constraints.txt" in text
