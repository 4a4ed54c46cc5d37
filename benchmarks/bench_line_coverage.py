#!/usr/bin/env python3
"""Benchmark: how many changed template lines a review ran, and whether it says so.

Usage: python benchmarks/bench_line_coverage.py REPO [REPO ...] [--commits N] [--json FILE]

Reviews the last N first-parent commits of each repository that change a chart template, each as
`C^..C` without tests, with the default scenario cap. Per repository it prints:
- lines: changed template lines of charts that rendered (added at head, removed at base);
- exercised: the share a render ran (traced) or whose text is in a rendered object (text);
- logic_only: lines with no literal text (`{{- with … }}`, a trim marker), and the share run;
- claimed_before: the share the literal-text check alone counted as exercised (logic-only lines
  counted whenever the template rendered: the check before traces), and of those, how many no
  render ran (false "exercised");
- complete_with_unrun: reviews that say complete while a changed line ran in no render (target 0),
  and complete_with_unrun_before: the same by the check before traces;
- default_is_defaults: charts whose default scenario is the chart's own defaults, of those whose
  defaults render (the context is the defaults unless a release or the configuration installs it).
Counts, not seconds: the figures do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from aftershock.diff.exercise import ChangedRun, changed_runs
from aftershock.model.contexts import ContextKind
from aftershock.model.review import Review
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.helm.sdk import SdkRenderer


def template_commits(repo: Path, count: int) -> list[str]:
    out = subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "log",
            "--first-parent",
            "--format=%H",
            "-n",
            "400",
            "--",
            "*/templates/*",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return [sha for sha in out if _has_parent(repo, sha)][:count]


def _has_parent(repo: Path, sha: str) -> bool:
    return (
        subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "-q", "--verify", f"{sha}^"],
            check=False,
            capture_output=True,
        ).returncode
        == 0
    )


def _runs(review: Review, repo: Path) -> list[ChangedRun]:
    """The review's changed runs that a render of a chart holding them reached (in changed_lines)."""
    shas = {"base": review.base.sha, "head": review.head.sha}

    def read(side: str, path: str) -> str | None:
        shown = subprocess.run(
            ["git", "-C", str(repo), "show", f"{shas[side]}:{path}"],
            check=False,
            capture_output=True,
        )
        return shown.stdout.decode("utf-8", "replace") if shown.returncode == 0 else None

    covered = _lines(review, exercised_only=False)
    return [
        run
        for run in changed_runs(review.files, {c.path for c in review.charts}, read)
        if (run.path, run.side, run.first) in covered
    ]


def _lines(review: Review, *, exercised_only: bool) -> set[tuple[str, str, int]]:
    return {
        (c.path, c.side.value, n)
        for c in review.changed_lines
        if c.exercised or not exercised_only
        for n in range(c.first, c.last + 1)
    }


def _before(review: Review, runs: list[ChangedRun]) -> tuple[int, int]:
    """(lines the literal-text check alone counted exercised, of those the lines no render ran)."""
    ran = _lines(review, exercised_only=True)
    claimed = wrong = 0
    for run in runs:
        if not run.words or _words_shown(review, run):
            lines = range(run.first, run.last + 1)
            claimed += len(lines)
            wrong += sum((run.path, run.side, n) not in ran for n in lines)
    return claimed, wrong


def _words_shown(review: Review, run: ChangedRun) -> bool:
    texts = [
        json.dumps(o.body, ensure_ascii=False)
        for r in review.chart_reviews
        for o in (r.head_objects if run.side == "head" else r.base_objects)
    ]
    return any(all(w in t for w in words) for words in run.words for t in texts)


def measure(repo: Path, shas: list[str], renderer: SdkRenderer) -> dict:
    totals = dict.fromkeys(
        (
            "lines",
            "exercised",
            "logic_only",
            "logic_only_run",
            "claimed_before",
            "claimed_before_unrun",
            "reviews",
            "complete_with_unrun",
            "complete_with_unrun_before",
            "charts_defaults_render",
            "default_is_defaults",
        ),
        0,
    )
    for sha in shas:
        review = review_change(
            ReviewRequest(repo=repo, base=f"{sha}^", head=sha, run_tests=False), renderer
        ).review
        totals["reviews"] += 1
        lines = sum(c.last - c.first + 1 for c in review.changed_lines)
        run = sum(c.last - c.first + 1 for c in review.changed_lines if c.exercised)
        totals["lines"] += lines
        totals["exercised"] += run
        runs = _runs(review, repo)
        claimed, wrong = _before(review, runs)
        totals["claimed_before"] += claimed
        totals["claimed_before_unrun"] += wrong
        unrun = lines - run
        totals["complete_with_unrun"] += int(review.complete and unrun > 0)
        other_gaps = [g for g in review.not_reviewed if not g.part.startswith("template ")]
        totals["complete_with_unrun_before"] += int(not other_gaps and wrong > 0)
        logic = _logic_only(runs)
        totals["logic_only"] += len(logic)
        totals["logic_only_run"] += len(set(logic) & _lines(review, exercised_only=True))
        for context in review.contexts:
            if context.kind in (ContextKind.CONFIG, ContextKind.RELEASE) or context.kind is None:
                continue
            defaults_failed = any(a.name == "defaults" for a in context.attempts)
            if not defaults_failed:
                totals["charts_defaults_render"] += 1
                totals["default_is_defaults"] += int(context.kind is ContextKind.DEFAULTS)
    return totals


def _logic_only(runs: list[ChangedRun]) -> list[tuple[str, str, int]]:
    return [(r.path, r.side, n) for r in runs if not r.words for n in range(r.first, r.last + 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = {}
    with SdkRenderer() as renderer:
        for repo in args.repos:
            shas = template_commits(repo, args.commits)
            results[repo.name] = measure(repo, shas, renderer)
            print(repo.name, json.dumps(results[repo.name]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
