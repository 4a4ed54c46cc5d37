"""Every changed template line is run by some render of the review, or the review says it was not."""

from __future__ import annotations

from aftershock.model.change import Side
from aftershock.pipeline import ReviewRequest, run_review
from charts import chart_yaml, library_and_app
from gitrepo import commit, make_repo

# `extra` is a map: only a scenario that sets it to a map enters the block.
LABELS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels:
    app: c
    {{- with .Values.extra }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
data:
  level: info
"""


def review(repo, base, renderer, **options):
    return run_review(ReviewRequest(repo=repo, base=base, run_tests=False, **options), renderer)


def _chart() -> dict[str, str]:
    return {
        "c/Chart.yaml": chart_yaml("c"),
        "c/values.yaml": "extra: {}\n",
        "c/templates/cm.yaml": LABELS,
    }


def test_a_logic_only_line_no_render_runs_is_not_exercised(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _chart(), "feat: c")
    # nothing but template logic changes, under a block the defaults leave off
    commit(repo, {"c/templates/cm.yaml": LABELS.replace("nindent 4 }}", "nindent 4 -}}")}, "fix")
    result = review(repo, base, renderer, max_scenarios=1)
    assert [g.part for g in result.not_reviewed] == [
        "template c/templates/cm.yaml lines 8",
        "template c/templates/cm.yaml lines 8",
    ]
    assert "executed" in result.not_reviewed[0].reason
    assert not result.complete
    lines = {(c.side, c.lines): (c.evidence, c.scenarios) for c in result.changed_lines}
    assert lines == {(Side.HEAD, "8"): ("none", ()), (Side.BASE, "8"): ("none", ())}


def test_the_scenario_that_opens_the_block_runs_the_line_and_is_named(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _chart(), "feat: c")
    commit(repo, {"c/templates/cm.yaml": LABELS.replace("nindent 4 }}", "nindent 4 -}}")}, "fix")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (head,) = [c for c in result.changed_lines if c.side is Side.HEAD]
    assert head.evidence == "traced" and head.lines == "8"
    assert head.scenarios and all(s.startswith("guard:extra=") for s in head.scenarios)


LIBRARY = """\
{{- define "lib.labels" -}}
team: platform
{{- end }}
{{- define "lib.unused" -}}
never: called
{{- end }}
"""

CONSUMER = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  labels:
    {{- include "lib.labels" . | nindent 4 }}
"""


def _library_repo(tmp_path):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        library_and_app(
            {"templates/_labels.tpl": LIBRARY},
            {"values.yaml": "{}\n", "templates/cm.yaml": CONSUMER},
        ),
        "feat: app",
    )
    return repo, base


def test_a_library_line_is_traced_through_the_chart_that_includes_it(tmp_path, renderer):
    repo, base = _library_repo(tmp_path)
    commit(
        repo,
        {"lib/templates/_labels.tpl": LIBRARY.replace("{{- end }}\n", "{{- end -}}\n", 1)},
        "fix: trim",
    )
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    head = [c for c in result.changed_lines if c.side is Side.HEAD]
    assert [(c.path, c.lines, c.evidence, c.scenarios) for c in head] == [
        ("lib/templates/_labels.tpl", "3", "traced", ("default",))
    ]


def test_a_changed_define_nothing_includes_is_not_exercised(tmp_path, renderer):
    repo, base = _library_repo(tmp_path)
    commit(
        repo,
        {"lib/templates/_labels.tpl": LIBRARY.replace("never: called", "never: {{ .x }}")},
        "feat: unused",
    )
    result = review(repo, base, renderer)
    assert [g.part for g in result.not_reviewed] == [
        "template lib/templates/_labels.tpl lines 5",
        "template lib/templates/_labels.tpl lines 5",
    ]


def test_a_fail_line_is_exercised_by_the_render_that_fails_with_its_message(tmp_path, renderer):
    repo = make_repo(tmp_path)
    chart = {**_chart(), "c/values.yaml": "extra: {}\nlegacy: false\n"}
    base = commit(repo, chart, "feat: c")
    guarded = LABELS + '{{- if .Values.legacy }}\n{{- fail "legacy mode is gone" }}\n{{- end }}\n'
    commit(repo, {"c/templates/cm.yaml": guarded}, "feat: drop legacy")
    result = review(repo, base, renderer)
    lines = [(c.lines, c.evidence, c.scenarios) for c in result.changed_lines]
    # the `if` that opens to the fail and the fail itself, by the scenario Helm rejected with it
    assert ("12-13", "text", ("guards:edited", "toggle:legacy=true")) in lines
