"""A large review's renders spread over `aftershock worker --renders-only` processes on the real
redis-server at 127.0.0.1:6379 (`server.queue.render_queue`): the review equals the one rendered in
this process, and a batch whose worker is killed mid-render leaves its chart not reviewed, saying why."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.interface import WrappingRenderer
from aftershock.report.canonical import review_document
from aftershock.server.queue.render_batches import RenderSpec
from aftershock.server.queue.render_jobs import render_queue_name
from aftershock.server.queue.render_queue import QueueRenderer, SpreadOptions
from charts import chart_yaml
from gitrepo import commit, make_repo
from redis_support import REDIS_URL, needs_redis, stop_workers
from server_harness import wait_for

pytestmark = needs_redis

LIBRARY = {
    "lib/common/Chart.yaml": chart_yaml("common", kind="library"),
    "lib/common/templates/_labels.tpl": '{{- define "common.labels" -}}\ntier: web\n{{- end -}}\n',
}
DEPENDS_ON_COMMON = (
    "dependencies:\n- name: common\n  version: 0.1.0\n  repository: file://../../lib/common\n"
)
CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
  labels:
    {{- include "common.labels" . | nindent 4 }}
data:
  replicas: {{ .Values.replicas | quote }}
"""
# A render that keeps its worker busy for seconds: long enough to kill the worker within it.
SLOW = """\
{{- range $i := until (int .Values.outer) }}{{- range $j := until 10000 }}{{- end }}{{- end }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: slow
data:
  mode: {{ .Values.mode | quote }}
"""


def _user(name: str) -> dict[str, str]:
    return {
        f"charts/{name}/Chart.yaml": chart_yaml(name, deps=DEPENDS_ON_COMMON),
        f"charts/{name}/values.yaml": "replicas: 2\n",
        f"charts/{name}/templates/cm.yaml": CONFIGMAP,
    }


