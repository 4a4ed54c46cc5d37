"""The platform benchmark: what share of the charts a real platform monorepo's changes reach render.

It clones a platform repository nobody here wrote (by default `../shared/corpus/sapcc-helm-charts.bundle`),
takes its last `--commits` first-parent commits that touch a chart folder, and reviews each as
`C^..C` with the CLI in a child process (`--no-state`, `--render-cache off`, JSON). Per review it
reads, from the canonical JSON:

- the reached charts (`affected_charts`) and, from `chart_reviews` (default scenario), whether each
  rendered whole at both refs (at every ref where it exists), whether it rendered at each ref in some
  form (whole, template by template, or without a dependency not at hand), and whether it rendered at
  all (at some ref);
- whether the review ended partial (exit status 3);
- its wall time and peak RSS (`ru_maxrss` of the child's process tree: the largest process, the reviewer
  or one render worker, in MiB).

With `--baseline-src DIR` (the `src` folder of another aftershock checkout, e.g. a worktree at an
earlier commit) every commit is reviewed by both, interleaved, so the two are measured in one run on
the same machine load; ratios compare medians of the same run.

    python benchmarks/bench_platform.py [--bundle PATH | --repo CLONE] [--commits 30 | --whole-tree]
        [--baseline-src DIR] [--json FILE] [--timeout 900] [--tests] [--chart-cache DIR]

With `--whole-tree` the one review is of the tree at HEAD against an empty commit: every chart is
reached (added), which measures what share of all the repository's charts render, not only of those
recent commits reach. A library chart or a subchart (under a parent's charts/, or vendored in its
folder as a `file://` dependency) renders inside the charts that include it: it counts as rendered
whole when one of them did (`charts_through_parents` says how many were counted so).

With `--chart-cache DIR` the reviews render remote dependencies from that folder of archives
(`<name>-<version>.tgz`, as `aftershock charts fetch` fills it): the share a user with the charts
fetched would see.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUNDLE = ROOT.parent / "shared" / "corpus" / "sapcc-helm-charts.bundle"


@dataclass
class ReviewFigures:
    """One review of one commit by one build of aftershock."""

    commit: str
    build: str
    exit_status: int
    seconds: float
    peak_rss_mib: float
    reached: int = 0
    rendered_both: int = 0
    rendered_each: int = (
        0  # at every ref where it exists: whole, by template or without a dependency
    )
    rendered_any: int = 0
    partial_charts: int = 0
    through_parents: int = 0  # reached charts rendered only inside the charts that include them
    not_rendered: list[str] = field(default_factory=list)
    # why each chart that rendered did not render whole: what it left out, and the first error
    not_whole: list[str] = field(default_factory=list)
    error: str = ""


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def chart_commits(repo: Path, count: int, start: str = "HEAD") -> list[str]:
    """The newest first-parent commits up to `start` whose change touches a file inside a chart folder."""
    found: list[str] = []
    for commit in _git(repo, "log", "--first-parent", "--format=%H", "-400", start).split():
        if len(found) >= count:
            break
        parents = _git(repo, "rev-list", "--parents", "-n1", commit).split()[1:]
        if not parents:
            continue
        changed = _git(repo, "diff", "--name-only", parents[0], commit).split("\n")
        folders = _chart_folders(repo, commit) | _chart_folders(repo, parents[0])
        if any(_inside(path, folders) for path in changed if path):
            found.append(commit)
    return found


def _chart_folders(repo: Path, commit: str) -> set[str]:
    listing = _git(repo, "ls-tree", "-r", "--name-only", commit).split("\n")
    return {p[: -len("/Chart.yaml")] for p in listing if p.endswith("/Chart.yaml")}


def _inside(path: str, folders: set[str]) -> bool:
    parts = path.split("/")
    return any("/".join(parts[:n]) in folders for n in range(1, len(parts)))


def review(
    repo: Path, change: tuple[str, str], src: Path, build: str, args: argparse.Namespace
) -> ReviewFigures:
    """Review `base..head` with the aftershock whose sources are `src`, in a child process."""
    base, commit = change
    with tempfile.TemporaryDirectory(prefix="bench-platform-") as work:
        output = Path(work) / "review.json"
        command = [
            sys.executable, "-c", "from aftershock.cli.main import main; main()",
            "review", "--repo", str(repo), "--base", base, "--head", commit,
            "--format", "json", "--output", str(output), "--no-state", "--render-cache", "off",
        ]  # fmt: skip
        if not args.tests:
            command.append("--no-tests")
        if args.chart_cache:
            command += ["--chart-cache", str(args.chart_cache)]
        if args.whole_tree:
            command += ["--deadline", str(args.timeout), "--max-renders", "50000"]
        env = {**os.environ, "PYTHONPATH": str(src)}
        start = time.monotonic()
        with tempfile.TemporaryFile() as stderr:
            process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
            status, peak = _wait(process, args.timeout)
            seconds = time.monotonic() - start
            stderr.seek(0)
            text = stderr.read().decode("utf-8", "replace")
        figures = ReviewFigures(commit[:10], build, status, round(seconds, 2), peak)
        if status not in (0, 3, 4) or not output.exists():
            figures.error = (text.strip().splitlines() or ["?"])[-1]
            return figures
        return _read(json.loads(output.read_text()), figures)


def _wait(process: subprocess.Popen[bytes], timeout: float) -> tuple[int, float]:
    """Exit status and peak RSS (MiB) of the child: `wait4`'s ru_maxrss is the largest of the child
    and the descendants it waited for (its render workers)."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode, round(usage.ru_maxrss / 1024, 1)
        if time.monotonic() > deadline:
            process.kill()
        time.sleep(0.05)


