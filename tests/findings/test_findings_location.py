"""Where findings point: added lines of the change (real git hunks), the template otherwise, and the impact path."""

from __future__ import annotations

from aftershock.config.settings import AftershockConfig
from aftershock.findings.model import Delta, Location
from aftershock.rules.engine import evaluate
from rulecases import FIXTURES, build_review, read_manifests

FOLDER = FIXTURES / "pss-host-namespaces" / "introduced-hostpid"
BASE_VALUES = "agent:\n  image: agent:1.0\n  collectors:\n    cpu: true\n"
HEAD_VALUES = "agent:\n  image: agent:1.0\n  collectors:\n    cpu: true\n    process: true\n    # the process collector runs with hostPID\n"


def review(tmp_path, base_values, head_values, base_yaml="base.yaml"):
    return build_review(
        read_manifests(FOLDER / base_yaml),
        read_manifests(FOLDER / "head.yaml"),
        tmp_path=tmp_path,
        base_files={"charts/app/values.yaml": base_values, "README.md": "x\n"},
        head_files={"charts/app/values.yaml": head_values, "README.md": "y\n"},
    )


def host_pid(findings):
    [found] = [f for f in findings if f.rule_id == "pss-host-namespaces"]
    return found


def test_points_at_the_added_line_that_names_the_field(tmp_path):
    found = host_pid(evaluate(review(tmp_path, BASE_VALUES, HEAD_VALUES), AftershockConfig()))
    assert found.location == Location("charts/app/values.yaml", 6)


def test_falls_back_to_the_first_added_line_of_the_chart(tmp_path):
    head = BASE_VALUES + "    process: true\n"
    found = host_pid(evaluate(review(tmp_path, BASE_VALUES, head), AftershockConfig()))
    assert found.location == Location("charts/app/values.yaml", 5)


def test_pre_existing_points_at_the_template_without_a_line(tmp_path):
    found = host_pid(
        evaluate(
            review(tmp_path, BASE_VALUES, HEAD_VALUES, base_yaml="head.yaml"), AftershockConfig()
        )
    )
    assert found.delta is Delta.PRE_EXISTING
    assert found.location == Location("charts/app/templates/daemonset.yaml")


def test_impact_path_runs_from_the_changed_file_to_the_field(tmp_path):
    found = host_pid(evaluate(review(tmp_path, BASE_VALUES, HEAD_VALUES), AftershockConfig()))
    assert [(s.kind, s.id) for s in found.path] == [
        ("file", "charts/app/values.yaml"),
        ("chart", "charts/app"),
        ("object", "charts/app::apps/DaemonSet/default/agent"),
        ("field", "spec.template.spec.hostPID"),
    ]
