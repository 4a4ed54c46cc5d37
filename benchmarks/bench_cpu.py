#!/usr/bin/env python3
"""What a review of a one-chart change costs, in CPU seconds, against its floor (issue 35).

Over the newest first-parent commits of a platform repository (by default the sapcc corpus) whose
review reaches exactly one chart, each commit `C^..C` is reviewed by the CLI in a child process
(`--no-state --no-tests --render-cache off --profile`); its CPU is the child's and its children's
(git, the render workers, and any process left running at its end, which this one adopts and
reaps), from `getrusage(RUSAGE_CHILDREN)`, so a loaded machine's wall clock does not enter. Per review the stage timings the pipeline records (`timings`) are kept too.

The children run with compiled bytecode, as an installed package does (pip compiles it on install):
each build's sources are compiled once into a private cache before the first review, so a machine
that sets `PYTHONDONTWRITEBYTECODE` does not charge every review for compiling ~800 modules.

The floor of a review is what any reviewer of the change must do: `git diff` of the two commits,
and the reached chart read out of git (`git archive`) and rendered once at each ref by the same
embedded Helm in one worker process.

With `--baseline-src DIR` (another checkout's `src`), each commit is reviewed by both builds,
interleaved, and the findings of the two are compared (fingerprints, severities, verdicts).

    python benchmarks/bench_cpu.py [--repo CLONE | --bundle PATH] [--commits 30] [--scan 120]
        [--baseline-src DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUNDLE = ROOT.parent / "shared" / "corpus" / "sapcc-helm-charts.bundle"
FLOOR = """
import subprocess, sys, tarfile, io, tempfile
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.interface import RenderRequest
repo, base, head, chart = sys.argv[1:5]
subprocess.run(["git", "-C", repo, "diff", base, head], capture_output=True, check=True)
with tempfile.TemporaryDirectory() as work, SdkRenderer(workers=1) as renderer:
    requests = []
    for ref in (base, head):
        data = subprocess.run(["git", "-C", repo, "archive", ref, "--", chart],
                              capture_output=True, check=True).stdout
        tarfile.open(fileobj=io.BytesIO(data)).extractall(f"{work}/{ref}")
        requests.append(RenderRequest(f"{work}/{ref}/{chart}"))
    renderer.render_many(requests)
"""


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def _child_cpu(command: Sequence[str], env: dict[str, str]) -> tuple[float, int]:
    """CPU seconds of a child process and everything it ran, and its exit status. A process it left
    running when it ended (an orphan) is this one's to reap, and its CPU counts too (Linux)."""
    _adopt_orphans()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return cpu, done.returncode


def _adopt_orphans() -> None:
    """Make this process the reaper of its descendants' orphans (prctl PR_SET_CHILD_SUBREAPER)."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)


def python_env(src: Path, pycache: Path) -> dict[str, str]:
    """A child's environment: `src` importable, its bytecode compiled once into `pycache`."""
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONPYCACHEPREFIX": str(pycache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not pycache.exists():
        command = [sys.executable, "-m", "compileall", "-q", str(src), *_dependency_folders()]
        subprocess.run(command, env=env, check=True, capture_output=True)
    return env


def _dependency_folders() -> list[str]:
    """Where the installed packages live (compiled alike, as pip does on install)."""
    import sysconfig

    return [sysconfig.get_paths()["purelib"]]


def review(
    repo: Path, commit: str, env: dict[str, str], profile: bool = True
) -> tuple[float, dict[str, Any] | None]:
    with tempfile.TemporaryDirectory(prefix="bench-cpu-") as work:
        output = Path(work) / "review.json"
        command = [
            sys.executable, "-c", "from aftershock.cli.main import main; main()",
            "review", "--repo", str(repo), "--base", f"{commit}^", "--head", commit,
            "--no-state", "--no-tests", "--render-cache", "off", "--format", "json",
            "--output", str(output),
        ]  # fmt: skip
        if profile:  # an older build has no --profile
            command.append("--profile")
        cpu, status = _child_cpu(command, env)
        if status not in (0, 3, 4) or not output.exists():
            return cpu, None
        return cpu, json.loads(output.read_text())


