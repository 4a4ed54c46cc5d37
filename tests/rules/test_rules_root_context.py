"""root-context-rendered against a real render: a line edited under a guard on a key the chart does
not document runs in that guard's scenario and writes Helm's whole context (sapcc's cc-gardener,
9cbad02d51, fixed by hand in 20d6d7eb69)."""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, review_change
from charts import chart_yaml
from gitrepo import commit, make_repo

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: web}
data:
  mode: fast
  {{- if dig "limits" "max" nil .Values.web }}
  max: {{ %s | quote }}
  {{- end }}
"""


def test_a_dot_written_inside_if_shows_the_context_in_the_guard_scenario(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {
        "web/Chart.yaml": chart_yaml("web"),
        "web/values.yaml": "web: {}\n",
        "web/templates/cm.yaml": TEMPLATE % "toJson .Values.web.limits.max",
    }
    base = commit(repo, files, "feat: web")
    commit(repo, {"web/templates/cm.yaml": TEMPLATE % "toJson ."}, "refactor: shorter")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    review = result.review
    assert review.complete, [n.part for n in review.not_reviewed]
    (found,) = [f for f in result.judgement.findings if f.rule_id == "root-context-rendered"]
    assert found.actionable and "scenario guard:web.limits.max=" in found.message
    assert found.location is not None and found.location.line == 7
