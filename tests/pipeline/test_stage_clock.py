"""The timings a review records of its own stages: a fake clock for the arithmetic, a real review for
the names and order."""

from __future__ import annotations

import subprocess
import sys

import pytest

from aftershock.model.timings import StageTiming
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.pipeline.stage_clock import StageClock, process_cpu, process_tree_cpu
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


BUSY_CHILD = """
import sys, time
sys.stdin.readline()  # go
start = time.process_time()
while time.process_time() - start < 0.3:
    pass
print("burnt", flush=True)
sys.stdin.readline()  # stay running until told to end
"""


def test_the_process_tree_cpu_counts_a_running_child():
    """A child still running (as a render worker is) counts with the tree, not with this process."""
    busy = subprocess.Popen(
        [sys.executable, "-c", BUSY_CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert busy.stdin is not None and busy.stdout is not None
    try:
        tree, own = process_tree_cpu(), process_cpu()
        busy.stdin.write("go\n")
        busy.stdin.flush()
        assert busy.stdout.readline() == "burnt\n"  # its 0.3 CPU-s are spent, and it still runs
        assert process_tree_cpu() - tree >= 0.25 and busy.poll() is None
        assert process_cpu() - own < 0.25  # not reaped: no CPU of it counted as this process's
    finally:
        busy.communicate("end\n")


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
