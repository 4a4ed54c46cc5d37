"""shell-values-injection: the script finder of rules/support/shell.py, and the grade when a release
sets the chart's values (a tenant then writes the script)."""

from __future__ import annotations

from dataclasses import replace

from aftershock.config.settings import AftershockConfig
from aftershock.findings.model import Severity
from aftershock.rules.engine import evaluate
from aftershock.rules.model import SourceTexts
from aftershock.rules.support.shell import splices
from rulecases import build_review

TEMPLATE = """\
containers:
  - name: a
    command: ["/bin/bash"]
    args: ["-c", "run {{ .Values.flags }}"]
  - name: b
    command:
      - sh
      - "-c"
      - echo {{ .Values.greeting }}
  - name: c
    command: [sh, -c]
    args:
      - |
        cat <<\\EOF > /etc/literal
        {{ toYaml .Values.literal }}
        EOF
        cat <<-CONF > /etc/expanded
        {{ tpl .Values.expanded $ }}
        CONF
        echo {{ .Values.count | int }} {{ .Values.name | b64enc }}
"""


def test_finds_flow_block_and_heredoc_scripts_and_skips_quoted_heredocs_and_safe_pipelines():
    found = [(s.line, s.values_path, s.function, s.context) for s in splices(TEMPLATE)]
    assert found == [
        (4, "flags", "value", "sh -c"),
        (9, "greeting", "value", "sh -c"),
        (18, "expanded", "tpl", "heredoc"),
    ]


def test_outside_a_script_nothing_is_a_splice():
    text = (
        'env:\n  - name: X\n    value: {{ .Values.x | quote }}\nargs: ["--x", "{{ .Values.x }}"]\n'
    )
    assert list(splices(text)) == []


def test_a_release_setting_the_charts_values_makes_it_high(tmp_path):
    files = {"charts/app/values.yaml": "flags: ''\n", "charts/app/templates/job.yaml": TEMPLATE}
    review = build_review((), (), tmp_path=tmp_path, base_files={}, head_files=files)
    sources = SourceTexts(base={}, head=files)
    alone = [
        f
        for f in evaluate(review, AftershockConfig(), sources=sources)
        if f.rule_id == "shell-values-injection"
    ]
    assert sorted(f.severity.value for f in alone) == ["low", "low", "medium"]
    released = replace(
        review,
        chart_reviews=tuple(
            replace(c, release="helm.toolkit.fluxcd.io/HelmRelease/tenant-a/app")
            for c in review.chart_reviews
        ),
    )
    graded = [
        f
        for f in evaluate(released, AftershockConfig(), sources=sources)
        if f.rule_id == "shell-values-injection"
    ]
    assert len(graded) == 3 and {f.severity for f in graded} == {Severity.HIGH}
    assert all("that a release sets" in f.message for f in graded)


def test_a_script_in_args_after_a_flow_command_and_an_include_of_values_are_splices():
    text = (
        "command: [/bin/sh, -c]\n"
        "args:\n"
        "  - |\n"
        "    cat <<EOF > /shared/backend.conf\n"
        '    {{- include "backendConf" .Values.global.backend | indent 4 }}\n'
        "    EOF\n"
    )
    assert [(s.line, s.values_path, s.function, s.context) for s in splices(text)] == [
        (5, "global.backend", "include", "heredoc")
    ]
