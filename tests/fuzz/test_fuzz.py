"""The fuzzer as a test: seeded and bounded, so it is the same every run (set AFTERSHOCK_FUZZ_SEED to
explore others). 300 inputs for each of the 7 parsing edges, in-process, and 24 end-to-end reviews
through the real CLI; any traceback, exit 70 or hang fails, showing the input that caused it.
`benchmarks/bench_fuzz.py` runs the same with 10,000 inputs and more."""

from __future__ import annotations

import os

import pytest
from cli_runs import cli_run
from harness import Tally
from targets import TARGET_NAMES, fuzz_target

SEED = int(os.environ.get("AFTERSHOCK_FUZZ_SEED", "20261201"))
INPUTS_PER_TARGET = 300
CLI_GROUPS, CLI_RUNS_PER_GROUP = 4, 6


@pytest.mark.parametrize("target", TARGET_NAMES)
def test_parsing_edge_never_crashes(target):
    tally = fuzz_target(target, SEED + TARGET_NAMES.index(target), INPUTS_PER_TARGET)
    assert tally.total == INPUTS_PER_TARGET
    assert not tally.failures and not tally.hangs, tally.report()


@pytest.mark.parametrize("group", range(CLI_GROUPS))
def test_reviews_of_fuzzed_changes_never_crash(tmp_path, group):
    tally = Tally()
    for n in range(CLI_RUNS_PER_GROUP):
        seed = SEED + 1000 + group * CLI_RUNS_PER_GROUP + n
        tally.merge(cli_run(tmp_path / f"run-{seed}", seed))
    assert tally.total == CLI_RUNS_PER_GROUP
    assert not tally.failures, tally.report()
    assert set(tally.exits) <= {0, 2, 3}


def test_the_fuzzer_finds_a_crash_when_there_is_one():
    from harness import exercise

    def fragile(text: str) -> None:
        if "{" in text:
            raise TypeError("unhashable")

    tally = exercise("fragile", iter(["a: 1", "{a: b}", "b"]), fragile, (ValueError,))
    assert (
        tally.total == 3
        and [f.index for f in tally.failures] == [1]
        and "TypeError" in tally.failures[0].traceback
    )
