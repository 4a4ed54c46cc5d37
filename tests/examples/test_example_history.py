"""Tests of scripts/build_example.py and the example platform history it builds (real git, real Helm)."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = PROJECT_ROOT / "scripts" / "build_example.py"
HISTORY_FILE = PROJECT_ROOT / "examples" / "platform" / "history.yaml"
HISTORY = yaml.safe_load(HISTORY_FILE.read_text(encoding="utf-8"))
STATE_TAGS = [f"state-{entry['directory']}" for entry in HISTORY["states"]]

# Application charts of the example; the library chart does not render by itself.
APPLICATION_CHARTS = {
    "orders": "charts/apps/orders",
    "payments": "charts/apps/payments",
    "node-metrics": "charts/wrappers/node-metrics",
    "platform-releases": "charts/releases/platform-releases",
}

# Which charts' default rendering each commit changes (the intent of the history, see its README).
EXPECTED_RENDER_CHANGES = {
    "state-01-orders-replicas": {"orders"},
    "state-02-lib-part-of-label": {"orders", "payments"},
    "state-03-lib-security-context-helpers": set(),
    "state-04-orders-release-tracing": {"platform-releases"},
    "state-05-node-metrics-process-collector": {"node-metrics"},
    "state-06-payments-webhook-key": {"payments"},
    "state-07-docs-release-overrides": set(),
}

# Renders in a fresh interpreter: helm_python must not be loaded in a process that may fork.
RENDER_PROGRAM = """
import json, sys
import helm_python
helm_python.disable_logging()
results = {}
for key, chart_dir, release in json.load(sys.stdin):
    try:
        chart = helm_python.Chart.load(chart_dir)
        results[key] = {"manifests": chart.render({}, name=release, namespace=release)}
    except Exception as error:
        results[key] = {"error": f"{type(error).__name__}: {error}"}
json.dump(results, sys.stdout)
"""

# git without the user's configuration or an inherited GIT_DIR, as the build script runs it
GIT_ENV = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
GIT_ENV.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")


def build(dest: Path) -> list[str]:
    result = subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), str(dest)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=GIT_ENV, check=True
    )
    return result.stdout.strip()


def render_all(requests: list[tuple[str, str, str]]) -> dict[str, dict]:
    result = subprocess.run(
        [sys.executable, "-c", RENDER_PROGRAM],
        input=json.dumps(requests),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("example") / "platform"
    build(repo)
    return repo


def test_build_is_deterministic_and_rebuilds_over_itself(tmp_path: Path) -> None:
    first = build(tmp_path / "a")
    second = build(tmp_path / "b")
    rebuilt = build(tmp_path / "a")
    assert first == second == rebuilt
    assert len(first) == len(STATE_TAGS)
    assert git(tmp_path / "a", "show-ref") == git(tmp_path / "b", "show-ref")


def test_tags_and_linear_history(built: Path) -> None:
    tags = set(git(built, "tag", "--list").split())
    assert tags == {"demo-base", "demo-head", *STATE_TAGS}
    assert git(built, "rev-list", "--count", "demo-head") == str(len(STATE_TAGS)) == "8"
    assert git(built, "rev-list", "--merges", "demo-head") == ""
    assert git(built, "rev-parse", "demo-base") == git(built, "rev-parse", STATE_TAGS[0])
    assert git(built, "rev-parse", "demo-base") == git(
        built, "rev-list", "--max-parents=0", "demo-head"
    )
    head = git(built, "rev-parse", "demo-head")
    assert head == git(built, "rev-parse", STATE_TAGS[-1]) == git(built, "rev-parse", "main")
    assert git(built, "status", "--porcelain") == ""


def test_commit_messages_are_conventional_and_signed_off(built: Path) -> None:
    fields = "%s%x00%an <%ae>%x00%(trailers:key=Signed-off-by,valueonly)%x1e"
    log = git(built, "log", "--reverse", f"--format={fields}")
    commits = [entry.strip("\n").split("\x00") for entry in log.split("\x1e") if entry.strip()]
    assert len(commits) == len(STATE_TAGS)
    for title, author, signed_off_by in commits:
        assert re.match(r"^[a-z]+(\([a-z0-9-]+\))?: \S", title), title
        assert signed_off_by.strip() == author, title


def test_app_charts_link_the_library_chart(built: Path) -> None:
    for app in ("orders", "payments"):
        entry = git(built, "ls-tree", "demo-head", f"charts/apps/{app}/charts/platform-lib")
        assert entry.startswith("120000 blob "), entry
        assert (
            built / "charts" / "apps" / app / "charts" / "platform-lib" / "Chart.yaml"
        ).is_file()
        chart = yaml.safe_load((built / "charts" / "apps" / app / "Chart.yaml").read_text())
        assert chart["dependencies"][0]["repository"] == "file://../../library/platform-lib"


def test_application_chart_list_is_complete(built: Path) -> None:
    top_level_charts = {
        str(Path(path).parent)
        for path in git(built, "ls-tree", "-r", "--name-only", "demo-head").splitlines()
        if path.endswith("/Chart.yaml") and "/charts/" not in path  # skip vendored subcharts
    }
    applications = {
        path
        for path in top_level_charts
        if yaml.safe_load((built / path / "Chart.yaml").read_text()).get("type", "application")
        == "application"
    }
    assert applications == set(APPLICATION_CHARTS.values())
    assert top_level_charts - applications == {"charts/library/platform-lib"}


def test_every_application_chart_renders_at_every_state_as_intended(
    built: Path, tmp_path: Path
) -> None:
    requests = []
    for tag in STATE_TAGS:
        git(built, "worktree", "add", "--detach", "--quiet", str(tmp_path / tag), tag)
        requests += [
            (f"{tag}/{chart}", str(tmp_path / tag / path), chart)
            for chart, path in APPLICATION_CHARTS.items()
        ]
    outcomes = render_all(requests)
    failures = {key: outcome["error"] for key, outcome in outcomes.items() if "error" in outcome}
    assert failures == {}
    for previous, tag in itertools.pairwise(STATE_TAGS):
        changed = {
            chart
            for chart in APPLICATION_CHARTS
            if outcomes[f"{tag}/{chart}"]["manifests"]
            != outcomes[f"{previous}/{chart}"]["manifests"]
        }
        assert changed == EXPECTED_RENDER_CHANGES[tag], tag
    head = outcomes[f"{STATE_TAGS[-1]}/orders"]["manifests"]
    assert "replicas: 3" in head["orders/templates/deployment.yaml"]
    assert "app.kubernetes.io/part-of: platform" in head["orders/templates/service.yaml"]


def test_refuses_to_delete_a_folder_it_did_not_build(tmp_path: Path) -> None:
    keep = tmp_path / "notes.txt"
    keep.write_text("not an example build\n")
    result = subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), str(tmp_path)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "not empty and not a previous example build" in result.stderr
    assert "Traceback" not in result.stderr
    assert keep.read_text() == "not an example build\n"
