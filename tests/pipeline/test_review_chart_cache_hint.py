"""A release whose chart is not in the chart cache is not reviewed with the command that fills the
cache (`aftershock charts fetch`, at the pull request's base and head), as a dependency gap is; the
command, run as it says against a chart repository on loopback, makes the review complete."""

from __future__ import annotations

from test_review_external_charts import (
    ARCHIVES,
    _podinfo,
    _review,
    chart_server,  # noqa: F401 (a fixture)
    fleet_repo,
    write_repository,
)

from aftershock.pipeline.chart_fetch import FetchRequest, fetch_charts

COMMAND = "aftershock charts fetch --repo . --ref BASE --ref HEAD --chart-cache"


def test_the_reason_names_the_fetch_command_with_the_cache_folder(tmp_path, renderer):
    repo, base = fleet_repo(tmp_path, "https://charts.example.com/podinfo")
    (gap,) = _review(repo, base, renderer).not_reviewed
    assert "is not in the chart cache (no --chart-cache given)" in gap.reason
    assert f"run `{COMMAND} DIR` and review with that --chart-cache" in gap.reason
    empty = tmp_path / "empty"
    empty.mkdir()
    (gap,) = _review(repo, base, renderer, chart_cache=empty).not_reviewed
    assert f"run `{COMMAND} {empty}` and review with that --chart-cache" in gap.reason


def test_running_the_command_it_names_completes_the_review(
    tmp_path,
    renderer,
    chart_server,
):
    served, url = chart_server
    write_repository(served / "charts", ARCHIVES)
    repo, base = fleet_repo(tmp_path, url)
    cache = tmp_path / "cache"
    cache.mkdir()
    assert not _review(repo, base, renderer, chart_cache=cache).complete
    _, fetched = fetch_charts(FetchRequest(repo, (base, "HEAD"), cache))  # --ref BASE --ref HEAD
    assert sorted(f.chart.archive_name for f in fetched if f.digest) == [
        "podinfo-6.5.0.tgz",
        "podinfo-6.6.0.tgz",
    ]
    review = _review(repo, base, renderer, chart_cache=cache)
    assert review.complete and _podinfo(review)
