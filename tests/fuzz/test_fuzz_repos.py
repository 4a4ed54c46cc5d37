"""The whole-repository fuzzer as a test: 60 fuzzed charts, values schemas, helm-unittest suites, Flux
objects, kustomizations and plain manifests per kind, each kind one real repository reviewed by the
real CLI in a child process;
any traceback or exit 1 fails, naming the input. The seed's inputs hold the two exit-1 crashes of
issue 22 (a suite whose `tests` is a scalar, a Flux Kustomization whose `spec.components` is one):
undo either fix and this fails. `benchmarks/bench_fuzz_repos.py` runs 10,000 and more."""

from __future__ import annotations

import os

import pytest
from repo_inputs import KINDS, SKELETON, fuzzed_inputs
from repo_runs import REFUSED_ALONE, ChildReview, batch_run

SEED = int(os.environ.get("AFTERSHOCK_FUZZ_SEED", "2001"))
INPUTS_PER_KIND = 60


@pytest.mark.parametrize("kind", KINDS)
def test_reviews_of_fuzzed_repositories_never_crash(tmp_path, kind):
    tally = batch_run(tmp_path, kind, SEED + KINDS.index(kind), 0, INPUTS_PER_KIND)
    assert tally.total == INPUTS_PER_KIND
    assert not tally.failures, tally.report()


def test_inputs_are_seeded_and_each_under_its_own_path():
    first, again = fuzzed_inputs("flux", 5, 0, 30), fuzzed_inputs("flux", 5, 0, 30)
    assert first == again and first != fuzzed_inputs("flux", 5, 30, 30)
    for kind in KINDS:
        paths = [p for files in fuzzed_inputs(kind, 5, 0, 30) for p in files]
        assert len(paths) == len(set(paths)) and not set(paths) & set(SKELETON), kind


def test_a_broken_chart_yaml_is_no_refusal_the_batch_is_reviewed_once(tmp_path, monkeypatch):
    """A Chart.yaml that is not a mapping leaves its chart not reviewed (exit 3), not the review."""
    import repo_runs

    def with_a_broken_chart(kind, seed, first, count):
        inputs = fuzzed_inputs(kind, seed, first, count)
        return [{**inputs[0], "charts/fuzz-0/Chart.yaml": "- not a mapping\n"}, *inputs[1:]]

    monkeypatch.setattr(repo_runs, "fuzzed_inputs", with_a_broken_chart)
    tally = batch_run(tmp_path, "chart", SEED, 0, 3)
    assert tally.exits == {3: 1} and tally.failures == []


def test_an_input_a_refusal_names_is_counted_and_the_others_are_still_reviewed(
    tmp_path, monkeypatch
):
    """An input a one-line refusal (exit 2) names is dropped and the batch reviewed again without it,
    so it does not hide the other inputs (the refusal stands in for one; the second review is real)."""
    import repo_runs

    real = repo_runs.review_in_child
    first = fuzzed_inputs("chart", SEED, 0, 3)[0]
    refusal = ChildReview(2, f"aftershock: error: bad {next(iter(first))} at head", 1.0)
    answers = iter([refusal])
    monkeypatch.setattr(
        repo_runs,
        "review_in_child",
        lambda repo, base, **kw: next(answers, None) or real(repo, base),
    )
    tally = batch_run(tmp_path, "chart", SEED, 0, 3)
    assert tally.exits.get(REFUSED_ALONE) == 1 and tally.exits.get(2) == 1
    assert set(tally.exits) - {2, REFUSED_ALONE} <= {0, 3}, tally.exits


def test_a_traceback_or_an_exit_outside_the_documented_ones_is_a_crash():
    assert ChildReview(1, "aftershock: error: internal error: TypeError", 1.0).crashed
    assert ChildReview(3, "Traceback (most recent call last):\n", 1.0).crashed
    assert ChildReview(-9, "", 1.0).crashed
    assert not any(
        ChildReview(code, "aftershock: not reviewed: x", 1.0).crashed for code in (0, 2, 3, 4)
    )
