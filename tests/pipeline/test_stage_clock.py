"""The timings a review records of its own stages: a fake clock for the arithmetic, a real review for
the names and order."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from aftershock.model.timings import StageTiming
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.pipeline.stage_clock import StageClock, process_tree_cpu
from charts import chart_yaml
from gitrepo import commit, make_repo


def test_a_nested_stage_is_timed_apart_from_the_stage_around_it():
    now = [0.0]
    clock = StageClock(wall=lambda: now[0], cpu=lambda: now[0] / 2)
    with clock.stage("render"):
        now[0] += 1.0
        with clock.stage("contexts"):
            now[0] += 3.0
        now[0] += 1.0
    with clock.stage("contexts"):  # entered again: adds to its total
        now[0] += 2.0
    assert clock.timings() == (
        StageTiming("render", 2.0, 1.0),
        StageTiming("contexts", 5.0, 2.5),
    )


def test_a_stage_that_raises_is_still_timed():
    now = [0.0]
    clock = StageClock(wall=lambda: now[0], cpu=lambda: 0.0)
    with pytest.raises(ValueError), clock.stage("judge"):
        now[0] += 4.0
        raise ValueError("a rule failed")
    assert clock.timings() == (StageTiming("judge", 4.0, 0.0),)


def test_the_process_tree_cpu_counts_a_running_child(tmp_path):
    busy = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\nimport sys; sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
    )
    try:
        before = process_tree_cpu()
        for _ in range(200):  # until the child has burnt its CPU, still running
            if process_tree_cpu() - before >= 0.25:
                break
            time.sleep(0.02)
        assert process_tree_cpu() - before >= 0.25 and busy.poll() is None
    finally:
        busy.communicate(b"")


def test_a_review_records_its_stages_in_the_order_they_ran(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {
        "apps/web/Chart.yaml": chart_yaml("web"),
        "apps/web/values.yaml": "mode: fast\n",
        "apps/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"
        "data: {mode: {{ .Values.mode | quote }}}\n",
    }
    base = commit(repo, files, "feat: web")
    head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
    result = review_change(ReviewRequest(repo=repo, base=base, head=head), renderer)
    assert [t.stage for t in result.timings] == [
        "open",
        "charts",
        "gitops",
        "render",
        "tests",
        "provenance",
        "probes",
        "judge",
    ]
    assert all(t.wall_seconds >= 0 and t.cpu_seconds >= 0 for t in result.timings)
    assert sum(t.cpu_seconds for t in result.timings) > 0
