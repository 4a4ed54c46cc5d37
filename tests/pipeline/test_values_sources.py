"""Values the platform injects: a HelmRelease's `valuesFrom` reads a ConfigMap that another chart of
the repository renders into the release's namespace, in the release's context and in release following."""

from __future__ import annotations

from aftershock.model.contexts import ContextKind
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, run_review
from charts import app_chart, chart_yaml
from gitrepo import commit, make_repo

# Renders only with the platform's `_cluster` map (which only the platform's values ConfigMap holds).
APP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  domain: {{ required "platform values" (index .Values "_cluster" "domain") | quote }}
  level: {{ .Values.level | quote }}
"""

# The platform chart: one values ConfigMap per tenant namespace.
PLATFORM = """\
{{- range .Values.tenants }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: platform-values
  namespace: {{ . }}
data:
  values.yaml: |
    _cluster:
      domain: {{ . }}.{{ $.Values.domain }}
---
{{- end }}
"""

RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: shop
  namespace: shop
spec:
  chart:
    spec:
      chart: ./apps/app
      sourceRef: {kind: GitRepository, name: platform, namespace: flux-system}
  valuesFrom:
    - kind: ConfigMap
      name: platform-values
  values:
    level: {level}
"""


def files(level: str = "info") -> dict[str, str]:
    return {
        "apps/app/Chart.yaml": chart_yaml("app"),
        "apps/app/values.yaml": "level: default\n",
        "apps/app/templates/configmap.yaml": APP,
        "platform/Chart.yaml": chart_yaml("platform"),
        "platform/values.yaml": "domain: example.net\ntenants: [shop, blog]\n",
        "platform/templates/values.yaml": PLATFORM,
        "clusters/prod/shop.yaml": RELEASE.replace("{level}", level),
    }


def review(repo, base, renderer):
    return run_review(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)


def test_the_release_context_reads_the_values_another_chart_renders(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, files(), "feat: shop")
    commit(repo, {"apps/app/templates/configmap.yaml": APP + "  tier: web\n"}, "feat: tier label")
    result = review(repo, base, renderer)
    (context,) = [c for c in result.contexts if c.chart == "apps/app"]
    assert context.kind is ContextKind.RELEASE, context
    (app,) = [r for r in result.chart_reviews if r.chart == "apps/app" and r.scenario == "default"]
    assert app.outcome is ChartOutcome.CHANGED
    (change,) = app.changes
    assert change.key.id == "core/ConfigMap/shop/shop-settings"
    body = next(o for o in app.head_objects if o.key == change.key).body
    assert body["data"] == {"domain": "shop.example.net", "level": "info", "tier": "web"}


def test_a_changed_release_reads_the_values_another_chart_renders(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**files(), **app_chart("apps/other", "other")}, "feat: shop")
    commit(repo, {"clusters/prod/shop.yaml": RELEASE.replace("{level}", "debug")}, "feat: debug")
    result = review(repo, base, renderer)
    assert not [g for g in result.not_reviewed if "platform-values" in g.reason], (
        result.not_reviewed
    )
    (app,) = [r for r in result.chart_reviews if r.chart == "apps/app" and r.release]
    (change,) = app.changes
    assert [(f.path, f.before, f.after) for f in change.fields] == [("data.level", "info", "debug")]
    body = next(o for o in app.head_objects if o.key == change.key).body
    assert body["data"]["domain"] == "shop.example.net"
