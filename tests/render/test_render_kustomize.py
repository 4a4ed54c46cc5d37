"""kustomize's own errors, as the review shows them: the cause first, the nesting after it. Real kustomize."""

from __future__ import annotations

import pytest

from aftershock.render.kustomize import PyKustomizeBuilder, available, cause_first

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
