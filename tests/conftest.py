"""Shared fixtures: one embedded renderer per test process, and the bundled example history."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
# The shared corpus beside the project; AFTERSHOCK_CORPUS points elsewhere (a git worktree has no ../shared).
CORPUS = Path(os.environ.get("AFTERSHOCK_CORPUS") or PROJECT.parent / "shared" / "corpus")


@pytest.fixture(scope="session")
def renderer():
    from aftershock.render.helm.sdk import SdkRenderer

    with SdkRenderer(workers=2, timeout_seconds=60.0) as backend:
        yield backend


@pytest.fixture(scope="session")
def example_repo(tmp_path_factory) -> Path:
    """The bundled example platform repository as a real git history (tags demo-base..demo-head)."""
    dest = tmp_path_factory.mktemp("example") / "platform"
    subprocess.run(
        [sys.executable, str(PROJECT / "scripts" / "build_example.py"), str(dest)],
        check=True,
        capture_output=True,
    )
    return dest
