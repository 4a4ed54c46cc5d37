#!/usr/bin/env python3
"""A review reaching every chart of a platform repository, its renders spread over 1, 2 and 4
`aftershock worker --renders-only` processes on a loopback Redis, against the same review rendered
in its own process (issue 35).

The repository is a clone of the sapcc corpus (or `--repo`), with one synthetic commit on top that
adds a key to every chart's values.yaml (a new one where a chart has none), so the review reaches
every chart and renders each at both refs. Each configuration reviews that commit in a child process
(`review_change`, no tests, no render cache), with the workers started beforehand (each its own
process, on a queue of this run's own) and stopped after; its CPU is every process's (the review,
the workers, their Helm render processes: `getrusage(RUSAGE_CHILDREN)` once all are reaped), its
wall the review's. Spread runs render steps of at least `--min-renders` renders on the workers and,
by default, none in the review's process (`--help-while-waiting` lets it take batches too). Each
document (render seconds left out) must equal the local one's.

    python benchmarks/bench_spread.py [--repo CLONE | --bundle PATH] [--workers 1 2 4]
        [--redis redis://127.0.0.1:6379/0] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUNDLE = ROOT.parent / "shared" / "corpus" / "sapcc-helm-charts.bundle"
SYNTHETIC_KEY = "aftershockBenchmarkSpread: every-chart\n"
REVIEW = """
import json, sys, collections
from pathlib import Path
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.interface import WrappingRenderer
from aftershock.report.canonical import review_document
repo, base, head, out, local_workers, url, name, helps, min_renders = sys.argv[1:]
steps = []
class Counted(WrappingRenderer):
    def render_many(self, requests, progress=None, deadline=None):
        steps.append(len(requests))
        return self.inner.render_many(requests, progress, deadline)
request = ReviewRequest(repo=Path(repo), base=base, head=head, run_tests=False,
                        deadline_seconds=7200.0)
with SdkRenderer(workers=int(local_workers)) as local:
    renderer = local
    if url:
        from aftershock.server.queue.render_batches import RenderSpec
        from aftershock.server.queue.render_queue import QueueRenderer, SpreadOptions
        from aftershock.server.queue.rq_jobs import connect
        options = SpreadOptions(name, min_renders=int(min_renders), help_while_waiting=helps == "1")
        renderer = QueueRenderer(local, connect(url), RenderSpec("sdk", 60.0, 1024), options)
    result = review_change(request, Counted(renderer))
doc = review_document(result.review, result.judgement)
doc["render_steps"] = steps
doc["timings"] = [[t.stage, t.wall_seconds, t.cpu_seconds] for t in result.timings]
Path(out).write_text(json.dumps(doc))
"""


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    )
    return done.stdout


def synthetic_commit(repo: Path) -> str:
    """Adds a key to every chart's values.yaml and commits; returns the commit."""
    charts = [p for p in _git(repo, "ls-files").splitlines() if p.endswith("/Chart.yaml")]
    for chart in charts:
        values = repo / chart.rsplit("/", 1)[0] / "values.yaml"
        text = values.read_text(encoding="utf-8") if values.exists() else ""
        if text and not text.endswith("\n"):
            text += "\n"
        values.write_text(text + SYNTHETIC_KEY, encoding="utf-8")
    _git(repo, "add", "-A")
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com"}
    env |= {"GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "-m", "bench: every chart's values"],
        check=True,
        env=env,
    )
    return _git(repo, "rev-parse", "HEAD").strip()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start_workers(count: int, url: str, name: str) -> list[subprocess.Popen[bytes]]:
    """`count` render-only workers, returned once each listens."""
    from redis import Redis
    from rq import Queue, Worker

    from aftershock.server.queue.render_jobs import render_queue_name

    names = [f"{name}-w{n}" for n in range(count)]
    code = "from aftershock.cli.worker import worker_command; worker_command()"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", code, "--queue", url, "--queue-name", name, "--name", worker]
            + ["--renders-only"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for worker in names
    ]
    connection = Redis.from_url(url)
    queue = Queue(render_queue_name(name), connection=connection)
    for _ in range(1200):
        if set(names) <= {w.name for w in Worker.all(connection=connection, queue=queue)}:
            break
        time.sleep(0.05)
    else:
        raise RuntimeError("the render workers did not start")
    connection.close()
    return workers


def stop_workers(workers: list[subprocess.Popen[bytes]]) -> None:
    for worker in workers:
        worker.send_signal(signal.SIGTERM)
    for worker in workers:
        worker.wait(60)


