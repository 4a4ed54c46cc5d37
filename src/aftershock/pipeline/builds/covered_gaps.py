"""Builds that fail alike at both refs while what the change edits in them renders elsewhere.

A Flux Kustomization of path `./` builds the whole repository; when that build fails the same way at
base and at head, the change did not make it fail, and the YAML files the change edits under it may
still be rendered by another build (the Kustomization of their own folder). Such a build's gap is a
*context* gap (model/review.NotReviewed.context): listed apart, neither partial nor a lower
confidence. A build holding a changed YAML file no other render read stays an ordinary gap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from aftershock.model.change import FileChange
from aftershock.model.review import ChartReview, NotReviewed, RenderStatus
from aftershock.pipeline.builds.gitops import GitOpsReview
from aftershock.render.kustomize import TIMED_OUT

BUILD_INPUTS = (".yaml", ".yml", ".json")  # what a kustomize build reads; other files are not its
# How a build that ran and failed is said (pipeline/builds/flux.py, pipeline/builds/kustomize.py): a build that
# never ran here (another repository's source) reads none of these files, so nothing covers it.
BUILD_FAILED = "kustomize build "


def covered_gaps(
    gitops: GitOpsReview, others: Sequence[ChartReview], files: Sequence[FileChange]
) -> tuple[NotReviewed, ...]:
    """The GitOps gaps, those of a build failing alike at both refs marked context where every
    changed build input under its folder (and the file that reached it) was read by a render that
    worked (of the builds, the plain manifests or `others`)."""
    builds, gaps = gitops.built, gitops.not_reviewed
    reviews = (*others, *gitops.built, *gitops.plain)
    rendered = {
        path
        for r in reviews
        if r.base.status is RenderStatus.OK and r.head.status is RenderStatus.OK
        for o in (*r.base_objects, *r.head_objects)
        for path in (o.template, *o.shaped_by)
    }
    changed = [f.path for f in files]
    alike = set()
    for build in builds:
        if not _failing_alike(build):
            continue
        inside = [p for p in changed if _under(p, build.chart) and p.endswith(BUILD_INPUTS)]
        reached = [s.id for s in build.affected.path if s.kind == "file"]
        needed = set(inside) | set(reached)
        if needed and needed <= rendered:
            alike.add(build.base.error)
    return tuple(
        replace(g, context=True) if g.side is None and g.reason in alike else g for g in gaps
    )


def _failing_alike(review: ChartReview) -> bool:
    return (
        review.base.status is RenderStatus.FAILED
        and review.head.status is RenderStatus.FAILED
        and (review.base.error or "").startswith(BUILD_FAILED)
        and TIMED_OUT not in (review.base.error or "")  # a timeout may be the machine's
        and review.base.error == review.head.error
    )


def _under(path: str, folder: str) -> bool:
    return folder in ("", ".") or path == folder or path.startswith(folder.rstrip("/") + "/")