def _read(document: dict[str, Any], figures: ReviewFigures) -> ReviewFigures:
    """The render shares of one review's canonical JSON."""
    reached = sorted({a["chart"] for a in document.get("affected_charts", [])})
    by_chart: dict[str, list[dict[str, Any]]] = {}
    for entry in document.get("chart_reviews", []):
        if entry.get("scenario", "default") == "default":
            by_chart.setdefault(entry["chart"], []).append(entry)
    figures.reached = len(reached)
    carriers = _carriers(document, set(reached))
    for chart in reached:
        # a library or subchart renders only inside the charts that include it: theirs are its renders
        own = chart in by_chart
        renders = [chart] if own else [c for c in carriers.get(chart, ()) if c in by_chart]
        entries = [e for c in renders for e in by_chart[c]]
        figures.through_parents += not own and bool(renders)
        whole = [all(_whole(e, "base") and _whole(e, "head") for e in by_chart[c]) for c in renders]
        each_ref = [_each(by_chart[c]) for c in renders]
        both = bool(renders) and (all(whole) if own else any(whole))
        each = bool(renders) and (all(each_ref) if own else any(each_ref))
        some = any(_some(e, side) for e in entries for side in ("base", "head"))
        figures.rendered_both += both
        figures.rendered_each += each
        figures.rendered_any += some
        figures.partial_charts += some and not both
        if not some:
            figures.not_rendered.append(chart)
        if not both:
            figures.not_whole.append(_why_not_whole(chart, entries))
    return figures


def _each(entries: list[dict[str, Any]]) -> bool:
    """Rendered at each ref in some form (or absent there)."""
    return all(
        _some(e, side) or (e.get(side) or {}).get("status") == "absent"
        for e in entries
        for side in ("base", "head")
    )


def _carriers(document: dict[str, Any], reached: set[str]) -> dict[str, list[str]]:
    """chart -> the reached charts that render it: the parent it is embedded in, and (transitively)
    every reached chart whose dependency resolves to it."""
    direct: dict[str, set[str]] = {}
    for chart in document.get("charts", []):
        if chart.get("embedded_in"):
            direct.setdefault(chart["path"], set()).add(chart["embedded_in"])
        for dep in chart.get("dependencies", []):
            if dep.get("resolved_path"):
                direct.setdefault(dep["resolved_path"], set()).add(chart["path"])
    found: dict[str, list[str]] = {}
    for chart in reached:
        seen, queue = set(), list(direct.get(chart, ()))
        while queue:
            current = queue.pop()
            if current not in seen:
                seen.add(current)
                queue += direct.get(current, ())
        found[chart] = sorted(c for c in seen if c in reached)
    return found


def _why_not_whole(chart: str, entries: list[dict[str, Any]]) -> str:
    """`chart: without dep; template t: error` (the first of each), to read what a platform lacks."""
    parts = [chart]
    for entry in entries[:1]:
        for side in ("base", "head"):
            render = entry.get(side) or {}
            if render.get("status") == "failed":
                parts.append(f"{side} failed: {' '.join(str(render.get('error')).split())[:200]}")
        deps = [d["dependency"] for d in entry.get("dependencies_not_rendered", [])]
        if deps:
            parts.append(f"without {', '.join(deps)}")
        for failure in entry.get("templates_not_rendered", [])[:3]:
            error = failure.get("head_error") or failure.get("base_error") or ""
            parts.append(f"template {failure['template']}: {' '.join(error.split())[:160]}")
        fixed = entry.get("templates_fixed_at_head", [])
        if fixed:
            parts.append(f"fixed at head: {', '.join(t['template'] for t in fixed)[:160]}")
    return "; ".join(parts)


def _whole(entry: dict[str, Any], side: str) -> bool:
    """Rendered whole at `side` (or absent there: a chart added or removed renders at one ref)."""
    render = entry.get(side) or {}
    status = render.get("status")
    return status == "absent" or (status == "ok" and not _left_out(entry, side))


def _some(entry: dict[str, Any], side: str) -> bool:
    render = entry.get(side) or {}
    return render.get("status") == "ok" or bool(render.get("templates_rendered"))


