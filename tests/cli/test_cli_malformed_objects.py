"""Valid YAML, malformed objects, through the real CLI on a tmp git repository (issue 12, item 10: each
crashed with exit 70). A release that cannot be read is *not reviewed* with the reason (exit 3); an
Ingress backend whose name is not a string simply selects no Service."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_review_cli import run

from charts import app_chart
from gitrepo import commit, make_repo

FLUX = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {{name: web, namespace: flux-system}}
spec:
  chart:
    spec: {{chart: ./apps/web, sourceRef: {{kind: GitRepository, name: platform}}}}
{extra}
"""
ARGO = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  destination: {namespace: apps, server: https://kubernetes.default.svc}
  source:
    repoURL: https://example.invalid/platform.git
    path: apps/web
    helm: {valueFiles: 5}
"""
STRING_DATA = (
    FLUX.format(extra="  valuesFrom:\n    - {kind: ConfigMap, name: web-values}")
    + """\
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web-values, namespace: flux-system}
data: "replicas: 3"
"""
)
INGRESS = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  rules:
    - host: web.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: {a: b}, port: {number: 80}}}
"""
CASES = {
    "flux-valuesFrom-float": (
        {"clusters/web.yaml": FLUX.format(extra="  valuesFrom: 1.5")},
        3,
        "valuesFrom",
    ),
    "argo-valueFiles-int": ({"clusters/web.yaml": ARGO}, 3, "valueFiles"),
    "configmap-data-string": ({"clusters/web.yaml": STRING_DATA}, 3, "data"),
    "ingress-backend-name-mapping": ({}, 0, None),  # added by the change (below)
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_malformed_object_is_not_reviewed_or_ignored_never_a_crash(
    tmp_path: Path, case: str
) -> None:
    files, code, needle = CASES[case]
    repo = make_repo(tmp_path / "work")
    base = commit(repo, {**app_chart("apps/web", "web"), **files}, "feat: web")
    change = {"apps/web/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"}
    if case.startswith("ingress"):
        change["apps/web/templates/ingress.yaml"] = INGRESS
    commit(repo, change, "fix: three")
    result = run(
        "review",
        "--repo",
        str(repo),
        "--base",
        base,
        "--no-state",
        "--no-tests",
        "--format",
        "json",
    )
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    if needle is not None:
        (line,) = [text for text in result.stderr.splitlines() if "not reviewed" in text]
        assert "release" in line and needle in line, line


def test_a_values_key_that_is_the_empty_string_is_traced_not_a_crash(tmp_path: Path) -> None:
    # found by tests/fuzz: provenance dropped the empty key from the path and crashed (exit 70)
    template = "{{- range .Values.objects }}\n---\n{{ toYaml . }}\n{{- end }}\n"
    config_map = '{apiVersion: v1, kind: ConfigMap, metadata: {name: web}, data: {a: "1"}}'
    repo = make_repo(tmp_path / "work")
    base = commit(
        repo,
        {
            "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
            "c/values.yaml": f"objects: [{config_map}]\n",
            "c/templates/objects.yaml": template,
        },
        "feat: c",
    )
    commit(repo, {"c/values.yaml": "name: false\n? ''\n: {}\n"}, "fix: empty key")
    result = run(
        "review",
        "--repo",
        str(repo),
        "--base",
        base,
        "--no-state",
        "--no-tests",
        "--format",
        "json",
    )
    assert result.returncode == 0, result.stderr
