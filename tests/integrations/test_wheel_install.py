"""A new user's install: a wheel built from this project, installed into a fresh virtualenv by the
Action's install step (`scripts/action.sh install`: the `server` extra and kustomize, with the pinned
constraints, from the pip cache; PyPI only when the cache lacks something), then `aftershock review`
in a clone of the traefik corpus with no configuration, and of a Flux tree whose Kustomization
builds a kustomize overlay. Skips, with pip's reason, when the wheel cannot be built or installed
here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

import pytest

from conftest import CORPUS, PROJECT
from gitrepo import commit, make_repo

TRAEFIK = CORPUS / "traefik-helm-chart.bundle"

pytestmark = [pytest.mark.install, pytest.mark.corpus]
CLEAN_ENV = {
    k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")
}  # only what was installed


def _pip(python, *args, timeout=900):
    return subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=CLEAN_ENV,
    )


def _last_line(done) -> str:
    return (done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or ["?"])[-1]


@pytest.mark.skipif(not TRAEFIK.is_file(), reason=f"the traefik corpus is absent ({TRAEFIK})")
def test_fresh_venv_from_the_wheel_reviews_traefik_without_config(tmp_path):
    wheels = tmp_path / "wheels"
    built = _pip(sys.executable, "wheel", str(PROJECT), "--no-deps", "-q", "-w", str(wheels))
    if built.returncode != 0:
        pytest.skip(f"the wheel cannot be built here: {_last_line(built)}")
    (wheel,) = wheels.glob("aftershock-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(next(n for n in archive.namelist() if n.endswith("/METADATA")))
    # where pykustomize's own metadata allows it, pip installs kustomize with the package
    assert 'Requires-Dist: pykustomize<0.2,>=0.1.4; python_version >= "3.14"' in metadata.decode()
    # the Action's own install step: a virtualenv, the package, the action's pinned constraints
    venv = tmp_path / "venv"
    env = {
        **CLEAN_ENV,
        "GITHUB_ACTION_PATH": str(PROJECT),
        "AFTERSHOCK_VENV": str(venv),
        "AFTERSHOCK_PACKAGE": str(wheel),
        "AFTERSHOCK_BASE_PYTHON": sys.executable,
    }
    installed = subprocess.run(
        [str(PROJECT / "scripts" / "action.sh"), "install"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if installed.returncode != 0:
        pytest.skip(f"the wheel cannot be installed offline here: {_last_line(installed)}")
    again = subprocess.run(
        [str(PROJECT / "scripts" / "action.sh"), "install"], env=env, capture_output=True, text=True
    )
    assert "using the cached virtualenv" in again.stdout  # what a restored cache gives the next run
    clone = tmp_path / "traefik"
    subprocess.run(["git", "clone", "-q", str(TRAEFIK), str(clone)], check=True)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert not (clone / ".aftershock.yaml").exists()
    done = subprocess.run(
        [
            str(venv / "bin" / "aftershock"),
            "review",
            "--base",
            f"{head}~1",
            "--no-state",
            "--no-tests",
            "--format",
            "json",
        ],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=900,
        env=CLEAN_ENV,
    )
    assert done.returncode in (0, 3), done.stderr  # 3: parts not reviewed, listed, report written
    doc = json.loads(done.stdout)
    assert doc["head"]["sha"] == head and doc["config"] == "defaults" and "findings" in doc
    _reviews_a_flux_tree_with_kustomize(venv, tmp_path)


FLUX_KUSTOMIZATION = (
    "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
    "metadata: {name: apps, namespace: flux-system}\n"
    "spec: {interval: 10m, path: ./apps/prod, prune: true, targetNamespace: web,\n"
    "  sourceRef: {kind: GitRepository, name: flux-system}}\n"
)


def _reviews_a_flux_tree_with_kustomize(venv, tmp_path):
    """The installed CLI builds the overlay with kustomize: its one changed field, nothing unreviewed."""
    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: N\n"
        "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
        "    spec: {containers: [{name: web, image: 'nginx:1.27.0'}]}\n"
    )
    repo = make_repo(tmp_path / "fleet")
    files = {
        "clusters/prod/apps.yaml": FLUX_KUSTOMIZATION,
        "apps/base/kustomization.yaml": "resources: [deployment.yaml]\n",
        "apps/base/deployment.yaml": deployment.replace("N", "2"),
        "apps/prod/kustomization.yaml": "resources: [../base]\n",
    }
    base = commit(repo, files, "feat: web")
    commit(repo, {"apps/base/deployment.yaml": deployment.replace("N", "3")}, "feat: three")
    done = subprocess.run(
        [
            str(venv / "bin" / "aftershock"),
            "review",
            "--base",
            base,
            "--no-state",
            "--format",
            "json",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=900,
        env=CLEAN_ENV,
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["not_reviewed"] == []
    fields = [(f["path"], f["before"], f["after"]) for o in doc["objects"] for f in o["fields"]]
    assert ("spec.replicas", 2, 3) in fields
