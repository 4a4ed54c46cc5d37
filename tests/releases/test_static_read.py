"""Release identity read from template text: literal name, namespace and chart reference only."""

from __future__ import annotations

from aftershock.releases.parse import release_spec
from aftershock.releases.static_read import static_releases

TEMPLATE = """\
{{- if .Values.enabled }}
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: shop
  namespace: flux-system
spec:
  releaseName: tenant-shop
  targetNamespace: shop
  chart:
    spec:
      chart: ./apps/app
      sourceRef: {kind: GitRepository, name: platform}
  values:
    region: {{ required "region" .Values.region }}
    level: info
{{- end }}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: {{ .Values.name }}
spec:
  chart: {spec: {chart: ./apps/other}}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: blog, namespace: argocd}
spec:
  source:
    path: apps/blog
    helm:
      releaseName: blog-prod
      values: "a: {{ .Values.a }}"
  destination: {namespace: blog}
"""


def test_literal_releases_are_read_with_their_identity_and_no_values():
    found = static_releases("platform/templates/releases.yaml", TEMPLATE, "platform", "default")
    specs = [release_spec(o) for o in found]
    assert [(s.chart, s.release_name, s.namespace) for s in specs] == [
        ("./apps/app", "tenant-shop", "shop"),
        ("apps/blog", "blog-prod", "blog"),
    ]  # the release named by a template action is not literal: left out
    assert all(s.values == {} and s.values_from == () for s in specs)
    assert [o.template for o in found] == ["platform/templates/releases.yaml"] * 2


def test_a_release_without_a_literal_namespace_is_not_read():
    text = (
        TEMPLATE.split("---")[0]
        .replace("  namespace: flux-system\n", "")
        .replace("  targetNamespace: shop\n", "  targetNamespace: {{ .Release.Namespace }}\n")
    )
    assert static_releases("t.yaml", text, "platform", "default") == []
