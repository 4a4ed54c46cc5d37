"""Wiring of provenance: read the templates of the materialised workspaces, infer the links statically,
then confirm or tell candidates apart with perturbation renders (the chart at base with one key at its
head value).

The workspaces are the ones the review rendered from: `work/base` and `work/head` hold every affected
chart and its local dependencies (pipeline/rendering/chart_jobs.py); a chart only a release installs is materialised
by release following under `work/releases-<depth>/<side>` (pipeline/following/releases.py), where it is looked up
too. A release's base values are computed again from the release object in the review's base render,
as release following computed them (releases/values.py); a release declared in a plain manifest, or
whose valuesFrom objects are not in the same render, is not perturbed and says why.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aftershock.ingest.charts import discover_charts
from aftershock.ingest.object_documents import objects_from_documents, parse_documents
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.errors import AftershockError
from aftershock.model.objects import ObjectKey
from aftershock.model.provenance import Perturbation, ProvenanceReport
from aftershock.model.review import ChartReview, NotReviewed, RenderStatus, Review
from aftershock.model.units import Chart, ValuesKeyChangeKind
from aftershock.pipeline.rendering.chart_jobs import RenderSettings
from aftershock.provenance.link import (
    MAX_KEYS_PER_OBJECT,
    keyed_changes,
    release_values_file,
    review_id,
    scoped_keys,
    static_provenance,
    value_scope,
)
from aftershock.provenance.perturb import (
    DEFAULT_SCENARIO,
    Produced,
    plan_perturbations,
    produced_fields,
    settle,
    with_key,
)
from aftershock.releases.parse import release_spec
from aftershock.releases.values import merge_maps, release_values
from aftershock.render.interface import Renderer, RenderOutcome, RenderRequest
from aftershock.render.plan import TEMPLATE_SUFFIXES, RenderInputs, dependency_closure
from aftershock.render.workspaces.workspace import link_local_dependencies

DEFAULT_MAX_RENDERS = 20


@dataclass(frozen=True)
class _Job:
    perturbation: Perturbation
    chart_review: ChartReview
    request: RenderRequest


def trace_provenance(
    review: Review,
    base_root: Path,
    head_root: Path,
    renderer: Renderer,
    *,
    max_renders: int = DEFAULT_MAX_RENDERS,
) -> ProvenanceReport:
    """Provenance of every changed field of `review`, with at most `max_renders` perturbation renders."""
    charts = _charts(review)
    static = static_provenance(
        review,
        _template_texts(review, charts, head_root),
        _template_texts(review, charts, base_root),
    )
    fields = static.fields
    by_id = {review_id(r): r for r in review.chart_reviews}
    candidates = sorted({f.review for f in fields if f.values and f.scenario == DEFAULT_SCENARIO})
    bases = {rid: _base(review, by_id[rid], base_root) for rid in candidates}
    blocked = {rid: base for rid, base in bases.items() if isinstance(base, str)}
    ready = {rid: base for rid, base in bases.items() if not isinstance(base, str)}
    chosen, cut = plan_perturbations([f for f in fields if f.review in ready], max_renders)
    jobs = [_job(review, by_id[p.review], charts, ready[p.review], p) for p in chosen]
    outcomes = renderer.render_many([j.request for j in jobs]) if jobs else []
    results: dict[Perturbation, Produced | None] = {}
    for job, outcome in zip(jobs, outcomes):
        results[job.perturbation] = _produced(job, outcome)
    return ProvenanceReport(
        fields=settle(fields, results, cut, blocked),
        max_renders=max_renders,
        renders=len(jobs),
        failed=sum(r is None for r in results.values()),
        cut=cut,
        not_perturbed=tuple(sorted(blocked.items())),
        unlinked=static.too_broad,
    )


def unlinked_gap(report: ProvenanceReport | None) -> NotReviewed | None:
    """The objects whose provenance was not traced because their templates read too many changed keys."""
    if report is None or not report.unlinked:
        return None
    shown = ", ".join(report.unlinked[:3]) + (
        f" and {len(report.unlinked) - 3} more" if len(report.unlinked) > 3 else ""
    )
    return NotReviewed(
        f"provenance of {shown}",
        f"its templates read more than {MAX_KEYS_PER_OBJECT} changed values keys",
    )


def _charts(review: Review) -> dict[str, Chart]:
    charts: dict[str, Chart] = {}
    for chart in review.charts:
        charts.setdefault(chart.path, chart)
    return charts


def chart_folder(root: Path, chart_path: str) -> Path | None:
    """Where a chart was materialised for one side: in `root`, else in release following's folders."""
    for candidate in (root, *sorted(root.parent.glob(f"releases-*/{root.name}"))):
        folder = candidate / chart_path if chart_path else candidate
        if (folder / "Chart.yaml").is_file():
            return folder
    return None


def _template_texts(review: Review, charts: Mapping[str, Chart], root: Path) -> dict[str, str]:
    """Repository path -> text of every template of the chart trees the review rendered, on one side."""
    tree_charts = {
        c for r in review.chart_reviews if r.changes for c in value_scope(r.chart, charts).prefixes
    }
    texts: dict[str, str] = {}
    for chart_path in sorted(tree_charts):
        folder = chart_folder(root, chart_path)
        if folder is None:
            continue
        top = str(folder)
        for dirpath, _, names in os.walk(os.path.join(top, "templates")):
            for name in names:
                if name.endswith(TEMPLATE_SUFFIXES):
                    path = os.path.join(dirpath, name)
                    rel = os.path.relpath(path, top).replace(os.sep, "/")
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        texts[f"{chart_path}/{rel}" if chart_path else rel] = handle.read()
    return texts


