"""Whole-repository fuzzing through the real CLI in a child process, many inputs per review.

A batch is one real git repository: the base commit holds `repo_inputs.SKELETON`, the head commit
adds `count` fuzzed inputs of one kind, each under its own path, so each is its own unit of the
review. `python -m aftershock.cli review` reviews it in a child process (so a crash, a hang or a
leaked worker is the CLI's own). A finding is a traceback on stderr or an exit status outside 0, 2,
3 and 4; a batch with one is re-reviewed one input at a time, with --debug, to name the input.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from harness import Failure, Tally
from repo_inputs import SKELETON, fuzzed_inputs

from gitrepo import commit, make_repo

ACCEPTED_EXITS = (0, 2, 3, 4)
CHILD_TIMEOUT = 600.0
REFUSED_ALONE = 1002  # the key of Tally.exits counting inputs a refusal named (not an exit status)
SOURCE = Path(__file__).resolve().parents[2] / "src"


@dataclass(frozen=True)
class ChildReview:
    exit: int
    stderr: str
    seconds: float

    @property
    def crashed(self) -> bool:
        return self.exit not in ACCEPTED_EXITS or "Traceback" in self.stderr


def review_in_child(repo: Path, base: str, *, debug: bool = False) -> ChildReview:
    """`aftershock review` of base..HEAD in `repo`, in a child process, its report beside the repository."""
    report = str(repo.parent / "report.json")
    args = [sys.executable, "-m", "aftershock.cli", "review", "--repo", str(repo), "--base", base]
    args += ["--format", "json", "--output", report, "--no-state", "--render-cache", "off"]
    args += ["--workers", "1", "--render-timeout", "30", "--deadline", "300"]
    if debug:
        args.append("--debug")
    path = os.pathsep.join(p for p in (str(SOURCE), os.environ.get("PYTHONPATH", "")) if p)
    started = time.monotonic()
    try:
        done = subprocess.run(
            args,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=CHILD_TIMEOUT,
            env={**os.environ, "PYTHONPATH": path},
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        stderr = (
            expired.stderr.decode(errors="replace") if isinstance(expired.stderr, bytes) else ""
        )
        return ChildReview(-1, f"hang: over {CHILD_TIMEOUT} s\n{stderr}", CHILD_TIMEOUT)
    return ChildReview(done.returncode, done.stderr, time.monotonic() - started)


def _repository(folder: Path, inputs: list[dict[str, str]]) -> tuple[Path, str]:
    repo = make_repo(folder)
    base = commit(repo, dict(SKELETON), "feat: skeleton")
    head: dict[str, str] = {}
    for files in inputs:
        head.update(files)
    commit(repo, head, "fix: fuzzed")
    return repo, base


def batch_run(folder: Path, kind: str, seed: int, first: int, count: int) -> Tally:
    """Review `count` inputs of `kind` in one repository; attribute a crash to the inputs that cause it.

    An input whose path the one-line refusal (exit 2) names is counted as refused and the rest are
    reviewed again without it, so one broken Chart.yaml does not hide the other inputs."""
    started = time.monotonic()
    pending = dict(enumerate(fuzzed_inputs(kind, seed, first, count)))
    tally = Tally(inputs={kind: count})
    for attempt in range(count):
        repo, base = _repository(folder / f"batch-{attempt}", list(pending.values()))
        review = review_in_child(repo, base)
        tally.exits[review.exit] = tally.exits.get(review.exit, 0) + 1
        if review.crashed:
            tally.failures += _attributed(folder, kind, seed, first, pending, review)
        named = [i for i, files in pending.items() if any(p in review.stderr for p in files)]
        if review.exit != 2 or not named or len(pending) == 1:
            break
        for index in named:
            del pending[index]
        tally.exits[REFUSED_ALONE] = tally.exits.get(REFUSED_ALONE, 0) + len(named)
    tally.seconds = time.monotonic() - started
    return tally


def _attributed(
    folder: Path,
    kind: str,
    seed: int,
    first: int,
    pending: dict[int, dict[str, str]],
    review: ChildReview,
) -> list[Failure]:
    """The inputs of a crashed batch that crash a review alone (with --debug, for the traceback)."""
    found = []
    for index, files in pending.items():
        alone = review_in_child(*_repository(folder / f"alone-{index}", [files]), debug=True)
        if alone.crashed:
            shown = json.dumps(
                {"seed": seed, "input": first + index, "exit": alone.exit, "files": files}
            )
            found.append(Failure(kind, first + index, shown, alone.stderr[-4000:]))
    if not found:
        shown = json.dumps({"seed": seed, "batch": [first, len(pending)], "exit": review.exit})
        found.append(Failure(kind, first, shown, review.stderr[-4000:]))
    return found
