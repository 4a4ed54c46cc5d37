"""scripts/install-browser.sh: a failed Chromium install names apt's own reason."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install-browser.sh"
LOCKED = "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt)"


def run(tmp_path: Path, apt: str) -> str:
    """The script with an apt-get on PATH that behaves as `apt` says, and no Chromium."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "apt-get"
    fake.write_text(f"#!/bin/sh\n{apt}\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CHROMIUM": "/nonexistent"}
    done = subprocess.run([str(SCRIPT)], capture_output=True, text=True, env=env, check=True)
    return done.stdout


@pytest.mark.skipif(os.getuid() != 0, reason="the script installs only as root")
def test_a_dpkg_lock_is_named_as_the_cause(tmp_path):
    out = run(tmp_path, f'echo "{LOCKED}" >&2; exit 100')
    assert f"chromium could not be installed: {LOCKED}; the HTML explorer test will skip" in out


@pytest.mark.skipif(os.getuid() != 0, reason="the script installs only as root")
def test_an_install_that_works_says_nothing_more(tmp_path):
    assert run(tmp_path, "exit 0") == "installing chromium for the HTML explorer test\n"


def test_without_root_or_apt_it_says_why_the_test_skips(tmp_path):
    env = {**os.environ, "PATH": "/nonexistent", "CHROMIUM": "/nonexistent"}
    done = subprocess.run(
        ["/bin/bash", str(SCRIPT)], capture_output=True, text=True, env=env, check=True
    )
    assert "cannot be installed here (it needs root and apt-get)" in done.stdout
