"""The state survives a review killed mid-write, and concurrent reviews of one target run one at a time."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from aftershock.model.state_lifecycle import LifecycleState
from aftershock.model.state_records import ReviewTarget
from aftershock.state.errors import StateBusyError
from aftershock.state.store import open_store
from state_support import PR, REPO, finding, record, state_location  # noqa: F401 (fixture)

TESTS = Path(__file__).resolve().parents[1]
RBAC = finding(
    "rbac-wildcard", "charts/web::rbac.authorization.k8s.io/Role/default/web", {"verbs": ["*"]}
)
PSS = finding("pss-privileged", "charts/web::apps/Deployment/default/web", {"container": "app"})
H1, H2, H3 = ("1" * 40, "2" * 40, "3" * 40)

# A second aftershock process: "write" pauses inside record_review's transaction, right after the
# findings are inserted; "hold" takes the review lock of PR #12 until its stdin closes.
CHILD = """
import sys, time
import sqlalchemy as sa
sys.path.insert(0, sys.argv[3])
from state_support import PR, REPO, finding, record
from aftershock.state.store import open_store

store = open_store(sys.argv[2])
if sys.argv[1] == "write":
    @sa.event.listens_for(store.engine, "after_cursor_execute")
    def pause(conn, cursor, statement, *rest):
        if statement.lstrip().upper().startswith("INSERT INTO REVIEW_FINDINGS"):
            print("MIDWAY", flush=True)
            time.sleep(120)
    store.record_review(record("2" * 40, (finding("image-latest", "charts/api::apps/Deployment/default/api"),)))
else:
    with store.review_lock(REPO, PR):
        print("LOCKED", flush=True)
        sys.stdin.read()
"""


def start_child(mode: str, location: str) -> subprocess.Popen:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, mode, location, str(TESTS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ready, _, _ = select.select([child.stdout], [], [], 30)
    line = child.stdout.readline().strip() if ready else ""
    if line not in ("MIDWAY", "LOCKED"):
        child.kill()
        raise AssertionError(f"child did not get going: {line!r} {child.communicate()[1][-2000:]}")
    return child


def test_a_review_killed_mid_write_leaves_the_previous_state_intact(state_location):
    store = open_store(state_location)
    store.record_review(record(H1, (RBAC, PSS)))
    child = start_child("write", state_location)
    os.kill(child.pid, signal.SIGKILL)
    child.communicate()
    assert child.returncode == -signal.SIGKILL

    reopened = open_store(state_location, lock_timeout_seconds=5)
    (last,) = reopened.history(REPO, PR)
    assert (last.head_sha, last.counts) == (H1, {"new": 2})
    with reopened.review_lock(
        REPO, PR, timeout_seconds=5
    ):  # the dead review's lock is gone with it
        after = reopened.record_review(record(H3, (RBAC, PSS)))
    assert after.lifecycle.previous_head == H1
    assert [e.state for e in after.lifecycle.entries] == [LifecycleState.RETAINED] * 2
    reopened.close()
    store.close()


def test_two_reviews_of_one_target_run_one_after_the_other(state_location):
    spans: list[tuple[float, float, str, object]] = []
    errors: list[BaseException] = []

    def review(head: str) -> None:
        try:
            store = open_store(state_location)  # a store of its own, as another process has
            with store.review_lock(REPO, PR, timeout_seconds=20):
                started = time.monotonic()
                time.sleep(0.3)
                recorded = store.record_review(record(head, (RBAC,)))
                spans.append((started, time.monotonic(), head, recorded))
            store.close()
        except BaseException as exc:  # surfaced in the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=review, args=(head,)) for head in (H1, H2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    first, second = sorted(spans, key=lambda span: span[0])
    assert first[1] <= second[0], "the second review started before the first had finished"
    assert first[3].lifecycle.previous_head is None
    assert second[3].lifecycle.previous_head == first[2]
    assert [e.state for e in second[3].lifecycle.entries] == [LifecycleState.RETAINED]


def test_a_second_review_waits_then_reports_busy(state_location):
    holder = start_child("hold", state_location)
    store = open_store(state_location)
    try:
        started = time.monotonic()
        with pytest.raises(StateBusyError) as caught:
            with store.review_lock(REPO, PR, timeout_seconds=0.5):
                pytest.fail("took a lock another process holds")
        assert 0.5 <= time.monotonic() - started < 5
        line = str(caught.value)
        assert line.startswith(f"another review of PR #12 in {REPO} is running (waited 0.5 s) (")
        assert line.endswith("); try again when it has finished, or raise the state lock timeout")
        assert caught.value.exit_code == 3
        with store.review_lock(REPO, ReviewTarget.branch("main"), timeout_seconds=0.5):
            pass  # another target is not blocked
        holder.stdin.close()
        holder.wait(timeout=30)
        with store.review_lock(REPO, PR, timeout_seconds=5):
            store.record_review(
                record(H1, (RBAC,))
            )  # re-entrant: recording inside the lock does not wait
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.communicate()
        store.close()
    assert [s.head_sha for s in store.history(REPO, PR)] == [H1]
