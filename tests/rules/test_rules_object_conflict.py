"""object-conflict against real renders of two charts no release installs: named after the release
name the review gives both, their objects are apart once installed; a fixed cluster-wide name is not."""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, review_change
from charts import chart_yaml
from gitrepo import commit, make_repo

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: "owner-of-{{ .Release.Name }}"}
data: {team: "{{ .Values.team }}"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: shared-reader}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
"""


def test_two_charts_collide_on_a_fixed_name_not_on_one_from_the_release_name(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {}
    for name in ("alpha", "beta"):
        files[f"{name}/Chart.yaml"] = chart_yaml(name)
        files[f"{name}/values.yaml"] = f"team: {name}\n"
        files[f"{name}/templates/objects.yaml"] = TEMPLATE
    base = commit(repo, {"README.md": "fleet\n"}, "init")
    commit(repo, files, "feat: two charts")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    conflicts = [f for f in result.judgement.findings if f.rule_id == "object-conflict"]
    assert [f.subject.display for f in conflicts] == [
        "ClusterRole.rbac.authorization.k8s.io shared-reader"
    ]
    assert conflicts[0].actionable and "alpha, beta" in conflicts[0].message