def floor(repo: Path, commit: str, chart: str, env: dict[str, str]) -> float:
    command = [sys.executable, "-c", FLOOR, str(repo), f"{commit}^", commit, chart]
    return _child_cpu(command, env)[0]


def judged(doc: dict[str, Any] | None) -> Any:
    """What two builds must agree on: each finding and each verdict."""
    if doc is None:
        return None
    findings = doc.get("findings") or {}
    return (
        sorted((f["fingerprint"], f["severity"]) for f in findings.get("items", [])),
        sorted((k, v["level"]) for k, v in (findings.get("verdicts") or {}).items()),
    )


def one_chart_commits(repo: Path, wanted: int, scan: int) -> list[str]:
    """First-parent commits whose diff touches files of exactly one chart folder (by Chart.yaml)."""
    folders = {
        p.rsplit("/", 1)[0]
        for p in _git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
        if p.endswith("/Chart.yaml")
    }
    found = []
    for commit in _git(
        repo, "log", "--first-parent", "--no-merges", "--format=%H", f"-{scan}"
    ).split():
        touched = set()
        for path in _git(repo, "diff", "--name-only", f"{commit}^", commit).splitlines():
            parts = path.split("/")
            owners = ["/".join(parts[:n]) for n in range(len(parts) - 1, 0, -1)]
            touched.add(next((o for o in owners if o in folders), ""))
        if len(touched) == 1 and "" not in touched:
            found.append(commit)
        if len(found) >= wanted:
            break
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--scan", type=int, default=200)
    parser.add_argument("--baseline-src", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-cpu-repo-") as work:
        repo = args.repo
        if repo is None:
            repo = Path(work) / "repo"
            subprocess.run(["git", "clone", "-q", str(args.bundle), str(repo)], check=True)
        rows = []
        env = python_env(ROOT / "src", Path(work) / "pycache")
        old_env = args.baseline_src and python_env(args.baseline_src, Path(work) / "pycache-old")
        for commit in one_chart_commits(repo, args.commits, args.scan):
            cpu, doc = review(repo, commit, env)
            reached = [a["chart"] for a in (doc or {}).get("affected_charts", [])]
            if len(reached) != 1:
                continue  # a library or a release reaches more: not a one-chart review
            row: dict[str, Any] = {"commit": commit[:10], "cpu": round(cpu, 3)}
            row["floor"] = round(floor(repo, commit, reached[0], env), 3)
            row["stages"] = {t["stage"]: t["cpu_seconds"] for t in (doc or {}).get("timings", [])}
            if old_env:
                before, old = review(repo, commit, old_env, profile=False)
                row["baseline_cpu"] = round(before, 3)
                row["same_findings"] = judged(old) == judged(doc)
            rows.append(row)
            print(json.dumps(row), flush=True)
    summary = _summary(rows)
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "reviews": rows}, indent=2))
    return 0


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if not rows:
        return {"reviews": 0}
    cpu = statistics.median(r["cpu"] for r in rows)
    floors = statistics.median(r["floor"] for r in rows)
    stages = {
        name: round(statistics.median(r["stages"].get(name, 0.0) for r in rows), 3)
        for name in rows[0]["stages"]
    }
    summary: dict[str, Any] = {
        "reviews": len(rows),
        "median_cpu_seconds": round(cpu, 3),
        "median_floor_cpu_seconds": round(floors, 3),
        "median_cpu_over_floor": round(statistics.median(r["cpu"] / r["floor"] for r in rows), 2),
        "median_stage_cpu_seconds": stages,
        "target_cpu_seconds": 1.5,
        "target_over_floor": 3.0,
    }
    if "baseline_cpu" in rows[0]:
        summary["median_baseline_cpu_seconds"] = round(
            statistics.median(r["baseline_cpu"] for r in rows), 3
        )
        summary["same_findings"] = f"{sum(r['same_findings'] for r in rows)}/{len(rows)}"
    return summary


if __name__ == "__main__":
    sys.exit(main())
