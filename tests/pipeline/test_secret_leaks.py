"""No Secret value anywhere: a repository full of paths into Secrets, reviewed by the real CLI in
every format (and `aftershock radius`) with the review state and the render cache on, leaves no
planted plaintext (nor its base64) in any output, in stderr, in the state database or in the render
cache; and the ordinary names around those secrets are not hidden."""

from __future__ import annotations

import base64
import io
import json
import os
import re
import stat
import subprocess
import sys
import zlib
from pathlib import Path

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.caching.cache import CacheEntry, DiskRenderCache
from aftershock.report.canonical import review_document
from aftershock.report.formats import OutputFormat, write_report
from charts import app_chart, chart_yaml
from gitrepo import commit, make_repo

AFTERSHOCK = [sys.executable, "-m", "aftershock.cli"]
FORMATS = ("terminal", "markdown", "json", "html", "sarif")


def planted(name: str, side: str) -> str:
    return f"PLANTED-7f3a-{name}-{side}"


def short(side: str) -> str:
    """A value too short to be searched for: only what knows where it goes can hide it."""
    return f"Qz9%{side[0]}"


SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: db
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1","kind":"Secret","stringData":{"applied":"{{ .Values.appliedMarker }}"}}'
data:
  conn: {{ .Values.db.conn | b64enc }}
stringData:
  dsn: {{ include "db.dsn" . | quote }}
  short: {{ .Values.db.short | quote }}
"""

HELPERS = '{{- define "db.dsn" -}}{{ .Values.dsn }}{{- end }}\n'

# The kind comes from a value: nothing in the template text says Secret.
FROM_VALUE = """\
apiVersion: v1
kind: {{ .Values.objectKind }}
metadata: {name: extra}
stringData: {note: {{ .Values.note | quote }}, literal: LITERAL_VALUE}
"""

STALE_TEST = """\
suite: secret
templates: [templates/secret.yaml]
tests:
  - it: keeps the connection
    asserts:
      - equal: {path: data.conn, value: CONN_B64}
"""

EXPECT_TEST = """\
suite: expect
templates: [secret.yaml]
tests:
  - it: has the dsn
    asserts:
      - equal: {path: stringData.dsn, value: EXPECTED}
"""

PLAIN_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: prod}
spec:
  chart:
    spec:
      chart: ./apps/web
      sourceRef: {kind: GitRepository, name: platform, namespace: flux-system}
  valuesFrom:
    - kind: Secret
      name: web-values
---
apiVersion: v1
kind: Secret
metadata: {name: web-values, namespace: prod}
stringData:
  values.yaml: |
    mode: MODE_VALUE
"""


# A Secret holding a values document, in a chart that breaks at head: the Secret renders at base only.
BROKEN_SECRET = """\
apiVersion: v1
kind: Secret
metadata: {name: broken-etc}
stringData:
  config.yaml: |
{{ toYaml .Values.conf | indent 4 }}
"""
BROKEN_AT_HEAD = '{{ fail (printf "bad upstream %s" .Values.conf.upstream) }}\n'

# Credential-named keys outside any Secret: a ConfigMap key and an env var.
CREDENTIALS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: env}
data:
  DB_PASSWORD: {{ .Values.first | quote }}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec:
      containers:
        - name: worker
          image: busybox:1.36
          env:
            - name: API_KEY
              value: {{ .Values.second | quote }}
