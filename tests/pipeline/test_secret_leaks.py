"""No Secret value anywhere: a repository full of paths into Secrets, reviewed by the real CLI in
every format with the review state and the render cache on, leaves no planted plaintext (nor its
base64) in any output, in stderr, in the state database or in the render cache."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
import zlib
from pathlib import Path

from aftershock.render.cache import CacheEntry, DiskRenderCache
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
            **side_files("base"),
        },
        "feat: db",
    )
    commit(
        repo, {**side_files("head"), **app_chart("apps/other", "other", replicas=3)}, "feat: rotate"
    )
    names = ("conn", "dsn", "applied", "note", "flow", "mode", "expect")
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
    assert len(secrets) == 16
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
