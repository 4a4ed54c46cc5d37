"""The consequence rules of issue 34 on real git repositories, rendered by real Helm: a config edit
that rolls nothing, a selector edited apart from the pod labels, a default changing shape, a role
granting more."""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, review_change
from charts import chart_yaml
from gitrepo import commit, make_repo

CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata: {name: web-config}
data:
  LOG_LEVEL: {{ .Values.logLevel | quote }}
"""

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: {{ .Values.podLabel }}}
    spec:
      containers:
        - name: app
          image: registry.example.com/web:1.2.3
          envFrom:
            - configMapRef: {name: web-config}
"""

PDB = """apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web}
"""

ROLE = """apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: web}
rules:
  - apiGroups: [""]
    resources: [configmaps]
    verbs: {{ toJson .Values.verbs }}
"""


def chart(values: str) -> dict[str, str]:
    return {
        "web/Chart.yaml": chart_yaml("web"),
        "web/values.yaml": values,
        "web/templates/configmap.yaml": CONFIGMAP,
        "web/templates/deployment.yaml": DEPLOYMENT,
        "web/templates/pdb.yaml": PDB,
        "web/templates/role.yaml": ROLE,
    }


def rules_of(tmp_path, renderer, base_values: str, head_values: str) -> dict[str, list[str]]:
    repo = make_repo(tmp_path)
    base = commit(repo, chart(base_values), "feat: web")
    commit(repo, chart(head_values), "change web")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    found: dict[str, list[str]] = {}
    for finding in result.judgement.findings:  # the rules as the review runs them, sources read
        found.setdefault(finding.rule_id, []).append(finding.message)
    return found


BASE = "logLevel: info\npodLabel: web\nverbs: [get]\npersistence: true\n"


def test_a_config_edit_alone_rolls_nothing(tmp_path, renderer):
    found = rules_of(tmp_path, renderer, BASE, BASE.replace("info", "debug"))
    (message,) = found["config-change-not-rolled"]
    assert "reads ConfigMap web-config" in message and "no new pod starts" in message
    assert set(found) & {"selector-retargeted", "rbac-role-widened"} == set()


def test_pod_labels_renamed_under_a_budget_that_kept_its_selector(tmp_path, renderer):
    found = rules_of(tmp_path, renderer, BASE, BASE.replace("podLabel: web", "podLabel: api"))
    (message,) = found["selector-retargeted"]
    assert message.startswith("PodDisruptionBudget.policy default/web no longer selects")
    assert "config-change-not-rolled" not in found  # the pod template changed: it rolls


def test_a_default_changing_shape_and_a_role_granting_more(tmp_path, renderer):
    head = BASE.replace("persistence: true", "persistence: {enabled: true}").replace(
        "[get]", "[get, update]"
    )
    found = rules_of(tmp_path, renderer, BASE, head)
    assert found["values-key-type-changed"] == [
        "values key persistence of chart web changes from a scalar to a map: a user's values that "
        "set it as a scalar now replace the new default whole or fail the render where a template "
        "reads it as a map"
    ]
    (widened,) = found["rbac-role-widened"]
    assert "grants more at head than at base: update configmaps" in widened


RULES_TEMPLATE = """apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: alerts}
spec:
  groups:
  - name: app.rules
    rules:
    - alert: ApiDown
      expr: up{job="api"} == 0
%s    - alert: LogRouterDown
      expr: up{job="log-router"} == 0
    - alert: LogRouterBacklog
      expr: log_router_backlog > 100
%s"""


def _alerts_gated(tmp_path, renderer, opening: str):
    """Alerts gated behind logRouter.enabled at head from `opening` on; the toggle scenario
    logRouter.enabled=false loses them."""
    repo = make_repo(tmp_path)
    files = {
        "app/Chart.yaml": chart_yaml("app"),
        "app/values.yaml": "logRouter:\n  enabled: true\n",
        "app/templates/alerts.yaml": RULES_TEMPLATE % ("", ""),
    }
    base = commit(repo, files, "feat: alerts")
    gate, end = "    {{- if .Values.logRouter.enabled }}\n", "    {{- end }}\n"
    gated = RULES_TEMPLATE % (gate, end) if opening == "log" else RULES_TEMPLATE % ("", "")
    if opening == "api":  # the gate wraps the API's alert too, by mistake
        gated = gated.replace("    - alert: ApiDown", gate + "    - alert: ApiDown").replace(
            "      expr: log_router_backlog > 100\n", "      expr: log_router_backlog > 100\n" + end
        )
    head = commit(repo, {"app/templates/alerts.yaml": gated}, "fix: gate alerts")
    result = review_change(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False), renderer
    )
    return [f for f in result.judgement.findings if f.rule_id == "resource-deleted"]


def test_a_feature_switched_off_losing_its_own_alerts_is_what_the_switch_asks(tmp_path, renderer):
    """sapcc's hermes gated its log-router alerts behind logRouter.enabled: in the scenario that
    switches it off they are gone, as intended; nothing runs for them to fire on."""
    (finding,) = _alerts_gated(tmp_path, renderer, "log")
    assert finding.severity.value == "info", finding.message
    assert "(scenario toggle:logRouter.enabled=false)" in finding.message
    assert (
        "the feature the scenario switches off: LogRouterBacklog, LogRouterDown" in finding.message
    )


def test_a_switch_that_also_drops_another_alert_still_loses_alerts(tmp_path, renderer):
    (finding,) = _alerts_gated(tmp_path, renderer, "api")
    assert finding.severity.value == "medium", finding.message
    assert "ApiDown" in finding.message
