"""What one side's renders of a chart gave: its objects (of the chart as its review names it, templates
named by repository path, or by Helm for an external chart; with the chart's crds/ files), the fields
that differ between two renders of the same input, or why none.

crds/ files are parsed once per review for every render that has them (scenarios, a second render of
a volatile chart, both refs, a CRD chart many charts depend on): they can be large, and one parse
shared by identity lets the diff and the secret taint skip what both sides share. `SideResults` keeps
each side's result, and the parsed crds/ files, for the rest of its review.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from aftershock.diff.normalize import UnstablePaths, find_unstable_paths
from aftershock.diff.varying.names import mask_random_names
from aftershock.ingest.object_documents import objects_from_documents, parse_documents
from aftershock.model.change import Side
from aftershock.model.errors import AftershockError
from aftershock.model.objects import RenderedObject
from aftershock.model.review import ChartRender, RenderStatus
from aftershock.model.units import Chart
from aftershock.pipeline.rendering.chart_jobs import SideJob, reads_cluster
from aftershock.render.interface import RenderOutcome
from aftershock.render.plan import template_repo_path
from aftershock.render.workspaces.partial_charts import every_named_template


@dataclass(frozen=True)
class SideResult:
    render: ChartRender
    objects: tuple[RenderedObject, ...] = ()
    unstable: UnstablePaths = frozenset()
    varies: bool = False  # rendered twice: its output may differ from render to render


Entry = tuple[SideJob, list[RenderOutcome]]


class SideResults:
    """`side_result` of each side's renders in one review, made once: the checks for new keys and
    for templates that fail ask each side why it failed, and the review then asks for its objects."""

    def __init__(self, crds: CrdObjects | None = None) -> None:
        self._made: dict[int, tuple[Entry, SideResult]] = {}  # id(entry) -> (entry, its result)
        self.crds = crds or CrdObjects()

    def result(self, entry: Entry | None, side: Side) -> SideResult:
        if entry is None:
            return side_result(None, side)
        made = self._made.get(id(entry))
        if made is None or made[0] is not entry:
            made = self._made[id(entry)] = (entry, side_result(entry, side, self.crds))
        return made[1]

    def failure(self, entry: Entry) -> str | None:
        """Why one side's renders give no objects (Helm's error, a document that is not YAML), or None."""
        result = self.result(entry, entry[0].side)
        return result.render.error if result.render.status is RenderStatus.FAILED else None


def side_result(entry: Entry | None, side: Side, crds: CrdObjects | None = None) -> SideResult:
    if entry is None:
        return SideResult(ChartRender(side, RenderStatus.ABSENT))
    result = _side_result(*entry, side, crds or CrdObjects())
    version = entry[0].chart.version or None  # what rendered, or failed to
    return replace(result, render=replace(result.render, chart_version=version))


def _side_result(
    job: SideJob, outcomes: list[RenderOutcome], side: Side, crds: CrdObjects
) -> SideResult:
    if job.blocked:
        return SideResult(ChartRender(side, RenderStatus.FAILED, error=job.blocked))
    seconds = sum(o.seconds for o in outcomes)
    lookups = tuple(
        sorted(
            {
                f"{k.kind} {k.namespace + '/' if k.namespace else ''}{k.name}"
                for o in outcomes
                for k in o.lookups
            }
        )
    )
    failed = next((o for o in outcomes if not o.ok), None)
    if failed is not None:
        named = every_named_template(failed.error or "")
        return SideResult(
            ChartRender(
                side,
                RenderStatus.FAILED,
                error=failed.error,
                seconds=seconds,
                lookups=lookups,
                reads_cluster=reads_cluster(job, named),
            )
        )
    try:
        renders = [_objects(job, o, crds) for o in outcomes]
    except AftershockError as error:
        return SideResult(
            ChartRender(side, RenderStatus.FAILED, error=error.line(), seconds=seconds)
        )
    unstable: UnstablePaths = frozenset()
    if len(renders) == 2:  # a chart calling a random function: what varies is masked
        first, second = mask_random_names(renders[0], renders[1])
        renders, unstable = [first, second], find_unstable_paths(first, second)
    render = ChartRender(side, RenderStatus.OK, len(renders[0]), seconds=seconds, lookups=lookups)
    return SideResult(render, renders[0], unstable, varies=len(renders) == 2)


def rendered_objects(
    outcome: RenderOutcome, chart: Chart, charts: Mapping[str, Chart]
) -> tuple[RenderedObject, ...]:
    """The objects of one successful render, templates named by repository path (files under crds/ not
    included); MalformedInputError when a rendered document is not YAML."""
    documents = (
        outcome.documents if outcome.documents is not None else parse_documents(outcome.manifests)
    )
    objects = objects_from_documents(
        documents, chart=chart.address, namespace=outcome.request.namespace
    )
    return tuple(
        replace(o, template=template_repo_path(o.template, chart, charts)) for o in objects
    )


def _objects(job: SideJob, outcome: RenderOutcome, crds: CrdObjects) -> tuple[RenderedObject, ...]:
    own = crds.objects(
        tuple(sorted(job.crds.items())), job.chart.address, outcome.request.namespace
    )
    return own + rendered_objects(outcome, job.chart, job.charts)


class CrdObjects:
    """The objects of charts' crds/ files in one review: each file parsed once, its bodies shared by
    every chart and side that installs it (never changed), each chart's objects made once per
    namespace. Held by the review, not the process: parsed CRDs are large and a service lives long."""

    def __init__(self) -> None:
        self._bodies: dict[tuple[str, str], tuple[tuple[int, Any], ...]] = {}
        self._objects: dict[tuple[object, ...], tuple[RenderedObject, ...]] = {}

    def objects(
        self, crds: tuple[tuple[str, str], ...], chart: str, namespace: str
    ) -> tuple[RenderedObject, ...]:
        key = (crds, chart, namespace)
        made = self._objects.get(key)
        if made is None:
            documents = [
                (path, index, body)
                for path, text in crds
                for index, body in self._parsed(path, text)
            ]
            made = self._objects[key] = objects_from_documents(
                documents, chart=chart, namespace=namespace
            )
        return made

    def _parsed(self, path: str, text: str) -> tuple[tuple[int, Any], ...]:
        parsed = self._bodies.get((path, text))
        if parsed is None:
            documents = parse_documents({path: text})
            parsed = self._bodies[(path, text)] = tuple((i, body) for _, i, body in documents)
        return parsed
