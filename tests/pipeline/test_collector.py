"""A review runs with the collector's review thresholds, and puts the process's back when it ends."""

from __future__ import annotations

import gc

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.pipeline.collector import YOUNG_THRESHOLD, review_collector
from aftershock.render.interface import WrappingRenderer
from charts import app_chart
from gitrepo import commit, make_repo


class ThresholdWatcher(WrappingRenderer):
    """The real renderer, noting the collector's thresholds each time the review renders."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.seen: list[tuple[int, int, int]] = []

    def render_many(self, requests, progress=None, deadline=None):
        self.seen.append(gc.get_threshold())
        return self.inner.render_many(requests, progress, deadline)


def test_a_review_renders_with_a_large_young_generation_and_restores_the_thresholds(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("charts/web", "web"), "feat: web")
    commit(repo, {"charts/web/values.yaml": "replicaCount: 3\n"}, "feat: three replicas")
    before = gc.get_threshold()
    watcher = ThresholdWatcher(renderer)
    review_change(ReviewRequest(repo=repo, base=base, run_tests=False), watcher)
    assert watcher.seen and all(seen[0] == YOUNG_THRESHOLD for seen in watcher.seen)
    assert gc.get_threshold() == before


def test_thresholds_set_higher_already_are_left_alone():
    before = gc.get_threshold()
    try:
        gc.set_threshold(YOUNG_THRESHOLD * 2, 5, 5)
        with review_collector():
            assert gc.get_threshold() == (YOUNG_THRESHOLD * 2, 5, 5)
        assert gc.get_threshold() == (YOUNG_THRESHOLD * 2, 5, 5)
        gc.set_threshold(700, 5, 5)
        try:
            with review_collector():
                assert gc.get_threshold() == (YOUNG_THRESHOLD, 5, 5)
                raise KeyError("the review failed")
        except KeyError:
            pass
        assert gc.get_threshold() == (700, 5, 5)
    finally:
        gc.set_threshold(*before)
