"""The plain diff of each changed object (JSON `objects[].diff`, the comment's "Plain diff"): the
YAML at base to the YAML at head, with what a report may not show hidden, from a real review."""

from __future__ import annotations

import json

import pytest

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.kustomize import available
from aftershock.report import object_entries
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import chart_yaml
from gitrepo import commit, make_repo

TEMPLATES = {
    "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: web}\n"
    "stringData: {password: {{ .Values.password | quote }}}\n",
    "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
    "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
    "    spec:\n      containers:\n      - name: web\n        image: nginx:1.27.0\n"
    "        env:\n        - {name: API_TOKEN, value: {{ .Values.token | quote }}}\n",
    "config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata:\n"
    "  app.conf: |\n    port: 8080\n    level: {{ .Values.level }}\n    workers: 4\n",
}


def values(password: str, token: str, level: str) -> str:
    return f"password: {password}\ntoken: {token}\nlevel: {level}\n"


def _reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {f"web/templates/{name}": text for name, text in TEMPLATES.items()}
    files |= {
        "web/Chart.yaml": chart_yaml("web"),
        "web/values.yaml": values("s3cr3t-a", "tok-aaaa", "info"),
    }
    base = commit(repo, files, "feat: web")
    head = commit(
        repo,
        {
            "web/values.yaml": values("s3cr3t-b", "tok-bbbb", "debug"),
            "web/templates/sa.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web}\n",
        },
        "feat: debug, new credentials, an account",
    )
    return review_change(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False, max_scenarios=1), renderer
    )


def test_each_changed_object_has_its_plain_diff_and_no_secret_shows(tmp_path, renderer):
    result = _reviewed(tmp_path, renderer)
    doc = review_document(result.review, result.judgement)
    diffs = {o["display"]: o["diff"] for o in doc["objects"]}
    assert diffs["ConfigMap default/web"].splitlines()[-4:] == [
        "     port: 8080",
        "-    level: info",
        "+    level: debug",
        "     workers: 4",
    ]  # a text of several lines, diffed line by line
    assert "+  password: '<redacted: 8 bytes, changed>'" in diffs["Secret default/web"]
    assert "<redacted: 8 bytes, changed>" in diffs["Deployment.apps default/web"]
    assert all(line.startswith("+") for line in diffs["ServiceAccount default/web"].splitlines())
    text = render_markdown(doc)
    assert "### Plain diff" in text and "+    level: debug" in text
    # an object added whole has no field changes: its YAML is in its own entry, once
    assert text.count("+kind: ServiceAccount") == 1
    assert text.index("+kind: ServiceAccount") < text.index("### Plain diff")
    for secret in ("s3cr3t-a", "s3cr3t-b", "tok-aaaa", "tok-bbbb"):
        assert secret not in text and all(secret not in (d or "") for d in diffs.values())


def test_the_diffs_of_one_document_are_bounded(tmp_path, renderer, monkeypatch):
    """Past the document's bound (a review reaching a whole fleet), objects go without their diff."""
    monkeypatch.setattr(object_entries, "MAX_REVIEW_DIFF_CHARS", 1)
    result = _reviewed(tmp_path, renderer)
    diffs = [o["diff"] for o in review_document(result.review, result.judgement)["objects"]]
    assert len(diffs) == 4 and diffs[0] and diffs[1:] == [None, None, None]


def test_a_flux_build_substituting_a_secret_shows_no_plain_diff_and_no_secret(tmp_path, renderer):
    """postBuild.substituteFrom a Secret of the repository: its value may land on any line of any
    object the build makes, changed or not, so those objects show no plain diff and the value
    shows nowhere."""
    if available() is not None:
        pytest.skip(str(available()))
    ks = (
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
        "metadata: {name: apps, namespace: flux-system}\n"
        "spec:\n  interval: 10m\n  path: ./apps\n  prune: true\n"
        "  sourceRef: {kind: GitRepository, name: flux-system}\n"
        "  postBuild:\n    substituteFrom: [{kind: Secret, name: tunnel}]\n"
    )
    secret = (
        "apiVersion: v1\nkind: Secret\nmetadata: {name: tunnel, namespace: flux-system}\n"
        "stringData: {TUNNEL_ID: 7f3c9e2a-tunnel-4b1d}\n"
    )
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tunnel}\ndata:\n  id: ${TUNNEL_ID}\n  mode: MODE\n"
    repo = make_repo(tmp_path)
    files = {
        "clusters/prod/apps.yaml": ks,
        "clusters/prod/secret.yaml": secret,
        "apps/kustomization.yaml": "resources: [config.yaml]\n",
        "apps/config.yaml": config.replace("MODE", "fast"),
    }
    base = commit(repo, files, "feat: tunnel")
    head = commit(repo, {"apps/config.yaml": config.replace("MODE", "slow")}, "feat: slow")
    result = review_change(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False), renderer
    )
    doc = review_document(result.review, result.judgement)
    (config_map,) = [o for o in doc["objects"] if o["display"] == "ConfigMap default/tunnel"]
    assert [f["path"] for f in config_map["fields"]] == ["data.mode"] and config_map["diff"] is None
    text = json.dumps(doc) + render_markdown(doc)
    assert "7f3c9e2a-tunnel-4b1d" not in text


def test_what_varies_render_to_render_is_no_change_in_the_plain_diff_either(tmp_path, renderer):
    """A random token and a script line listing a map in Go's order differ in every render: the
    plain diff shows the edit beside them, the same review after review, and neither of them."""
    script = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: start}\ndata:\n"
        "  token: {{ randAlphaNum 12 | quote }}\n  run.sh: |\n    #!/bin/sh\n"
        "    IPS='{{ values .Values.regions | join \",\" }}'\n    OPTS='{{ .Values.opts }}'\n"
    )
    regions = "".join(f"  r{n}: 10.0.0.{n}\n" for n in range(24))
    repo = make_repo(tmp_path)
    files = {
        "db/Chart.yaml": chart_yaml("db"),
        "db/templates/start.yaml": script,
        "db/values.yaml": f"opts: a\nregions:\n{regions}",
    }
    base = commit(repo, files, "feat: db")
    head = commit(repo, {"db/values.yaml": f"opts: b\nregions:\n{regions}"}, "fix: opts")
    shown = set()
    for _ in range(2):
        result = review_change(
            ReviewRequest(repo=repo, base=base, head=head, run_tests=False), renderer
        )
        (obj,) = review_document(result.review, result.judgement)["objects"]
        changed = [line for line in obj["diff"].splitlines() if line[:1] in "+-"]
        assert changed == ["-    OPTS='a'", "+    OPTS='b'"], obj["diff"]
        shown.add(obj["diff"])
    assert len(shown) == 1
