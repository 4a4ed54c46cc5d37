"""A pre-existing concern of one template's object, installed by two releases, is listed once."""

from __future__ import annotations

from aftershock.config.settings import AftershockConfig
from aftershock.findings.model import Delta
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.rules.engine import evaluate
from charts import HOST_PID_DAEMONSET, chart_yaml
from gitrepo import commit, make_repo

RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: agent, namespace: NS}
spec:
  chart:
    spec:
      chart: ./apps/agent
      sourceRef: {kind: GitRepository, name: platform, namespace: flux-system}
  values:
    level: NS
"""

CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata: {name: agent-config}
data:
  level: {{ .Values.level | quote }}
  interval: {{ .Values.interval | quote }}
"""


def agent(interval: str) -> dict[str, str]:
    return {
        "apps/agent/Chart.yaml": chart_yaml("agent"),
        "apps/agent/values.yaml": f"level: info\ninterval: {interval}\n",
        "apps/agent/templates/daemonset.yaml": HOST_PID_DAEMONSET,
        "apps/agent/templates/configmap.yaml": CONFIGMAP,
        "clusters/prod/agent.yaml": RELEASE.replace("NS", "prod"),
        "clusters/staging/agent.yaml": RELEASE.replace("NS", "staging"),
    }


def test_a_pre_existing_concern_of_two_installs_of_one_template_is_listed_once(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, agent("30s"), "feat: agent")
    commit(repo, agent("10s"), "feat: scrape faster")
    review = run_review(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    installs = {r.release for r in review.chart_reviews if r.chart == "apps/agent"}
    assert len(installs) == 2  # each release renders the chart: the concern is seen twice
    findings = evaluate(review, AftershockConfig())
    host_pid = [f for f in findings if f.rule_id == "pss-host-namespaces"]
    assert [f.delta for f in host_pid] == [Delta.PRE_EXISTING]
