"""The bounds on a render's process: memory (the worker is killed at its limit and replaced) and its
parent's life (workers die with a killed reviewer). Real SDK workers, real git repositories."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.interface import RenderRequest
from charts import app_chart
from gitrepo import commit, make_repo

PROJECT = Path(__file__).resolve().parents[2]
# Doubles a string n times: 2**n * 16 bytes (n = 30 would be 16 GiB).
DOUBLING = (
    '{{- $s := "xxxxxxxxxxxxxxxx" }}\n'
    "{{- range until (int .Values.doublings) }}{{ $s = print $s $s }}{{ end }}\n"
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {size: "{{ len $s }}"}\n'
)
# Hours of CPU in constant memory: nested empty loops.
HANGING = "{{- range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\nkind: Never\n"


def _doubling_repo(tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("charts/web", "web"), "feat: web")
    commit(
        repo,
        {
            "charts/web/templates/big.yaml": DOUBLING,
            "charts/web/values.yaml": "replicas: 2\nimage: nginx:1.27.0\nmode: fast\ndoublings: 30\n",
        },
        "feat: a big config map",
    )
    return repo, base


def test_string_doubling_is_not_reviewed_and_stays_under_the_memory_limit(tmp_path):
    repo, base = _doubling_repo(tmp_path)
    started = time.monotonic()
    with SdkRenderer(workers=1) as renderer:  # the default limit: 1024 MiB
        review = run_review(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
        (after,) = renderer.render_many(
            [RenderRequest(str(repo / "charts/web"), values={"doublings": 3})]
        )  # a fresh worker
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert peak_mib <= 1024, f"a render worker peaked at {peak_mib:.0f} MiB"
    assert time.monotonic() - started < 30
    (chart,) = review.chart_reviews
    assert chart.outcome is ChartOutcome.NOT_REVIEWED
    reasons = {gap.reason for gap in review.not_reviewed}
    assert "render exceeded 1024 MiB of memory" in reasons, reasons
    assert after.error is None  # the worker killed at the limit was replaced


def test_a_lower_memory_limit_is_the_one_reported(tmp_path):
    chart = tmp_path / "big"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: big\nversion: 0.1.0\n")
    (chart / "templates" / "big.yaml").write_text(DOUBLING)
    with SdkRenderer(workers=1, max_memory_mib=256) as renderer:
        small, big, again = renderer.render_many(
            [
                RenderRequest(str(chart), values={"doublings": 10}),
                RenderRequest(str(chart), values={"doublings": 26}),
                RenderRequest(str(chart), values={"doublings": 12}),
            ]
        )
    assert small.error is None and again.error is None
    assert big.error == "render exceeded 256 MiB of memory"


def _workers_of(pid: int) -> set[int]:
    """Live (not zombie) sdk_worker processes whose parent is `pid`."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if (
                int(stat[1]) == pid
                and stat[0] != "Z"
                and b"aftershock.render.helm.sdk_worker" in cmdline
            ):
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_workers_die_with_a_killed_review(tmp_path):
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("charts/web", "web"), "feat: web")
    commit(repo, {"charts/web/templates/hang.yaml": HANGING}, "feat: a template that never ends")
    env = dict(os.environ, PYTHONPATH=str(PROJECT / "src"))
    review = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "aftershock.cli",
            "review",
            "--repo",
            str(repo),
            "--base",
            base,
            "--no-state",
            "--render-cache",
            "off",
            "--workers",
            "2",
            "--format",
            "json",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        end = time.monotonic() + 60
        # equal inputs render once, so how many workers hang at a time depends on the batch
        while not (workers := _workers_of(review.pid)) and time.monotonic() < end:
            time.sleep(0.2)
        assert workers, "the review started no render workers"
        time.sleep(1.0)  # the hanging template is rendering by now
        review.send_signal(signal.SIGKILL)
        review.wait()
        end = time.monotonic() + 5
        while any(_alive(pid) for pid in workers) and time.monotonic() < end:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers), (
            "render workers outlived their killed review"
        )
    finally:
        review.kill()
        review.wait()


def test_the_lifeline_alone_ends_a_process_when_its_write_end_closes(tmp_path):
    """The fallback where PR_SET_PDEATHSIG is not there: only the lifeline pipe (no prctl here)."""
    read_end, write_end = os.pipe()
    watcher = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, threading, time\n"
            "from aftershock.render.helm.process_bounds import watch_lifeline\n"
            "threading.Thread(target=watch_lifeline, args=(int(sys.argv[1]),), daemon=True).start()\n"
            "time.sleep(120)\n",
            str(read_end),
        ],
        pass_fds=(read_end,),
        env=dict(os.environ, PYTHONPATH=str(PROJECT / "src")),
    )
    os.close(read_end)
    try:
        time.sleep(1.0)
        assert watcher.poll() is None  # alive while the lifeline holds
        os.close(write_end)
        assert watcher.wait(timeout=10) == 1
    finally:
        watcher.kill()
        watcher.wait()