"""


def side_files(side: str) -> dict[str, str]:
    values = (
        f"db:\n  conn: {planted('conn', side)}\n  short: {short(side)}\n"
        f"dsn: {planted('dsn', side)}\n"
        f"appliedMarker: {planted('applied', side)}\n"
        f"objectKind: Secret\nnote: {planted('note', side)}\n"
    )
    return {
        "apps/db/values.yaml": values,
        "apps/db/templates/extra.yaml": FROM_VALUE.replace("LITERAL_VALUE", planted("flow", side)),
        "clusters/prod/web.yaml": PLAIN_RELEASE.replace("MODE_VALUE", planted("mode", side)),
        "apps/db/tests/expect_test.yaml": EXPECT_TEST.replace("EXPECTED", planted("expect", side)),
        "apps/broken/values.yaml": f"conf:\n  region: eu-de-1\n  upstream: {planted('broken', side)}\n",
        "apps/creds/values.yaml": f"first: {planted('first', side)}\nsecond: {planted('second', side)}\n",
    }


def make_repository(tmp_path: Path) -> tuple[Path, str, list[str]]:
    repo = make_repo(tmp_path)
    conn_b64 = base64.b64encode(planted("conn", "base").encode()).decode()
    base = commit(
        repo,
        {
            **app_chart("apps/web", "web"),
            **app_chart("apps/other", "other"),
            "apps/db/Chart.yaml": chart_yaml("db"),
            "apps/db/templates/_helpers.tpl": HELPERS,
            "apps/db/templates/secret.yaml": SECRET,
            "apps/db/tests/secret_test.yaml": STALE_TEST.replace("CONN_B64", conn_b64),
            "apps/broken/Chart.yaml": chart_yaml("broken"),
            "apps/broken/templates/secret.yaml": BROKEN_SECRET,
            "apps/creds/Chart.yaml": chart_yaml("creds"),
            "apps/creds/templates/creds.yaml": CREDENTIALS,
            **side_files("base"),
        },
        "feat: db",
    )
    commit(
        repo,
        {
            **side_files("head"),
            **app_chart("apps/other", "other", replicas=3),
            "apps/broken/templates/fail.yaml": BROKEN_AT_HEAD,
        },
        "feat: rotate",
    )
    names = (
        "conn",
        "dsn",
        "applied",
        "note",
        "flow",
        "mode",
        "expect",
        "broken",
        "first",
        "second",
    )
    return (
        repo,
        base,
        [planted(n, s) for n in names for s in ("base", "head")] + [short("base"), short("head")],
    )


def forms(plaintext: str) -> list[bytes]:
    return [plaintext.encode(), base64.b64encode(plaintext.encode())]


def readable(path: Path) -> bytes:
    """A file's bytes, and its decompressed bytes when it is a render cache entry."""
    data = path.read_bytes()
    try:
        return data + zlib.decompress(data)
    except zlib.error:
        return data


def test_no_planted_secret_reaches_any_output_or_store(tmp_path):
    repo, base, secrets = make_repository(tmp_path)
    state, cache = tmp_path / "state" / "state.db", tmp_path / "cache"
    env = {**os.environ, "CI": "true"}
    blobs: dict[str, bytes] = {}
    for fmt in FORMATS:
        out = tmp_path / f"review.{fmt}"
        proc = subprocess.run(
            [
                *AFTERSHOCK,
                "review",
                "--repo",
                str(repo),
                "--base",
                base,
                "--format",
                fmt,
                "--output",
                str(out),
                "--state",
                str(state),
                "--render-cache",
                str(cache),
                "--target",
                "pr:1",
                "--full",
            ],
            capture_output=True,
            env=env,
            timeout=300,
        )
        assert proc.returncode in (0, 3, 4), proc.stderr.decode()
        blobs[f"{fmt} output"] = out.read_bytes()
        blobs[f"{fmt} stdout+stderr"] = proc.stdout + proc.stderr
    for fmt in ("text", "json"):
        proc = subprocess.run(
            [*AFTERSHOCK, "radius", "--repo", str(repo), "--base", base, "--format", fmt]
            + ["--render-cache", str(cache)],
            capture_output=True,
            env=env,
            timeout=300,
        )
        assert proc.returncode in (0, 3), proc.stderr.decode()
        blobs[f"radius {fmt} stdout+stderr"] = proc.stdout + proc.stderr
    assert b"bad upstream" in blobs["radius text stdout+stderr"]  # the head error was printed
    doc = json.loads(blobs["json output"])
    # the review did see the paths the secrets take (else the test would prove nothing)
    assert any(f["rule"] == "tests-stale-assertion" for f in doc["findings"]["items"]), doc[
        "findings"
    ]
    assert any(c["file"].startswith("release ") and c["sensitive"] for c in doc["values_changes"])
    assert any(
        c["file"] == "apps/db/values.yaml" and c["path"] == "note" and c["sensitive"]
        for c in doc["values_changes"]
    )
    stored = [p for p in state.parent.rglob("*") if p.is_file()] + [
        p for p in cache.rglob("*") if p.is_file()
    ]
    assert any(cache in p.parents for p in stored), "the render cache was not used"
    blobs.update({str(p): readable(p) for p in stored})
    hits = [
        (secret, where)
        for secret in secrets
        for form in forms(secret)
        for where, data in blobs.items()
        if form in data
    ]
    print(f"planted secrets: {len(secrets)}, places searched: {len(blobs)}, hits: {len(hits)}")
    assert len(secrets) == 22
    assert hits == []


