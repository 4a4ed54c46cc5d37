"""kustomize's own errors, as the review shows them: the cause first, the nesting after it. Real kustomize."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from aftershock.render.kustomize import TIMED_OUT, PyKustomizeBuilder, available, cause_first

pytestmark = pytest.mark.skipif(available() is not None, reason=str(available()))

NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata: {name: podinfo}\n"


def test_a_nested_build_failure_says_its_cause_first(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "ns.yaml").write_text(NAMESPACE)
        (tmp_path / folder / "kustomization.yaml").write_text("resources: [ns.yaml]\n")
    (tmp_path / "kustomization.yaml").write_text("resources: [a, b]\n")
    builder = PyKustomizeBuilder()
    try:
        (outcome,) = builder.build_many([str(tmp_path)])
    finally:
        builder.close()
    assert outcome.error is not None
    assert outcome.error.startswith("may not add resource with an already registered id: Namespace")
    assert "(kustomize: " in outcome.error and "accumulating resources" in outcome.error


def test_an_error_without_nesting_is_left_as_it_is():
    assert cause_first("missing kustomization file") == "missing kustomization file"


def test_kustomize_warnings_are_the_builds_not_the_reviewers_stderr(tmp_path, capfd):
    (tmp_path / "ns.yaml").write_text(NAMESPACE)
    (tmp_path / "patch.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: podinfo, labels: {a: b}}\n"
    )
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [ns.yaml]\npatchesStrategicMerge: [patch.yaml]\n"
    )
    builder = PyKustomizeBuilder()
    try:
        (outcome,) = builder.build_many([str(tmp_path)])
    finally:
        builder.close()
    assert outcome.error is None and "a: b" in (outcome.yaml or "")
    assert len(outcome.warnings) == 1
    assert outcome.warnings[0].startswith("'patchesStrategicMerge' is deprecated")
    assert "patchesStrategicMerge" not in capfd.readouterr().err


def slow_the_first_time(folder: str) -> tuple[str | None, str | None, tuple[str, ...]]:
    """Run in the builder's worker: hangs on a folder's first build (a busy machine), then builds."""
    marker = Path(folder) / "built-once"
    if not marker.exists():
        marker.write_text("started\n")
        time.sleep(120)
    return f"kind: ConfigMap\nmetadata: {{name: {Path(folder).name}}}\n", None, ()


def always_slow(folder: str) -> tuple[str | None, str | None, tuple[str, ...]]:
    time.sleep(120)
    return None, None, ()


def test_a_build_over_its_time_is_built_again_in_a_fresh_worker(tmp_path):
    """The hung worker is killed (the next build does not wait behind it) and the build runs again."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (second / "built-once").write_text("already\n")  # builds at once
    # the retry spawns a fresh worker inside this time: room for a loaded machine
    builder = PyKustomizeBuilder(timeout_seconds=15.0, build=slow_the_first_time)
    try:
        outcomes = builder.build_many([str(first), str(second)])
    finally:
        builder.close()
    assert [o.error for o in outcomes] == [None, None]
    assert "name: first" in (outcomes[0].yaml or "") and builder.retried == 1


def test_a_build_over_its_time_twice_says_so_apart_from_kustomize_errors(tmp_path):
    builder = PyKustomizeBuilder(timeout_seconds=3.0, build=always_slow)
    try:
        (outcome,) = builder.build_many([str(tmp_path)])
    finally:
        builder.close()
    assert outcome.timed_out and builder.retried == 1
    assert outcome.error == (
        f"{TIMED_OUT} 3 s, twice (the second time in a fresh worker); the machine may be busy: "
        "review again"
    )
