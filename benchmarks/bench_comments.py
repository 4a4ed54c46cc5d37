#!/usr/bin/env python3
"""Benchmark: what a maintainer reads: verdicts, entries per object, comment size, terminal lines.

Usage: python benchmarks/bench_comments.py REPO [REPO ...] [--commits N] [--tests] [--json FILE]
       [--keep DIR]

Reviews the last N first-parent commits of each repository (each as `C^..C`, tests off unless
`--tests`), and per repository prints:
- above_low_by_gaps: verdicts (merge and security) above Low whose reasons name no finding: the
  level was set by what could not be reviewed (target 0); `above_low_by_bump_floor` counts apart
  those set by a chart bump that could not be rendered (a minor bump is Medium by design);
- entries_per_object: the object entries the Markdown comment lists per changed object (an object
  of one install, across scenarios); `entries_per_object_before` is the same count by the listing
  before issue 33 (one entry per distinct change and scenario, repeats of the default left out);
- comment_bytes median and max; terminal lines, median and max, over one-chart reviews;
- each review's verdict titles, comment size, terminal lines and actionable findings (rule and
  message), kept in `--json`; with `--keep`,
  each comment as DIR/<repo>-<sha>.md, to read.
Counts and bytes, not seconds: the figures do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.report.canonical import review_document
from aftershock.report.formats import OutputFormat, write_report

try:
    from aftershock.report.shown import listed_objects, merged_across_scenarios
except ImportError:  # a build from before issue 33, measured for "before": every object listed

    def listed_objects(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return objects


def commits(repo: Path, count: int) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "log", "--first-parent", "--format=%H %P", "-n", str(count)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    return [line.split()[0] for line in out if len(line.split()) > 1]


PER_SCENARIO = (
    "id",
    "review",
    "scenario",
    "same_as_default",
    "same_in",
    "scenarios",
    "rendered_in",
)


def change_fingerprint(entry: dict[str, Any]) -> str:
    """The change an entry describes whatever scenario rendered it (report/object_entries's, kept
    here so that a build from before it can be measured)."""
    return json.dumps({k: v for k, v in entry.items() if k not in PER_SCENARIO}, sort_keys=True)


def entries(doc: dict[str, Any]) -> tuple[int, int, int]:
    """(distinct changed objects, entries listed now, entries listed by the way before)."""
    listed = listed_objects(doc["objects"])
    identities = {(o["review"].split("#", 1)[0], o["key"]["id"], o["change"]) for o in listed}
    before = {
        (o["review"].split("#", 1)[0], change_fingerprint(o))
        for o in listed
        if not o.get("same_as_default")  # a build since issue 35 says a scenario's repeat once
    }
    if not listed or "identity" not in listed[0]:  # a build before issue 33 (measured for "before")
        return len(identities), len(before), len(before)
    return len(identities), len(merged_across_scenarios(listed)), len(before)


def by_gaps(doc: dict[str, Any], *, bumps: bool = False) -> list[str]:
    """The verdicts above Low that no finding set: by parts not reviewed, or (`bumps`) by the floor
    of a chart bump that could not be rendered (a minor bump Medium, by design)."""
    verdicts = doc["findings"]["verdicts"]
    return [
        name
        for name, verdict in verdicts.items()
        if verdict["level"] in ("medium", "high", "critical")
        and not any(" finding " in reason for reason in verdict["reasons"])
        and any(" bumped " in reason for reason in verdict["reasons"]) is bumps
    ]


def measure_one(repo: Path, sha: str, renderer: SdkRenderer, tests: bool) -> dict[str, Any]:
    result = review_change(
        ReviewRequest(repo=repo, base=f"{sha}^", head=sha, run_tests=tests), renderer
    )
    doc = review_document(result.review, result.judgement, None)
    comment, terminal = io.StringIO(), io.StringIO()
    write_report(doc, OutputFormat.MARKDOWN, comment, color=False)
    write_report(doc, OutputFormat.TERMINAL, terminal, color=False)
    objects, now, before = entries(doc)
    installs = {r["id"].split("#", 1)[0] for r in doc["chart_reviews"]}
    return {
        "sha": sha[:12],
        "verdicts": [v["title"] for v in doc["findings"]["verdicts"].values()],
        "by_gaps": by_gaps(doc),
        "by_bump_floor": by_gaps(doc, bumps=True),
        "status": doc["status"],
        "objects": objects,
        "entries": now,
        "entries_before": before,
        "comment_bytes": len(comment.getvalue().encode("utf-8")),
        "terminal_lines": terminal.getvalue().count("\n"),
        "installs": len(installs),
        # each actionable finding's rule, and its message: what a maintainer would act on
        "actionable": [
            [f["rule"], f["message"][:300]] for f in doc["findings"]["items"] if f["actionable"]
        ],
        "comment": comment.getvalue(),
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    objects = sum(r["objects"] for r in rows)
    sizes = [r["comment_bytes"] for r in rows]
    one_chart = [r["terminal_lines"] for r in rows if r["installs"] == 1]
    return {
        "reviews": len(rows),
        "above_low_by_gaps": sum(len(r["by_gaps"]) for r in rows),
        "above_low_by_bump_floor": sum(len(r["by_bump_floor"]) for r in rows),
        "objects": objects,
        "entries_per_object": round(sum(r["entries"] for r in rows) / objects, 3)
        if objects
        else None,
        "entries_per_object_before": round(sum(r["entries_before"] for r in rows) / objects, 3)
        if objects
        else None,
        "comment_bytes_median": statistics.median(sizes) if sizes else 0,
        "comment_bytes_max": max(sizes, default=0),
        "one_chart_reviews": len(one_chart),
        "terminal_lines_median": statistics.median(one_chart) if one_chart else 0,
        "terminal_lines_max": max(one_chart, default=0),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--tests", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with SdkRenderer() as renderer:
        for repo in args.repos:
            rows = []
            for sha in commits(repo, args.commits):
                row = measure_one(repo, sha, renderer, args.tests)
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    (args.keep / f"{repo.name}-{row['sha']}.md").write_text(row["comment"])
                del row["comment"]
                rows.append(row)
                print(repo.name, json.dumps(row), flush=True)
            results[repo.name] = {"summary": summary(rows), "reviews": rows}
            print(repo.name, json.dumps(results[repo.name]["summary"]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