@pytest.fixture
def workers(tmp_path):
    """Starts `aftershock worker --renders-only` processes on a queue of this test's own."""
    import redis

    name = f"aftershock-spread-{uuid.uuid4().hex[:8]}"
    connection = redis.Redis.from_url(REDIS_URL)
    started: list[subprocess.Popen[bytes]] = []

    def start(count: int) -> list[subprocess.Popen[bytes]]:
        from rq import Queue, Worker

        queue = Queue(render_queue_name(name), connection=connection)
        names = [f"{name}-{len(started) + n}" for n in range(count)]
        code = "from aftershock.cli.worker import worker_command; worker_command()"
        new = [
            subprocess.Popen(
                [sys.executable, "-c", code, "--queue", REDIS_URL, "--queue-name", name]
                + ["--name", worker, "--renders-only"]
                + ["--heartbeat-seconds", "1", "--maintenance-seconds", "1"],
                env={**os.environ, "AFTERSHOCK_WORK_DIR": str(tmp_path)},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for worker in names
        ]
        started.extend(new)
        wait_for(
            lambda: set(names) <= {w.name for w in Worker.all(connection=connection, queue=queue)},
            60,
            f"{count} render workers listening",
        )
        return new

    yield name, connection, start
    stop_workers(started)
    for found in connection.scan_iter(f"rq:*{name}*"):
        connection.delete(found)
    connection.close()


def _spreading(local: Any, connection: Any, name: str) -> QueueRenderer:
    """Every render step spread, none rendered here: the workers render them all."""
    options = SpreadOptions(name, min_renders=1, help_while_waiting=False, poll_seconds=0.2)
    return QueueRenderer(local, connection, RenderSpec("sdk", 60.0, 1024), options)


def _document(request: ReviewRequest, renderer: Any) -> dict[str, Any]:
    result = review_change(request, renderer)
    return _without_seconds(review_document(result.review, result.judgement))


def _without_seconds(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_seconds(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_without_seconds(v) for v in value]
    return value


def _finished_batches(connection: Any, name: str) -> int:
    from rq import Queue
    from rq.registry import FinishedJobRegistry

    queue = Queue(render_queue_name(name), connection=connection)
    return len(FinishedJobRegistry(queue=queue).get_job_ids())


def test_a_library_change_spread_over_two_workers_reviews_as_one_process_does(tmp_path, workers):
    name, connection, start = workers
    repo = make_repo(tmp_path)
    charts = {
        k: v for n in ("api", "web", "jobs", "auth", "mail", "search") for k, v in _user(n).items()
    }
    base = commit(repo, {**LIBRARY, **charts}, "feat: six charts on the common library")
    commit(
        repo,
        {
            "lib/common/templates/_labels.tpl": '{{- define "common.labels" -}}\ntier: edge\n{{- end -}}\n'
        },
        "feat: every chart is on the edge tier",
    )
    request = ReviewRequest(repo=repo, base=base, head="HEAD", run_tests=False)
    with SdkRenderer(workers=1) as local:
        alone = _document(request, local)
    start(2)
    with SdkRenderer(workers=1) as local:
        spread = _document(request, _spreading(local, connection, name))
    assert sum(1 for c in alone["affected_charts"] if c["rendered"]) == 6
    assert len(alone["objects"]) == 6  # each chart's ConfigMap changed its label
    assert spread == alone
    assert _finished_batches(connection, name) >= 2  # the workers rendered them, not this process


def _started_with(connection: Any, name: str, folder: str) -> bool:
    """True once a worker is rendering a batch with a request of `folder`."""
    from rq import Queue
    from rq.job import Job
    from rq.registry import StartedJobRegistry
    from rq.serializers import JSONSerializer

    queue = Queue(render_queue_name(name), connection=connection)
    for job_id in StartedJobRegistry(queue=queue).get_job_ids():
        job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
        if any(folder in r["chart_dir"] for r in job.args[0]["requests"]):
            return True
    return False


def test_a_batch_whose_worker_dies_leaves_its_chart_not_reviewed_with_the_reason(tmp_path, workers):
    name, connection, start = workers
    repo = make_repo(tmp_path)
    slow = {
        "charts/slow/Chart.yaml": chart_yaml("slow"),
        "charts/slow/values.yaml": "outer: 6000\nmode: fast\n",
        "charts/slow/templates/cm.yaml": SLOW,
    }
    base = commit(repo, {**LIBRARY, **_user("api"), **slow}, "feat: charts")
    commit(
        repo,
        {
            "charts/slow/values.yaml": "outer: 6000\nmode: safe\n",
            "charts/api/values.yaml": "replicas: 3\n",
        },
        "feat: safe mode, three replicas",
    )
    request = ReviewRequest(repo=repo, base=base, head="HEAD", run_tests=False)
    (doomed,) = start(1)
    found: dict[str, Any] = {}
    with SdkRenderer(workers=1) as local:
        renderer = _spreading(local, connection, name)
        review = threading.Thread(target=lambda: found.update(doc=_document(request, renderer)))
        review.start()
        wait_for(lambda: _started_with(connection, name, "charts/slow"), 120, "the slow batch")
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
        start(1)  # the batches after it still need a worker
        review.join(300)
    assert not review.is_alive()
    doc = found["doc"]
    lost = [g for g in doc["not_reviewed"] if "charts/slow" in g["part"]]
    assert lost, doc["not_reviewed"]
    assert any("render worker was lost while rendering" in g["reason"] for g in lost)
    assert [r["chart"] for r in doc["chart_reviews"] if r["outcome"] == "changed"] == ["charts/api"]


def test_a_small_render_step_stays_in_the_reviewers_process(tmp_path, workers):
    name, connection, _ = workers  # no worker listens: a spread step would wait for one
    folder = Path(tmp_path) / "app"
    (folder / "templates").mkdir(parents=True)
    (folder / "Chart.yaml").write_text(chart_yaml("app"))
    (folder / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata: {a: b}\n"
    )
    from aftershock.render.interface import RenderRequest

    with SdkRenderer(workers=1) as local:
        options = SpreadOptions(name, min_renders=2, help_while_waiting=False)
        renderer = QueueRenderer(local, connection, RenderSpec("sdk", 60.0, 1024), options)
        (outcome,) = renderer.render_many([RenderRequest(str(folder))])
    assert outcome.ok and "app/templates/cm.yaml" in outcome.manifests


class _OtherHelm(WrappingRenderer):
    """The reviewer's renderer, reporting another version than the workers' (a mixed deployment)."""

    def render_many(self, requests, progress=None, deadline=None):
        return self.inner.render_many(requests, progress, deadline)

    @property
    def version(self) -> str:
        return "helm-python-sdk 0.0.1 (Helm v3.0.0)"


def test_a_worker_with_another_helm_renders_nothing_and_says_so(tmp_path, workers):
    name, connection, start = workers
    repo = make_repo(tmp_path)
    base = commit(repo, {**LIBRARY, **_user("api")}, "feat: api")
    commit(repo, {"charts/api/values.yaml": "replicas: 3\n"}, "feat: three replicas")
    request = ReviewRequest(repo=repo, base=base, head="HEAD", run_tests=False)
    start(1)
    with SdkRenderer(workers=1) as local:
        doc = _document(request, _spreading(_OtherHelm(local), connection, name))
    reasons = [g["reason"] for g in doc["not_reviewed"] if "charts/api" in g["part"]]
    assert reasons and all("the review renders with helm-python-sdk 0.0.1" in r for r in reasons)
    assert all(r["outcome"] != "changed" for r in doc["chart_reviews"])


def test_a_worker_set_to_spread_renders_its_batches_itself_when_no_worker_takes_them(
    tmp_path, workers
):
    from contextlib import ExitStack

    from aftershock.render.interface import RenderRequest
    from aftershock.server.build import QueueChoice, build_worker_runner
    from aftershock.server.settings import settings_from_environment
    from server_fakes import AppKey

    name, connection, _ = workers  # no worker listens on the render queue
    env = {
        "AFTERSHOCK_APP_ID": "42",
        "AFTERSHOCK_PRIVATE_KEY": AppKey.generate().private_pem,
        "AFTERSHOCK_STATE": str(tmp_path / "state.db"),
        "AFTERSHOCK_SPREAD_RENDERS": "2",
    }
    settings = settings_from_environment(env, require_secret=False)
    folders = []
    for chart in ("a", "b", "c"):
        folder = tmp_path / chart
        (folder / "templates").mkdir(parents=True)
        (folder / "Chart.yaml").write_text(chart_yaml(chart))
        (folder / "templates" / "cm.yaml").write_text(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}\n"
        )
        folders.append(str(folder))
    with ExitStack() as stack:
        runner, _ = build_worker_runner(settings, QueueChoice(REDIS_URL, name), stack)
        stack.callback(runner.close)
        renderer = runner.context.renderers.get()
        assert isinstance(renderer, QueueRenderer)
        assert (renderer.options.min_renders, renderer.queue.name) == (2, f"{name}-renders")
        outcomes = renderer.render_many([RenderRequest(f) for f in folders])
    assert [o.request.chart_dir for o in outcomes] == folders
    assert [o.manifests[f"{c}/templates/cm.yaml"] for c, o in zip("abc", outcomes)] == [
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {c}\n" for c in "abc"
    ]
    assert len(renderer.queue) == 0 and _finished_batches(connection, name) == 0
