"""Wiring of plain manifests into the review: each folder of Kubernetes YAML that a change touches is
one review scope, read at base and head and diffed like a chart's render.

A folder's review is a `ChartReview` whose `chart` is the folder and whose objects name their file as
`template`, so rules, the impact graph (file -> manifest -> object) and the report treat them as they
treat rendered objects; Secrets are redacted the same way. A file of the folder that cannot be read at
either ref makes the folder *not reviewed*.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from aftershock.diff.objects import diff_objects
from aftershock.ingest.gitops.plain_objects import PlainObjects, folder_of, plain_objects
from aftershock.model.change import FileChange, Side
from aftershock.model.review import (
    ChartOutcome,
    ChartRender,
    ChartReview,
    NotReviewed,
    RenderStatus,
)
from aftershock.model.units import AffectedChart, AffectStep, Unit, UnitKind
from aftershock.pipeline.rendering.chart_jobs import SideInput
from aftershock.safety.secret_taint import rendered_secret_texts

MANIFESTS_NAME = "manifests"


@dataclass(frozen=True)
class PlainReview:
    """The reviews of the plain-manifest folders a change touches, and the folders' files as units."""

    reviews: tuple[ChartReview, ...]
    not_reviewed: tuple[NotReviewed, ...]
    base: PlainObjects
    head: PlainObjects


def review_plain(
    files: Sequence[FileChange],
    base: SideInput,
    head: SideInput,
    namespace: str,
    excluded: Collection[str] = (),
) -> PlainReview:
    """Read the folders holding a changed YAML file at both refs and diff their objects."""
    touched = {
        p for f in files for p in (f.path, f.old_path) if p and p.endswith((".yaml", ".yml"))
    }
    folders = {folder_of(p) for p in touched}
    (base_tree, charts_base), (head_tree, charts_head) = base, head
    plain_base = plain_objects(
        base_tree, charts_base, namespace, excluded=excluded, folders=folders
    )
    plain_head = plain_objects(
        head_tree, charts_head, namespace, excluded=excluded, folders=folders
    )
    manifests = _manifest_files(plain_base) | _manifest_files(plain_head)
    reviews, gaps = [], []
    for folder in sorted({folder_of(p) for p in touched & manifests}):
        changed = sorted(p for p in touched & manifests if folder_of(p) == folder)
        review, missing = _review_folder(folder, changed, plain_base, plain_head)
        reviews.append(review)
        gaps += missing
    return PlainReview(tuple(reviews), tuple(gaps), plain_base, plain_head)


def _manifest_files(plain: PlainObjects) -> set[str]:
    """The files holding objects, those holding objects without a name, and those that could not be read."""
    return (
        {p for files in plain.files.values() for p in files}
        | set(plain.unreadable)
        | set(plain.nameless)
    )


def _nameless(changed: list[str], head: PlainObjects) -> list[NotReviewed]:
    """A changed file's documents that Kubernetes rejects for want of a name: not reviewed, said per file."""
    return [
        NotReviewed(
            f"manifest {path}",
            f"{', '.join(head.nameless[path])}: no metadata.name, so Kubernetes rejects it and this "
            "review cannot follow it; give it a name",
            Side.HEAD,
        )
        for path in changed
        if path in head.nameless
    ]


def _review_folder(
    folder: str,
    changed: list[str],
    base: PlainObjects,
    head: PlainObjects,
) -> tuple[ChartReview, list[NotReviewed]]:
    affected = AffectedChart(folder, tuple(AffectStep("file", p, "changed") for p in changed[:1]))
    base_objects, head_objects = base.folders.get(folder, ()), head.folders.get(folder, ())
    base_render, head_render = _render(Side.BASE, base, folder), _render(Side.HEAD, head, folder)
    gaps = [
        NotReviewed(f"manifests {folder or '.'}", r.error or "unreadable", r.side)
        for r in (base_render, head_render)
        if r.status is RenderStatus.FAILED
    ]
    if gaps:
        return ChartReview(
            folder,
            MANIFESTS_NAME,
            affected,
            base_render,
            head_render,
            ChartOutcome.NOT_REVIEWED,
            secret_texts=rendered_secret_texts((*base_objects, *head_objects)),
        ), gaps
    changes = diff_objects(base_objects, head_objects)
    outcome = ChartOutcome.CHANGED if changes else ChartOutcome.UNCHANGED
    review = ChartReview(
        folder,
        MANIFESTS_NAME,
        affected,
        base_render,
        head_render,
        outcome,
        changes,
        base_objects=base_objects,
        head_objects=head_objects,
    )
    return review, _nameless(changed, head)


def _render(side: Side, plain: PlainObjects, folder: str) -> ChartRender:
    problems = [
        f"{path}: {reason}"
        for path, reason in sorted(plain.unreadable.items())
        if folder_of(path) == folder
    ]
    if problems:
        return ChartRender(side, RenderStatus.FAILED, error="; ".join(problems))
    objects = plain.folders.get(folder)
    return ChartRender(
        side, RenderStatus.OK if objects is not None else RenderStatus.ABSENT, len(objects or ())
    )


def plain_units(
    units: tuple[tuple[str, tuple[Unit, ...]], ...],
    plain: PlainReview,
) -> tuple[tuple[str, tuple[Unit, ...]], ...]:
    """A changed manifest file is a template of its folder's review: file -> manifest -> object."""
    manifest_files = _manifest_files(plain.base) | _manifest_files(plain.head)
    return tuple(
        (
            path,
            tuple(
                _as_manifest(u) if u.chart is None and u.path in manifest_files else u
                for u in file_units
            ),
        )
        for path, file_units in units
    )


def _as_manifest(unit: Unit) -> Unit:
    return Unit(f"manifest:{unit.path}", UnitKind.TEMPLATE, unit.path, chart=folder_of(unit.path))
