"""Charts refused before anything reads them: a file their render needs is over a bound of every read,
or would make Helm reach outside the repository.

A chart (with its local dependencies) holding a file over the size limit, a values or metadata file
whose YAML aliases expand past go-yaml's bound (an alias bomb), or a values schema referring to an
address or a file outside the repository (`render.schemas.schema_reach`: Helm would fetch or open it), is not rendered, nor are its contexts, scenarios or tests
read: it is *not reviewed* with the reason, once, and the rest of the review goes on.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.yaml_files import over_bound
from aftershock.model.change import Side
from aftershock.model.errors import AftershockError
from aftershock.model.review import (
    ChartOutcome,
    ChartRender,
    ChartReview,
    NotReviewed,
    RenderStatus,
)
from aftershock.pipeline.rendering.chart_jobs import SideInput
from aftershock.render.plan import ChartPlan, dependency_closure
from aftershock.render.schemas.schema_reach import tree_schema_refusal


def refusal(plan: ChartPlan, base: SideInput, head: SideInput) -> tuple[Side, str] | None:
    """The first side at which a file the plan's chart needs is over a bound, and why."""
    for side, (tree, charts), chart in ((Side.BASE, base, plan.base), (Side.HEAD, head, plan.head)):
        if chart is None:
            continue
        by_path = {c.path: c for c in charts}
        folders = dependency_closure(chart, by_path)
        paths = [p for f in folders for p in tree.tree.paths_under(f)]
        reason = over_bound(tree, paths, _read_by_helm) or tree_schema_refusal(
            functools.partial(readable_text, tree),
            functools.partial(_bytes, tree),
            paths,
        )
        if reason:
            return side, reason
    return None


def readable_text(tree: RefSnapshot, path: str) -> str | None:
    """The file's text, or None where it cannot be read (absent, over a bound, not UTF-8)."""
    try:
        return tree.text_or_none(path)
    except (AftershockError, UnicodeDecodeError, KeyError, ValueError):
        return None  # over a bound, or not text: left as written, so refused


def _bytes(tree: RefSnapshot, path: str) -> bytes | None:
    try:
        return next(
            (data for _, data in tree.tree.read_many([path], max_bytes=tree.max_file_bytes)), None
        )
    except (AftershockError, KeyError, ValueError):
        return None


def _read_by_helm(path: str) -> bool:
    """Helm parses a chart's values and metadata; templates it renders (their output is parsed with the
    bound) and test suites are helm-unittest's (read with the bound, a suite failing on its own)."""
    return "/templates/" not in f"/{path}" and "/tests/" not in f"/{path}"


def split_refused(
    plans: Sequence[ChartPlan], base: SideInput, head: SideInput
) -> tuple[list[ChartPlan], tuple[ChartReview, ...], tuple[NotReviewed, ...]]:
    """(the plans to render, the refused ones' reviews, their not-reviewed lines)."""
    kept: list[ChartPlan] = []
    reviews: list[ChartReview] = []
    gaps: list[NotReviewed] = []
    for plan in plans:
        refused = refusal(plan, base, head)
        if refused is None:
            kept.append(plan)
            continue
        side, reason = refused
        # Neither side is rendered: a diff against one side alone would read as the whole chart changing.
        renders = {
            s: ChartRender(s, RenderStatus.ABSENT)
            if chart is None
            else ChartRender(s, RenderStatus.FAILED, error=reason)
            for s, chart in ((Side.BASE, plan.base), (Side.HEAD, plan.head))
        }
        reviews.append(
            ChartReview(
                plan.path,
                plan.name,
                plan.affected,
                renders[Side.BASE],
                renders[Side.HEAD],
                ChartOutcome.NOT_REVIEWED,
                release=plan.release,
                cluster=plan.cluster,
            )
        )
        gaps.append(NotReviewed(f"chart {plan.path}", reason, side))
    return kept, tuple(reviews), tuple(gaps)