def _left_out(entry: dict[str, Any], side: str) -> bool:
    """Templates or dependencies the render left out (by template, or without a dependency not at
    hand): not a whole render."""
    render = entry.get(side) or {}
    return bool(
        render.get("templates_not_rendered")
        or entry.get("templates_not_rendered")
        or entry.get("dependencies_not_rendered")
        or (side == "base" and entry.get("templates_fixed_at_head"))  # left out at base
    )


def summarize(rows: Sequence[ReviewFigures]) -> dict[str, Any]:
    done = [r for r in rows if not r.error]
    reached = sum(r.reached for r in done)
    return {
        "reviews": len(rows),
        "reviews_failed": len(rows) - len(done),
        "reviews_partial": sum(r.exit_status == 3 for r in done),
        "charts_reached": reached,
        "charts_through_parents": sum(r.through_parents for r in done),
        "rendered_both_share": round(sum(r.rendered_both for r in done) / reached, 4)
        if reached
        else None,
        "rendered_each_share": round(sum(r.rendered_each for r in done) / reached, 4)
        if reached
        else None,
        "rendered_any_share": round(sum(r.rendered_any for r in done) / reached, 4)
        if reached
        else None,
        "median_seconds": round(statistics.median(r.seconds for r in rows), 2) if rows else None,
        "max_seconds": max((r.seconds for r in rows), default=None),
        "peak_rss_mib": max((r.peak_rss_mib for r in rows), default=None),
    }


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument("--repo", type=Path, help="an existing clone (instead of --bundle)")
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument(
        "--start",
        default="HEAD",
        help="take the commits from this revision back (an older window: a set no one tuned for)",
    )
    parser.add_argument("--baseline-src", type=Path, help="src folder of the build to compare with")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per review")
    parser.add_argument("--tests", action="store_true", help="run the charts' suites too")
    parser.add_argument(
        "--chart-cache",
        type=Path,
        help="a chart cache folder (as `charts fetch` fills) to render from",
    )
    parser.add_argument(
        "--whole-tree",
        action="store_true",
        help="review the whole tree at HEAD as added (every chart reached) instead of --commits",
    )
    parser.add_argument("--json", type=Path)
    return parser.parse_args()


EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def _changes(repo: Path, args: argparse.Namespace) -> list[tuple[str, str]]:
    """(base, head) pairs to review: each chart commit against its parent, or with --whole-tree the
    tree at HEAD against an empty commit (made in the clone), so every chart is reached."""
    if args.whole_tree:
        empty = _git(repo, "commit-tree", EMPTY_TREE, "-m", "empty").strip()
        return [(empty, _git(repo, "rev-parse", "HEAD").strip())]
    return [(f"{c}^", c) for c in chart_commits(repo, args.commits, args.start)]


def main() -> int:
    args = _arguments()
    with tempfile.TemporaryDirectory(prefix="bench-platform-repo-") as work:
        repo = args.repo
        if repo is None:
            if not args.bundle.exists():
                print(f"bench_platform: no corpus at {args.bundle}; pass --bundle or --repo")
                return 2
            repo = Path(work) / "repo"
            subprocess.run(["git", "clone", "-q", str(args.bundle), str(repo)], check=True)
        changes = _changes(repo, args)
        builds = [("current", ROOT / "src")]
        if args.baseline_src:
            builds.insert(0, ("baseline", args.baseline_src.resolve()))
        rows: dict[str, list[ReviewFigures]] = {name: [] for name, _ in builds}
        for index, change in enumerate(changes, 1):
            for name, src in builds:
                figures = review(repo, change, src, name, args)
                rows[name].append(figures)
                if args.json:
                    _write(args.json, rows)
                print(
                    f"[{index}/{len(changes)}] {name} {figures.commit} exit {figures.exit_status} "
                    f"{figures.seconds:.1f}s rss {figures.peak_rss_mib} MiB reached {figures.reached} "
                    f"both {figures.rendered_both} each {figures.rendered_each} any {figures.rendered_any} "
                    f"{figures.error}",
                    flush=True,
                )
    result: dict[str, Any] = {name: summarize(found) for name, found in rows.items()}
    if "baseline" in result and result["baseline"]["median_seconds"]:
        result["median_seconds_ratio"] = round(
            result["current"]["median_seconds"] / result["baseline"]["median_seconds"], 3
        )
    print(json.dumps(result, indent=2))
    if args.json:
        _write(args.json, rows, result)
    return 0


def _write(
    path: Path, rows: dict[str, list[ReviewFigures]], result: dict[str, Any] | None = None
) -> None:
    """The figures so far (after every review, so a run stopped early keeps what it measured)."""
    detail = {name: [asdict(r) for r in found] for name, found in rows.items()}
    summary = result or {name: summarize(found) for name, found in rows.items()}
    path.write_text(json.dumps({"summary": summary, "reviews": detail}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
