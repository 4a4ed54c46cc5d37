"""Each route by which a Secret's value used to reach an output in clear (issue 31, item 3), in one
repository reviewed by the real CLI in every format, with `radius`, `history`, the state database and
the render cache searched too. The taint follows the value: a value that reaches a Secret at either
ref is secret wherever it appears, at both refs, whichever ref fails.

(a) a Secret that renders at base and fails at head (a `required` added; invalid YAML), its key not
    named like a credential; (b) a `fail` message quoting a value that feeds a Secret; (c) a
    HelmRelease's `spec.values` feeding a Secret; (d) a `password:` line in a ConfigMap's embedded
    config; (e) a helm-unittest snapshot, and a README, quoting a Secret's value; (f) credentials in
    a URL's user-info and a `connectionString`; (g) a ConfigMap copying a looked-up cluster Secret.
"""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

from test_secret_leaks import AFTERSHOCK, FORMATS, forms, readable

from charts import chart_yaml
from gitrepo import commit, make_repo


def planted(name: str, side: str) -> str:
    return f"PLANTED-9c1e-{name}-{side}"


TOKEN_SECRET = """\
apiVersion: v1
kind: Secret
metadata: {name: api}
stringData: {token: {{ .Values.api.ref | quote }}}
"""
# (a) at head the template needs a value nobody sets; (b) its message quotes the Secret's value
REQUIRED_AT_HEAD = """\
apiVersion: v1
kind: Secret
metadata: {name: api}
stringData:
  token: {{ .Values.api.ref | quote }}
{{- if not (eq .Values.api.zone "eu") }}
{{- fail (printf "zone eu is needed for %s" .Values.api.ref) }}
{{- end }}
"""
INVALID_AT_HEAD = """\
apiVersion: v1
kind: Secret
metadata: {name: api}
stringData: {token: {{ .Values.api.ref | quote }}
"""
# (c) a Flux release of an in-repo chart whose values feed the chart's Secret
RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: api, namespace: prod}
spec:
  chart:
    spec:
      chart: ./apps/hr
      sourceRef: {kind: GitRepository, name: platform, namespace: flux-system}
  values:
    api: {ref: RELEASE_VALUE}
"""
# (d) and (f): credentials inside texts outside any Secret
CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: conf}
data:
  app.ini: |
    [db]
    host = db.prod.svc
    password: {{ .Values.dbPassword }}
  DATABASE_URL: postgres://app:{{ .Values.urlPassword }}@db.prod.svc:5432/app
  connectionString: Server=db;User Id=app;Password={{ .Values.csPassword }};
"""
# (e) a snapshot of the Secret's render, and a README quoting the value
SNAPSHOT_TEST = """\
suite: snap
templates: [secret.yaml]
tests:
  - it: matches
    asserts: [{matchSnapshot: {}}]
"""
SNAPSHOT = """\
matches:
  1: |
    apiVersion: v1
    kind: Secret
    metadata:
      name: api
    stringData:
      conn: SNAPPED
"""
# (g) a ConfigMap copying a Secret that `lookup` finds in the declared cluster
LOOKUP_COPY = """\
{{- $s := lookup "v1" "Secret" "prod" "upstream" }}
apiVersion: v1
kind: ConfigMap
metadata: {name: copied}
data:
  upstream: {{ if $s }}{{ index $s.data "token" | b64dec | quote }}{{ else }}none{{ end }}
  mode: {{ .Values.mode | quote }}
"""


def cluster_config(side: str) -> str:
    token = base64.b64encode(planted("looked", side).encode()).decode()
    return (
        "cluster:\n  objects:\n    - apiVersion: v1\n      kind: Secret\n"
        "      metadata: {name: upstream, namespace: prod}\n"
        f"      data: {{token: {token}}}\n"
    )


def side_files(side: str) -> dict[str, str]:
    return {
        "apps/req/values.yaml": f"api:\n  ref: {planted('required', side)}\n",
        "apps/bad/values.yaml": f"api:\n  ref: {planted('invalid', side)}\n",
        "clusters/prod/api.yaml": RELEASE.replace("RELEASE_VALUE", planted("release", side)),
        "apps/conf/values.yaml": (
            f"dbPassword: {planted('ini', side)}\nurlPassword: {planted('url', side)}\n"
            f"csPassword: {planted('cs', side)}\n"
        ),
        # the snapshot was taken with a value the chart no longer gives
        "apps/snap/tests/__snapshot__/snap_test.yaml.snap": SNAPSHOT.replace(
            "SNAPPED", planted("snaponly", side)
        ),
        "apps/snap/values.yaml": f"api:\n  ref: {planted('snapshot', side)}\n",
        "apps/snap/README.md": f"The token is `{planted('snapshot', side)}`.\n",
        "apps/look/values.yaml": f"mode: {side}\n",
        ".aftershock.yaml": cluster_config(side),
    }