def run(
    repo: Path, head: str, out: Path, workers: int, args: argparse.Namespace, *, local: int = 1
) -> dict[str, Any]:
    """One configuration: `workers` render workers (0: the review renders alone with `local`)."""
    name = f"bench-spread-{uuid.uuid4().hex[:8]}"
    cpu_before = _children_cpu()
    started = start_workers(workers, args.redis, name) if workers else []
    cpu_started = _children_cpu()
    command = [sys.executable, "-c", REVIEW, str(repo), f"{head}^", head, str(out), str(local)]
    command += [args.redis if workers else "", name, "1" if args.help_while_waiting else "0"]
    command += [str(args.min_renders)]
    wall = time.monotonic()
    subprocess.run(command, check=True)
    wall = time.monotonic() - wall
    cpu_review = _children_cpu() - cpu_started
    stop_workers(started)
    cpu = _children_cpu() - cpu_before
    doc = json.loads(out.read_text())
    spread = [n for n in doc["render_steps"] if workers and n >= args.min_renders]
    return {
        "workers": workers,
        "local_render_processes": local,
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(cpu, 2),
        "cpu_review_process_seconds": round(cpu_review, 2),
        "renders": sum(doc["render_steps"]),
        "spread_renders": sum(spread),
        "stages": {stage: [round(wall, 1), round(cpu, 1)] for stage, wall, cpu in doc["timings"]},
        "doc": doc,
    }


# Left out of the comparison: render seconds, the benchmark's own counts and timings, and how many
# fields a chart's two renders of one input disagreed on (a clock or a random value).
_NOT_COMPARED = ("seconds", "render_steps", "timings", "unstable_fields")


def comparable(doc: Any) -> Any:
    """The document without what differs from run to run whatever renders it."""
    if isinstance(doc, dict):
        return {k: comparable(v) for k, v in doc.items() if k not in _NOT_COMPARED}
    if isinstance(doc, list):
        return [comparable(v) for v in doc]
    return doc


def differing_charts(doc: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """The charts whose reviews differ from the expected document's (compared as `comparable`)."""
    before = {r["id"]: r for r in expected["chart_reviews"]}
    after = {r["id"]: comparable(r) for r in doc["chart_reviews"]}
    differ = {i for i in set(before) | set(after) if before.get(i) != after.get(i)}
    return sorted({(before.get(i) or after[i])["chart"] for i in differ})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument("--local", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeat", type=int, default=1, help="rounds, each of every configuration")
    parser.add_argument("--keep", type=Path, help="a folder to keep each run's document in")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--min-renders", type=int, default=64)
    parser.add_argument("--help-while-waiting", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    configs = [(0, n) for n in args.local] + [(n, 1) for n in args.workers]
    rows: list[dict[str, Any]] = []
    expected: dict[str, Any] | None = None
    with tempfile.TemporaryDirectory(prefix="bench-spread-") as work:
        repo = Path(work) / "repo"
        subprocess.run(["git", "clone", "-q", str(args.repo or args.bundle), str(repo)], check=True)
        head = synthetic_commit(repo)
        docs = args.keep or Path(work)
        docs.mkdir(parents=True, exist_ok=True)
        for round_ in range(args.repeat):
            for workers, local in configs:
                kind = f"spread-{workers}" if workers else f"local-{local}"
                out = docs / f"{round_}-{kind}.json"
                row = run(repo, head, out, workers, args, local=local)
                doc = row.pop("doc")
                expected = expected or comparable(doc)
                row |= {"round": round_, "findings": len(doc["findings"]["items"])}
                row["identical"] = comparable(doc) == expected
                row["differing_charts"] = differing_charts(doc, expected)
                row["charts_rendered"] = sum(1 for c in doc["affected_charts"] if c.get("rendered"))
                rows.append(row)
                print(json.dumps(row), flush=True)
    return report(rows, configs, args.json)


def report(rows: list[dict[str, Any]], configs: list[tuple[int, int]], path: Path | None) -> int:
    """Per configuration, the median wall and CPU over the rounds and the ratios to the first."""
    summary = []
    for workers, local in configs:
        own = [r for r in rows if r["workers"] == workers and r["local_render_processes"] == local]
        summary.append(
            {
                "workers": workers,
                "local_render_processes": local,
                "wall_seconds": statistics.median(r["wall_seconds"] for r in own),
                "cpu_seconds": statistics.median(r["cpu_seconds"] for r in own),
                "cpu_review_process_seconds": statistics.median(
                    r["cpu_review_process_seconds"] for r in own
                ),
                "identical": sum(1 for r in own if r["identical"]),
                "runs": len(own),
                "differing_charts": sorted({c for r in own for c in r["differing_charts"]}),
            }
        )
    first = summary[0]
    for row in summary:
        row["wall_speedup"] = round(first["wall_seconds"] / row["wall_seconds"], 2)
        row["cpu_ratio"] = round(row["cpu_seconds"] / first["cpu_seconds"], 2)
        print(json.dumps(row), flush=True)
    print(json.dumps({"cpus": os.cpu_count(), "load_average": os.getloadavg()}))
    if path is not None:
        path.write_text(json.dumps({"summary": summary, "runs": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
