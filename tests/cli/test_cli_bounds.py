"""Bounds every read is held to, through the real CLI (issue 22): an alias bomb anywhere a pull request
can put one ends in *not reviewed* (or a failing test) within seconds and well under 1 GiB, and a file
over the size limit refuses only what needs it, never the whole review."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest
from test_review_cli import AFTERSHOCK

from aftershock.render.kustomize import available
from charts import app_chart
from gitrepo import commit, make_repo
from yamlbombs import bomb_manifest, bomb_values

PEAK_MIB = 1024
SECONDS = 120
SUITE = "suite: s\ntemplates: [templates/deployment.yaml]\ntests:\n  - it: renders\n    asserts:\n      - isKind: {of: Deployment}\n"
FLUX = """\
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  path: ./apps/web
  sourceRef: {kind: GitRepository, name: flux-system}
"""
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: '1'}\n"


def run_measured(*args: str) -> tuple[int, str, float]:
    """(exit status, stdout and stderr, peak RSS in MiB of the CLI and every process it waited for)."""
    out = os.pipe()
    process = subprocess.Popen(
        [*AFTERSHOCK, *args], stdout=out[1], stderr=out[1], env={**os.environ, "CI": "true"}
    )
    os.close(out[1])
    chunks: list[bytes] = []
    reader = threading.Thread(
        target=lambda: chunks.extend(iter(lambda: os.read(out[0], 65536), b""))
    )
    reader.start()
    killer = threading.Timer(SECONDS, process.kill)
    killer.start()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, with its resource usage
    killer.cancel()
    reader.join()
    os.close(out[0])
    return process.returncode, b"".join(chunks).decode("utf-8", "replace"), usage.ru_maxrss / 1024


def _base(tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path)
    files = {
        **app_chart("charts/web", "web"),
        "charts/web/tests/web_test.yaml": SUITE,
        "clusters/prod/apps.yaml": FLUX,
        "apps/web/cm.yaml": CONFIGMAP,
    }
    return repo, commit(repo, files, "feat: web")


BOMBS = {
    "manifest": {"apps/web/cm.yaml": bomb_manifest()},
    "values": {"charts/web/values.yaml": bomb_values("replicas: 3\nimage: nginx:1.27.0\n")},
    "suite": {"charts/web/tests/web_test.yaml": SUITE + bomb_values("")},
    "template": {"charts/web/templates/laughs.yaml": bomb_manifest()},
}


@pytest.mark.parametrize("case", sorted(BOMBS))
def test_an_alias_bomb_is_refused_in_seconds_and_under_a_gib(tmp_path, case):
    if case == "manifest" and available() is not None:
        pytest.skip(str(available()))
    repo, base = _base(tmp_path)
    commit(repo, BOMBS[case], "feat: laughs")
    code, output, peak_mib = run_measured(
        "review", "--repo", str(repo), "--base", base, "--no-state", "--format", "markdown"
    )
    print(f"{case}: peak RSS {peak_mib:.0f} MiB")
    assert code == (0 if case == "suite" else 3), output[-2000:]
    assert "Traceback" not in output
    assert "excessive aliasing" in output
    assert peak_mib <= PEAK_MIB


def test_a_file_over_the_size_limit_the_review_does_not_need_is_not_read(tmp_path):
    repo, base = _base(tmp_path)
    commit(
        repo,
        {"docs/diagram.png": b"\x89PNG" + b"\0" * 4096, "charts/web/values.yaml": "replicas: 5\n"},
        "docs: diagram",
    )
    code, output, _ = run_measured(
        "review", "--repo", str(repo), "--base", base, "--no-state", "--max-file-size", "2048"
    )
    assert code == 0, output[-2000:]
    assert "docs/diagram.png" not in output


@pytest.mark.parametrize(
    ("path", "part"),
    [("charts/web/files/big.bin", "chart charts/web"), ("charts/web/values.yaml", "values file")],
)
def test_a_file_over_the_size_limit_leaves_only_what_needs_it_not_reviewed(tmp_path, path, part):
    repo, base = _base(tmp_path)
    other = app_chart("charts/api", "api", replicas=3)
    big = "replicas: 4\n" + "".join(f"k{i}: {'x' * 60}\n" for i in range(60))
    commit(repo, {**other, path: big, "charts/api/values.yaml": "replicas: 7\n"}, "feat: big")
    code, output, _ = run_measured(
        "review", "--repo", str(repo), "--base", base, "--no-state", "--format", "json",
        "--max-file-size", "2048",
    )  # fmt: skip
    assert code == 3, output[-2000:]
    assert f"{path} at head" in output and "size limit" in output
    assert part in output
    assert '"charts/api"' in output and "Traceback" not in output
