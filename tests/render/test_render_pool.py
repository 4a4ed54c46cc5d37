"""Ordered dispatch over lanes: a delayed lane joins only a batch that is still going when its delay ends."""

from __future__ import annotations

import threading

from aftershock.render.helm.pool import dispatch
from aftershock.render.interface import RenderOutcome, RenderRequest


def _lane(name: str, calls: list[str], before=None):
    def render(request: RenderRequest) -> RenderOutcome:
        if before is not None:
            before()
        calls.append(name)
        return RenderOutcome(request, {"t.yaml": name})

    return render


def test_a_batch_the_first_lane_finishes_never_wakes_the_delayed_one():
    calls: list[str] = []
    requests = [RenderRequest(f"/c{i}") for i in range(5)]
    outcomes = dispatch(requests, [_lane("a", calls), _lane("b", calls)], delays=[0.0, 600.0])
    assert [o.request for o in outcomes] == requests
    assert calls == ["a"] * 5  # and the dispatch returned without waiting out the 600 s


def test_a_delayed_lane_takes_what_is_left_once_its_delay_ends():
    calls: list[str] = []
    helped = threading.Event()

    def wait_for_help() -> None:  # the first lane cannot finish alone
        assert helped.wait(60), "the delayed lane never joined"

    second = _lane("b", calls, before=helped.set)
    requests = [RenderRequest(f"/c{i}") for i in range(3)]
    outcomes = dispatch(requests, [_lane("a", calls, wait_for_help), second], delays=[0.0, 0.01])
    assert [o.request for o in outcomes] == requests
    assert "b" in calls