def _job(
    review: Review,
    chart_review: ChartReview,
    charts: Mapping[str, Chart],
    base: tuple[Path, RenderInputs],
    item: Perturbation,
) -> _Job:
    """The request of one perturbation: the review's base render with one key at its head value."""
    settings = RenderSettings(
        review.options.release_name, review.options.namespace, review.options.kube_version
    )
    folder, inputs = base
    request = RenderRequest(
        chart_dir=str(folder),
        values=_perturbed_values(review, chart_review, charts, inputs, item),
        release_name=inputs.release_name or settings.release_name,
        namespace=inputs.namespace or settings.namespace,
        kube_version=inputs.kube_version or settings.kube_version,
        api_versions=inputs.api_versions,
        private=inputs.private,
    )
    return _Job(item, chart_review, request)


def _base(
    review: Review, chart_review: ChartReview, base_root: Path
) -> tuple[Path, RenderInputs] | str:
    """The folder and inputs of a review's base render, or why they cannot be rebuilt."""
    if chart_review.base.status is not RenderStatus.OK:
        return f"the chart has no base render ({chart_review.base.status.value})"
    folder = chart_folder(base_root, chart_review.chart)
    if folder is None:
        return "the chart is not materialised at base"
    if chart_review.release is None:
        return (
            folder,
            chart_review.base_inputs,
        )  # the chart's render context (and scenario), as the review rendered it
    return _release_inputs(review, chart_review, base_root, folder)


def _release_inputs(
    review: Review, chart_review: ChartReview, base_root: Path, folder: Path
) -> tuple[Path, RenderInputs] | str:
    """The values, release name and namespace the release passed at base, from its object in a base render."""
    release = str(chart_review.release)
    for source in review.chart_reviews:
        obj = next((o for o in source.base_objects if o.key.id == release), None)
        if obj is None:
            continue
        lookup: dict[ObjectKey, Any] = {o.key: o for o in source.base_objects}
        try:
            spec = release_spec(obj)
            if spec is None:
                continue
            values = release_values(
                spec, lookup, lambda path: _read_base(base_root, path), chart_review.chart
            )
        except AftershockError as error:
            return f"the release's base values cannot be computed again: {error.line()}"
        private = any(ref.kind == "Secret" for ref in spec.values_from)
        return folder, RenderInputs(values, spec.release_name, spec.namespace, private=private)
    return "the release object is in no base render of the review (a plain manifest)"


def _read_base(base_root: Path, path: str) -> str | None:
    """A repository file at base as materialised (an Argo value file); never a path leaving the workspace."""
    normal = posixpath.normpath(path)
    if posixpath.isabs(normal) or normal == ".." or normal.startswith("../"):
        return None
    for candidate in (base_root, *sorted(base_root.parent.glob(f"releases-*/{base_root.name}"))):
        file = candidate / normal
        if file.is_file() and file.resolve().is_relative_to(candidate.resolve()):
            return file.read_text("utf-8", "replace")
    return None


def _perturbed_values(
    review: Review,
    chart_review: ChartReview,
    charts: Mapping[str, Chart],
    inputs: RenderInputs,
    item: Perturbation,
) -> dict[str, Any]:
    """The base values with the one key at its head value: a release's own key replaced in what it
    passes; a chart default set beneath what the release passes (null deletes a default, as in Helm)."""
    scope = value_scope(chart_review.chart, charts)
    one = next(c for c in review.values_changes if c.file == item.file and c.path == item.key)
    ((change, path),) = scoped_keys(keyed_changes([one]), chart_review, scope)
    removed = change.kind is ValuesKeyChangeKind.REMOVED
    if chart_review.release and change.file == release_values_file(chart_review.release):
        return with_key(inputs.values, path, change.after, remove=removed)
    overlay = with_key({}, path, None if removed else change.after, remove=False)
    return merge_maps(overlay, inputs.values)


def _produced(job: _Job, outcome: RenderOutcome) -> Produced | None:
    if not outcome.ok:
        return None
    try:
        documents = (
            outcome.documents
            if outcome.documents is not None
            else parse_documents(outcome.manifests)
        )
        objects = objects_from_documents(
            documents, chart=job.chart_review.chart, namespace=job.request.namespace
        )
    except AftershockError:
        return None
    return produced_fields(
        job.chart_review.changes, job.perturbation.review, job.chart_review.base_objects, objects
    )


def materialize_workspaces(
    review: Review, work: Path, *, max_file_bytes: int = 5 * 2**20
) -> tuple[Path, Path]:
    """Write the charts the review rendered, with their local dependencies linked in, to `work/base`
    and `work/head` as the review's own workspaces held them (for tracing after the review's are gone)."""
    repo = GitRepository.open(review.repository)
    for side, sha in (("base", review.base.sha), ("head", review.head.sha)):
        with RefSnapshot.open(repo, sha, f"{side} {sha[:7]}", max_file_bytes) as tree:
            tree.check_safe()
            charts = {c.path: c for c in discover_charts(tree, tree.label)}
            rendered = [
                charts[p] for p in sorted({r.chart for r in review.chart_reviews}) if p in charts
            ]
            tree.materialize(
                sorted({d for c in rendered for d in dependency_closure(c, charts)}), work / side
            )
            for chart in rendered:
                link_local_dependencies(chart, charts, work / side)
    return work / "base", work / "head"
