"""A build's review: what a kustomization or a Flux Kustomization built at base and at head, diffed
into one ChartReview, or *not reviewed* where a side's build failed. Shared by both build paths."""

from __future__ import annotations

from dataclasses import replace

from aftershock.diff.objects import diff_objects
from aftershock.model.change import Side
from aftershock.model.objects import RenderedObject
from aftershock.model.review import (
    ChartOutcome,
    ChartRender,
    ChartReview,
    NotReviewed,
    RenderStatus,
)
from aftershock.model.units import AffectedChart
from aftershock.safety.secret_taint import rendered_secret_texts

# One side's build: its failure, or its render with the objects it holds.
Built = ChartRender | tuple[ChartRender, tuple[RenderedObject, ...]]


def with_warnings(built: Built, warnings: tuple[str, ...]) -> Built:
    """The build with what its builder warned of kept on its render."""
    if not warnings:
        return built
    if isinstance(built, ChartRender):
        return replace(built, warnings=warnings)
    return replace(built[0], warnings=warnings), built[1]


def built_review(
    path: str,
    name: str,
    affected: AffectedChart,
    part: str,
    sides: tuple[Built | None, Built | None],
    release: str | None = None,
    cluster: str | None = None,
) -> tuple[ChartReview, list[NotReviewed]]:
    """The review of one build from its (base, head) builds (None: absent at that ref); `part` names
    it where a failed side is not reviewed."""
    (base_render, base_objects), (head_render, head_objects) = (
        _split(sides[0], Side.BASE),
        _split(sides[1], Side.HEAD),
    )
    failed = [r for r in (base_render, head_render) if r.status is RenderStatus.FAILED]
    if failed:
        gaps = [NotReviewed(part, r.error or "build failed", r.side) for r in failed]
        if len(failed) == 2 and base_render.error == head_render.error:
            gaps = [NotReviewed(part, base_render.error or "build failed")]  # once, for both refs
        failure = ChartOutcome.NOT_REVIEWED
        return ChartReview(
            path,
            name,
            affected,
            base_render,
            head_render,
            failure,
            release=release,
            cluster=cluster,
            secret_texts=rendered_secret_texts((*base_objects, *head_objects)),
        ), gaps
    changes = diff_objects(base_objects, head_objects)
    outcome = ChartOutcome.CHANGED if changes else ChartOutcome.UNCHANGED
    return ChartReview(
        path,
        name,
        affected,
        base_render,
        head_render,
        outcome,
        changes,
        base_objects=base_objects,
        head_objects=head_objects,
        release=release,
        cluster=cluster,
    ), []


def _split(built: Built | None, side: Side) -> tuple[ChartRender, tuple[RenderedObject, ...]]:
    if built is None:
        return ChartRender(side, RenderStatus.ABSENT), ()
    if isinstance(built, ChartRender):
        return built, ()
    render, objects = built
    return render, tuple(objects)
