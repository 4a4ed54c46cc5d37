"""What the one Secret scrub (aftershock.safety.secret_taint) costs the canonical document, measured in one run.

The bundled example platform (scripts/build_example.py) is reviewed once, demo-base..demo-head
(its payments chart renders a Secret, so the taint is not empty). Then, median of --repeat (the
three interleaved):

- the canonical document as the review writes it (taint collected, document scrubbed);
- the same document with an empty taint (no scrub at all), the baseline;
- the same document when a tainted text does occur in it (the worst case: every string is walked
  and searched), by tainting the chart's name;
- the same document with `--texts` (5,000) more tainted texts, none of which occurs in it, as a
  review that renders a whole platform's Secrets collects: the search must not grow with their
  number times the document's size (it did, until one automaton found them all in one pass).

    python benchmarks/bench_redaction.py [--repeat 5] [--texts 5000] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.pipeline.review import open_renderer
from aftershock.report import canonical
from aftershock.safety.secret_taint import SecretTaint, secret_taint

PROJECT = Path(__file__).resolve().parents[1]


def median_seconds(runs: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Each run's median, the runs interleaved round by round so that a busy machine skews them alike."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def with_taint(taint: Callable[[Any], SecretTaint], run: Callable[[], Any]) -> Callable[[], Any]:
    def measured() -> Any:
        original = canonical.secret_taint
        canonical.secret_taint = taint
        try:
            return run()
        finally:
            canonical.secret_taint = original

    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--texts", type=int, default=5000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="aftershock-bench-redaction-") as tmp:
        repo = Path(tmp) / "platform"
        subprocess.run(
            [sys.executable, str(PROJECT / "scripts" / "build_example.py"), str(repo)],
            check=True,
            capture_output=True,
        )
        with open_renderer("sdk", workers=2) as renderer:
            started = time.perf_counter()
            result = review_change(
                ReviewRequest(repo=repo, base="demo-base", head="demo-head"), renderer
            )
            review_seconds = time.perf_counter() - started
    review, judgement = result.review, result.judgement
    taint = secret_taint(review)
    present_texts = taint.texts | {review.chart_reviews[0].chart}
    many_texts = taint.texts | {
        f"s3cr3t-{n:06d}-{n * 7919 % 100003:05d}" for n in range(args.texts)
    }
    # a taint made anew for each document, as a review makes it: its search is built each time
    present = lambda _: SecretTaint(present_texts, taint.values_keys)  # noqa: E731
    many = lambda _: SecretTaint(many_texts, taint.values_keys)  # noqa: E731
    document = lambda: canonical.review_document(review, judgement)  # noqa: E731
    figures: dict[str, float] = {
        "review_seconds": review_seconds,
        "tainted_texts": len(taint.texts),
    }
    figures.update(
        median_seconds(
            {
                "document_unscrubbed": with_taint(lambda _: SecretTaint(), document),
                "document_scrubbed": document,
                "document_text_present": with_taint(present, document),
                "document_many_texts": with_taint(many, document),
            },
            args.repeat,
        )
    )
    base = figures["document_unscrubbed"]
    figures["ratio_scrubbed"] = figures["document_scrubbed"] / base
    figures["ratio_text_present"] = figures["document_text_present"] / base
    figures["ratio_many_texts"] = figures["document_many_texts"] / base
    print(
        f"review {review_seconds:.2f} s, {len(taint.texts)} tainted texts; canonical document: "
        f"{base * 1000:.1f} ms unscrubbed, {figures['ratio_scrubbed']:.2f}x scrubbed, "
        f"{figures['ratio_text_present']:.2f}x when a tainted text occurs, "
        f"{figures['ratio_many_texts']:.2f}x with {args.texts} more tainted texts"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
