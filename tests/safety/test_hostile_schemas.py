"""A values schema in a pull request cannot make the review fetch, open or hang (issue 31, items 1-2).

Each review runs on a real git repository with the embedded Helm. A loopback HTTP server counts
the requests that reach it (none may), and a canary file outside the repository must never be
opened: the CLI runs under strace, which sees the Go library's own `openat` calls too.
"""

from __future__ import annotations

import http.server
import io
import json
import shutil
import subprocess
import sys
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.interface import RenderRequest
from aftershock.render.schemas.schema_reach import folder_schema_refusal
from aftershock.report.canonical import review_document
from charts import chart_yaml
from gitrepo import commit, make_repo

CONFIGMAP = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"
    'data: {r: "{{ .Values.replicaCount }}", n: "{{ .Values.name }}"}\n'
)
VALUES = "replicaCount: 1\nname: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\n"


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        body = b'{"const": "FETCHED-CANARY"}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    hits: ClassVar[list[str]] = []
    handler = type("Handler", (_Counting,), {"hits": hits})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    httpd.shutdown()
    httpd.server_close()


def _repo(tmp_path: Path, schema: object | None, **more: str) -> Path:
    repo = make_repo(tmp_path)
    commit(
        repo,
        {
            "c/Chart.yaml": chart_yaml("c"),
            "c/values.yaml": VALUES,
            "c/templates/cm.yaml": CONFIGMAP,
        },
        "base",
    )
    commit(repo, {"c/values.schema.json": json.dumps(schema), **more}, "head")
    return repo


def _review(repo: Path, renderer, deadline: float = 600.0):
    return review_change(
        ReviewRequest(
            repo=repo, base="HEAD~1", head="HEAD", run_tests=False, deadline_seconds=deadline
        ),
        renderer,
    )


def test_a_schema_ref_to_an_address_or_a_host_file_leaves_the_chart_not_reviewed_and_fetches_nothing(
    tmp_path, server, renderer
):
    address, hits = server
    canary = tmp_path / "outside" / "canary.json"
    canary.parent.mkdir()
    canary.write_text('{"const": "FILE-CANARY"}')
    schema = {
        "properties": {
            "replicaCount": {"$ref": f"{address}/x.json"},
            "name": {"$ref": f"file://{canary}"},
        }
    }
    result = _review(_repo(tmp_path, schema), renderer)
    (chart,) = result.review.chart_reviews
    assert chart.outcome is ChartOutcome.NOT_REVIEWED
    (gap,) = result.review.not_reviewed
    assert gap.part == "chart c" and f"$ref {address}/x.json" in gap.reason
    assert f"$ref file://{canary}" in gap.reason and "nothing is fetched" in gap.reason
    assert hits == []
    text = json.dumps(review_document(result.review, result.judgement))
    assert "CANARY" not in text
    assert not [f for f in result.judgement.findings if f.rule_id == "chart-render-broken"]


@pytest.mark.parametrize(
    "keyword, value",
    [
        ("$schema", "{address}/meta"),
        ("$dynamicRef", "{address}/dyn.json"),
        ("$recursiveRef", "{address}/rec.json"),
        ("$ref", "defs.json#/x"),  # no such file: Helm resolves it against file:///
        ("$ref", "../../etc/x.json"),  # outside the repository
    ],
)
def test_every_reference_helm_would_load_from_outside_is_refused(
    tmp_path, server, renderer, keyword, value
):
    address, hits = server
    schema = {"properties": {"name": {keyword: value.format(address=address)}}}
    result = _review(_repo(tmp_path, schema), renderer)
    (gap,) = result.review.not_reviewed
    assert f"{keyword} {value.format(address=address)}" in gap.reason
    assert hits == []


def test_references_inside_the_chart_keep_working(tmp_path, renderer):
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"count": {"type": "integer"}},
        "properties": {"replicaCount": {"$ref": "#/$defs/count"}, "name": {"$ref": "defs.json#/n"}},
    }
    repo = _repo(tmp_path, schema, **{"c/defs.json": json.dumps({"n": {"type": "string"}})})
    result = _review(repo, renderer)
    assert result.review.not_reviewed == ()
    (chart,) = result.review.chart_reviews
    assert chart.outcome is not ChartOutcome.NOT_REVIEWED


def test_a_subchart_archive_whose_schema_refers_outside_is_refused(tmp_path, server, renderer):
    address, hits = server
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in {
            "sub/Chart.yaml": chart_yaml("sub"),
            "sub/values.schema.json": json.dumps({"$ref": f"{address}/sub.json"}),
        }.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    repo = _repo(tmp_path, {"type": "object"})
    commit(repo, {"c/charts/sub-0.1.0.tgz": buffer.getvalue()}, "vendor a subchart")
    result = review_change(
        ReviewRequest(repo=repo, base="HEAD~2", head="HEAD", run_tests=False), renderer
    )
    (gap,) = result.review.not_reviewed
    assert "c/charts/sub-0.1.0.tgz:sub/values.schema.json" in gap.reason
    assert f"$ref {address}/sub.json" in gap.reason
    assert hits == []


def test_the_render_worker_refuses_a_folder_that_never_came_from_the_tree(
    tmp_path, server, renderer
):
    """The last look before Helm loads a chart: an archive from a chart cache, a suite's copy."""
    address, hits = server
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(chart_yaml("c"))
    (chart / "values.yaml").write_text(VALUES)
    (chart / "templates/cm.yaml").write_text(CONFIGMAP)
    (chart / "values.schema.json").write_text(json.dumps({"$ref": f"{address}/top.json"}))
    assert f"$ref {address}/top.json" in (folder_schema_refusal(chart) or "")
    (outcome,) = renderer.render_many([RenderRequest(chart_dir=str(chart), values={})])
    assert outcome.error is not None and "refers outside the repository" in outcome.error
    assert hits == []


def _bomb(depth: int = 40) -> dict[str, object]:
    defs: dict[str, object] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(depth)
    }
    defs[f"d{depth}"] = {"type": "string"}
    return {"$defs": defs, "properties": {"name": {"$ref": "#/$defs/d0"}}}


def test_a_reference_bomb_is_refused_before_helm_or_the_schema_rule_walks_it(tmp_path, renderer):
    result = _review(_repo(tmp_path, _bomb()), renderer, deadline=30)
    (gap,) = result.review.not_reviewed
    assert "reference bomb" in gap.reason
    assert not [f for f in result.judgement.findings if f.rule_id == "values-schema-violation"]


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_no_file_outside_the_repository_is_opened_by_any_process_of_the_review(tmp_path):
    canary = tmp_path / "outside" / "canary.json"
    canary.parent.mkdir()
    canary.write_text('{"const": "FILE-CANARY"}')
    repo = _repo(tmp_path, {"properties": {"name": {"$ref": f"file://{canary}"}}})
    trace = tmp_path / "trace.txt"
    completed = subprocess.run(
        ["strace", "-f", "-qq", "-e", "trace=open,openat,openat2", "-o", str(trace)]
        + [sys.executable, "-m", "aftershock.cli", "review", "--repo", str(repo)]
        + ["--base", "HEAD~1", "--head", "HEAD", "--no-state", "--render-cache", "off"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 3, completed.stderr
    assert "refers outside the repository" in completed.stderr
    assert "canary.json" in json.dumps(completed.stderr)  # named in the reason...
    opened = [line for line in trace.read_text().splitlines() if "canary.json" in line]
    assert opened == []  # ...and never opened