def test_state_and_cache_files_are_private(tmp_path):
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("apps/web", "web"), "feat: web")
    commit(repo, app_chart("apps/web", "web", replicas=3), "feat: three")
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
    proc = subprocess.run(
        [*AFTERSHOCK, "review", "--repo", str(repo), "--base", base, "--format", "json"],
        capture_output=True,
        env={**env, "CI": "true", "HOME": str(tmp_path)},
        timeout=300,
    )
    assert proc.returncode in (0, 3, 4), proc.stderr.decode()
    state_folder = repo / ".aftershock"
    inside = list(state_folder.rglob("*"))
    files = [p for p in inside if p.is_file() and p.name != ".gitignore"]
    folders = [state_folder, *(p for p in inside if p.is_dir())]
    assert any(p.name == "state.db" for p in files) and any(
        "render-cache" in p.parts for p in files
    )
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {"0o600"}
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in folders} == {"0o700"}


def test_a_render_holding_a_secret_stays_in_memory(tmp_path):
    disk = DiskRenderCache(tmp_path / "cache")
    disk.put(
        "aa" * 32,
        CacheEntry({"c/templates/s.yaml": "apiVersion: v1\nkind: Secret\ndata: {a: YWJj}\n"}),
    )
    disk.put("bb" * 32, CacheEntry({"c/templates/j.yaml": '{"apiVersion":"v1","kind":"Secret"}'}))
    disk.put("cc" * 32, CacheEntry({"c/templates/cm.yaml": "kind: ConfigMap\n"}, private=True))
    disk.put("dd" * 32, CacheEntry({"c/templates/cm.yaml": "kind: ConfigMap\n"}))
    assert [disk.get(k * 32) is not None for k in ("aa", "bb", "cc", "dd")] == [
        False,
        False,
        False,
        True,
    ]


# A Secret holding a values document of ordinary names around two real secrets, as platform charts write.
BACKUP_SECRET = """\
apiVersion: v1
kind: Secret
metadata: {name: backup-etc, namespace: monitoring}
stringData:
  config.yaml: |
{{ toYaml .Values.backup | indent 4 }}
"""
BACKUP_SERVICE = """\
apiVersion: v1
kind: Service
metadata: {name: backup, namespace: monitoring}
spec:
  selector: {app: backup}
"""
# At head the Service takes names from the same values: they show in its diff.
BACKUP_SERVICE_HEAD = """\
apiVersion: v1
kind: Service
metadata:
  name: backup
  namespace: monitoring
  annotations: {issuer: {{ .Values.backup.issuer }}, region: {{ .Values.backup.cluster }}}
spec:
  clusterIP: None
  selector: {app: backup}
"""
ORDINARY_NAMES = ("apps/backup", "monitoring", "cert-manager", "eu-de-1", "clusterIP", "backup")


def backup_values(password: str, schedule: str) -> str:
    return (
        "backup:\n  cluster: eu-de-1\n  namespace: monitoring\n  issuer: cert-manager\n"
        f"  service: .spec.clusterIP\n  schedule: '{schedule}'\n  password: {password}\n"
        f"  upstream: {planted('upstream', schedule[:1])}\n"
    )


def test_ordinary_names_around_planted_secrets_are_not_hidden(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {
        "apps/backup/Chart.yaml": chart_yaml("backup"),
        "apps/backup/templates/secret.yaml": BACKUP_SECRET,
        "apps/backup/templates/service.yaml": BACKUP_SERVICE,
    }
    base = commit(
        repo,
        {**files, "apps/backup/values.yaml": backup_values("Xk29fQ7mLwTq", "1 3")},
        "feat: backup",
    )
    head = {
        "apps/backup/values.yaml": backup_values("Rt55pZ0qVnWe", "2 4"),
        "apps/backup/templates/service.yaml": BACKUP_SERVICE_HEAD,
    }
    commit(repo, head, "rotate")
    result = review_change(ReviewRequest(repo=repo, base=base), renderer)
    doc = review_document(result.review, result.judgement)
    stream = io.StringIO()
    write_report(doc, OutputFormat.MARKDOWN, stream, color=False)
    text = json.dumps(doc) + stream.getvalue()
    for secret in (
        "Xk29fQ7mLwTq",
        "Rt55pZ0qVnWe",
        planted("upstream", "1"),
        planted("upstream", "2"),
    ):
        assert secret not in text, secret
    markers = [line for s in _strings(doc) for line in s.splitlines() if "<redacted:" in line]
    # only the values diff of the keys that feed the Secret and the plain diff of the Secret
    # (structure, not scrub) show sizes
    sized = re.compile(
        r"[-+ ]\s*[\w.-]+: '?<redacted: \d+ bytes(, changed)?>'?|backup\.\w+ changed from .*"
    )
    assert markers and all(sized.fullmatch(m) for m in markers), markers
    for name in ORDINARY_NAMES:
        assert name in stream.getvalue(), name
    assert "<redacted: 6 bytes>" not in text and "<redacted: 7 bytes>" not in text


def _strings(data: object) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for v in data.values() for s in _strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return []