NAMES = ("required", "invalid", "release", "ini", "url", "cs", "snapshot", "snaponly", "looked")


def make_repository(tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            "apps/req/Chart.yaml": chart_yaml("req"),
            "apps/req/templates/secret.yaml": TOKEN_SECRET,
            "apps/bad/Chart.yaml": chart_yaml("bad"),
            "apps/bad/templates/secret.yaml": TOKEN_SECRET,
            "apps/hr/Chart.yaml": chart_yaml("hr"),
            "apps/hr/values.yaml": "api: {ref: none}\n",
            "apps/hr/templates/secret.yaml": TOKEN_SECRET,
            "apps/conf/Chart.yaml": chart_yaml("conf"),
            "apps/conf/templates/conf.yaml": CONFIG,
            "apps/snap/Chart.yaml": chart_yaml("snap"),
            "apps/snap/templates/secret.yaml": TOKEN_SECRET,
            "apps/snap/tests/snap_test.yaml": SNAPSHOT_TEST,
            "apps/look/Chart.yaml": chart_yaml("look"),
            "apps/look/templates/copy.yaml": LOOKUP_COPY,
            **side_files("base"),
        },
        "feat: apps",
    )
    commit(
        repo,
        {
            **side_files("head"),
            "apps/req/templates/secret.yaml": REQUIRED_AT_HEAD,
            "apps/bad/templates/secret.yaml": INVALID_AT_HEAD,
        },
        "feat: rotate",
    )
    return repo, base


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*AFTERSHOCK, *args], capture_output=True, env=env, timeout=300)


def test_no_route_prints_a_secret_value(tmp_path):
    repo, base = make_repository(tmp_path)
    state, cache = tmp_path / "state" / "state.db", tmp_path / "cache"
    env = {**os.environ, "CI": "true"}
    common = ["--repo", str(repo), "--base", base, "--render-cache", str(cache)]
    blobs: dict[str, bytes] = {}
    for fmt in FORMATS:
        out = tmp_path / f"review.{fmt}"
        proc = _run(
            ["review", *common, "--format", fmt, "--output", str(out)]
            + ["--state", str(state), "--target", "pr:1", "--full"],
            env,
        )
        assert proc.returncode in (0, 3, 4), proc.stderr.decode()
        blobs[f"{fmt} output"] = out.read_bytes()
        blobs[f"{fmt} stdout+stderr"] = proc.stdout + proc.stderr
    for fmt in ("text", "json"):
        proc = _run(["radius", *common, "--format", fmt], env)
        assert proc.returncode in (0, 3), proc.stderr.decode()
        blobs[f"radius {fmt}"] = proc.stdout + proc.stderr
        proc = _run(
            ["history", "--repo", str(repo), "--state", str(state), "--target", "pr:1"]
            + ["--format", fmt],
            env,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        blobs[f"history {fmt}"] = proc.stdout + proc.stderr
    review = blobs["json output"].decode()
    # each route was taken (else the test would prove nothing)
    assert (
        "zone eu is needed for" in blobs["radius text"].decode()
    )  # (b) the message, less the value
    assert '"apps/snap/tests/__snapshot__/snap_test.yaml.snap"' in review  # (e) its hunks are shown
    assert "HelmRelease" in review and '"copied"' in review
    stored = [p for p in state.parent.rglob("*") if p.is_file()]
    stored += [p for p in cache.rglob("*") if p.is_file()]
    assert any(cache in p.parents for p in stored), "the render cache was not used"
    blobs.update({str(p): readable(p) for p in stored})
    secrets = [planted(n, s) for n in NAMES for s in ("base", "head")]
    hits = sorted(
        {
            (secret, where)
            for secret in secrets
            for form in forms(secret)
            for where, data in blobs.items()
            if form in data
        }
    )
    print(f"planted: {len(secrets)}, places searched: {len(blobs)}, hits: {len(hits)}")
    assert hits == [], "\n".join(map(str, hits))
