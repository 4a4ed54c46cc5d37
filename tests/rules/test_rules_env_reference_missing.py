"""env-reference-missing against real renders: a Secret the values name is the user's, made elsewhere."""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, review_change
from charts import app_chart
from gitrepo import commit, make_repo

ENV = """\
          env:
            {{- if .Values.existingSecret }}
            - name: TOKEN
              valueFrom: {secretKeyRef: {name: {{ .Values.existingSecret }}, key: token}}
            {{- end }}
            - name: LICENSE
              valueFrom: {secretKeyRef: {name: {{ .Release.Name }}-license, key: key}}
"""


def test_a_secret_the_values_name_is_not_missing_but_a_chart_made_name_is(tmp_path, renderer):
    files = app_chart("c", "c")
    files["c/values.yaml"] += 'existingSecret: ""\n'
    files["c/values-prod.yaml"] = "existingSecret: db-credentials\n"
    repo = make_repo(tmp_path)
    base = commit(repo, files, "feat: chart")
    deployment = files["c/templates/deployment.yaml"]
    env_at = deployment.index("          env:\n")
    head_template = deployment[:env_at] + ENV
    commit(repo, {"c/templates/deployment.yaml": head_template}, "feat: secrets")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    found = [f for f in result.judgement.findings if f.rule_id == "env-reference-missing"]
    assert found and all("release-license" in f.message for f in found)
    assert not [f for f in found if "db-credentials" in f.message]
