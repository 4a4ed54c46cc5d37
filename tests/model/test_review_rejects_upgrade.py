"""ChartReview.rejects_upgrade: an upgrade scenario the head rejects by Helm's own error, not one a
render limit stopped (a timeout says nothing of the chart)."""

from __future__ import annotations

from aftershock.model.change import Side
from aftershock.model.review import ChartOutcome, ChartRender, ChartReview, RenderStatus
from aftershock.model.units import AffectedChart, AffectStep

AFFECTED = AffectedChart("c", (AffectStep("file", "c/values-prod.yaml", "changed"),))


def upgrade_review(head_error: str) -> ChartReview:
    return ChartReview(
        "c",
        "c",
        AFFECTED,
        ChartRender(Side.BASE, RenderStatus.OK, 3),
        ChartRender(Side.HEAD, RenderStatus.FAILED, error=head_error),
        ChartOutcome.NOT_REVIEWED,
        scenario="upgrade:values-prod.yaml",
    )


def test_a_guard_at_head_rejects_the_upgrade():
    error = "execution error at (c/templates/deployment.yaml:1:3): mode must be fast or slow"
    assert upgrade_review(error).rejects_upgrade


def test_a_render_that_timed_out_rejects_nothing():
    assert not upgrade_review("render timed out after 30 s").rejects_upgrade
    assert not upgrade_review("review deadline passed before this render").rejects_upgrade
