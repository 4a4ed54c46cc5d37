"""A large review judged in a forked child while the review's process builds its document beside it
(pipeline/judge_beside.py): the same judgement and the same document as judged in place."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from test_review_example import stable

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.pipeline import judge_beside as module
from aftershock.pipeline.judge_beside import FORK_AT, judged_beside, room_for_a_copy
from aftershock.report.canonical import observation_document, review_document

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the system cannot fork")


def _wait_for(path: Path, seconds: float = 30.0) -> bool:
    """Whether `path` appears within `seconds` (a bound, not a measure: the test fails on its end)."""
    end = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def test_the_judge_runs_in_a_child_while_beside_runs_here(tmp_path):
    """Each waits for the other's mark: judged first and then `beside` (in one process) would time
    out, and the judgement would name this process."""
    started, beside_ran = tmp_path / "child-started", tmp_path / "beside-ran"
    calls = []

    def judging():
        started.touch()
        return {"pid": os.getpid(), "saw beside": _wait_for(beside_ran)}

    def beside():
        calls.append(_wait_for(started))
        beside_ran.touch()

    judgement = judged_beside(judging, beside, tmp_path, FORK_AT)
    assert judgement == {"pid": judgement["pid"], "saw beside": True}
    assert judgement["pid"] != os.getpid() and calls == [True]
    assert list(tmp_path.glob("judgement-*")) == []  # the hand-over is removed


def test_a_small_review_or_none_beside_is_judged_here_and_beside_is_left_to_the_caller(tmp_path):
    calls = []
    small = judged_beside(os.getpid, lambda: calls.append(1), tmp_path, FORK_AT - 1)
    alone = judged_beside(os.getpid, None, tmp_path, FORK_AT)
    assert small == alone == os.getpid() and calls == []


def test_a_child_that_fails_leaves_the_judge_to_the_review_process(tmp_path):
    here = os.getpid()

    def judging():
        if os.getpid() != here:
            raise RuntimeError("the child fails")
        return "judged here"

    calls = []
    assert judged_beside(judging, lambda: calls.append(1), tmp_path, FORK_AT) == "judged here"
    assert calls == [1]


def test_an_error_beside_ends_the_child_and_is_raised(tmp_path):
    pid_file = tmp_path / "child-pid"

    def judging():
        pid_file.write_text(str(os.getpid()))
        time.sleep(600)  # killed long before

    def beside():
        assert _wait_for(pid_file)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        judged_beside(judging, beside, tmp_path, FORK_AT)
    with pytest.raises(ProcessLookupError):  # killed and reaped: no such process any more
        os.kill(int(pid_file.read_text()), 0)


def test_a_review_judged_beside_its_document_gives_the_same_document(
    example_repo, renderer, monkeypatch
):
    """The example review, its judge forked (the threshold lowered to its size): the document made
    beside it, completed with the child's findings, equals the one made after an in-place judge."""
    request = ReviewRequest(repo=example_repo, base="demo-base", head="demo-head")
    in_place = review_change(request, renderer)
    monkeypatch.setattr(module, "FORK_AT", 1)
    made = []
    forked = review_change(
        request,
        renderer,
        beside_judge=lambda review: made.append((review, observation_document(review))),
    )
    assert [review for review, _ in made] == [forked.review]  # made once, from the review judged
    doc = review_document(forked.review, forked.judgement, observed=made[0][1])
    expected = review_document(in_place.review, in_place.judgement)
    assert stable(doc) == stable(expected)
    assert json.dumps(stable(doc))  # plain JSON, as written


@pytest.mark.parametrize(
    "available_kib, resident_pages, room",
    [(4_000_000, 1000, True), (4, 1000, False), (None, 1000, False), (4_000_000, None, False)],
)
def test_it_forks_only_with_memory_for_the_child_copies(
    tmp_path, available_kib, resident_pages, room
):
    meminfo, statm = tmp_path / "meminfo", tmp_path / "statm"
    if available_kib is not None:
        meminfo.write_text(f"MemTotal: 8000000 kB\nMemAvailable: {available_kib} kB\n")
    if resident_pages is not None:
        statm.write_text(f"5000 {resident_pages} 300 1 0 2000 0\n")
    assert room_for_a_copy(meminfo, statm) is room
