"""The canonical JSON document of a review (schema: aftershock/schema/review.schema.json).

Every format is written from it, and it is the one place Secret values are hidden: the whole
document passes through the review's SecretTaint scrub (aftershock/safety/secret_taint.py)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from aftershock import __version__
from aftershock.diff.values_keys import describe_change, is_sensitive, redact_value
from aftershock.evidence.document import test_evidence_document
from aftershock.graph import blast_radius, build_graph, graph_section
from aftershock.model.change import Commit, FileChange
from aftershock.provenance.document import provenance_document, provenance_edges
from aftershock.report.contexts import context_document, scenarios_document
from aftershock.report.findings_document import findings_document
from aftershock.report.lifecycle_document import lifecycle_document
from aftershock.report.object_entries import review_id, review_objects
from aftershock.report.redaction import redact_hunk_lines
from aftershock.safety.secret_taint import SecretTaint, secret_taint

if TYPE_CHECKING:
    from aftershock.judgement.result import Judgement
    from aftershock.judgement.stateful import StatefulReview
from aftershock.model.review import ChartOutcome, ChartRender, ChartReview, Review
from aftershock.model.units import Chart, ValuesKeyChange

SCHEMA_VERSION = "3.1"
_NONE: frozenset[str] = frozenset()
MAX_FILE_LINES = 300  # of a changed file's hunks in the document (files[].lines_omitted: the rest)
MAX_DOCUMENT_CHARS = 4_000_000  # of hunk lines in one document


def review_document(
    review: Review,
    judgement: Judgement | None = None,
    state: StatefulReview | None = None,
    observed: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every layer of the review as plain JSON-compatible data, in a stable order; with its findings
    and verdicts when the rules ran (they always do in `aftershock review`), and the lifecycle of
    its findings when it was recorded in the review state. `observed` is the review's
    `observation_document` when it was made already (while the review was judged)."""
    taint = secret_taint(review)
    doc = dict(observed) if observed is not None else observation_document(review)
    if judgement is not None:
        doc["config"] = taint.scrub(judgement.config_source)
        doc["findings"] = taint.scrub(
            findings_document(
                judgement.findings, judgement.verdicts, judgement.suppressed, judgement.notices
            )
        )
    if state is not None:
        doc["lifecycle"] = taint.scrub(lifecycle_document(state))
    return doc


def observation_document(review: Review) -> dict[str, Any]:
    """The layers of the review that do not depend on its judgement, Secret texts hidden: the
    document less its configuration, findings and lifecycle."""
    taint = secret_taint(review)
    scrubbed: dict[str, Any] = taint.scrub(_observation(review, taint))
    return scrubbed


def _observation(review: Review, taint: SecretTaint) -> dict[str, Any]:
    unit_ids = {path: [u.id for u in units] for path, units in review.units}
    secret_files = _secret_templates(review)
    base_charts = {c.path: c for c in review.base_charts}
    budget = HunkBudget()
    objects = review_objects(review)
    secret_keys = _secret_keys(taint)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "aftershock", "version": __version__},
        "repository": review.repository,
        "base": {"ref": review.base.ref, "sha": review.base.sha},
        "head": {"ref": review.head.ref, "sha": review.head.sha},
        "options": _options(review),
        "status": "complete" if review.complete else "partial",
        "summary": _summary(review),
        "commits": [_commit(c) for c in review.commits],
        "files": [
            _file(
                f,
                unit_ids.get(f.path, []),
                hunk_documents(f, f.path in secret_files, secret_keys.get(f.path, _NONE), budget),
            )
            for f in review.files
        ],
        "units": _units(review),
        "values_changes": [_values_change(v, taint) for v in review.values_changes],
        "charts": [_chart(c, base_charts.get(c.path)) for c in review.charts],
        "affected_charts": _affected(review),
        "chart_reviews": list(map(_chart_review, review.chart_reviews, objects.review_indexes)),
        "scenarios": [scenarios_document(review, s) for s in review.scenarios],
        "changed_lines": [
            {**asdict(c), "side": c.side.value, "scenarios": list(c.scenarios)}
            for c in review.changed_lines
        ],
        "contexts": [context_document(c) for c in review.contexts],
        "objects": objects.entries,
        "not_reviewed": [
            {**asdict(n), "side": n.side.value if n.side else None} for n in review.not_reviewed
        ],
        "graph": _graph(review),
        "tests": test_evidence_document(review.tests) if review.tests is not None else None,
        "provenance": provenance_document(review.provenance)
        if review.provenance is not None
        else None,
    }


def _graph(review: Review) -> dict[str, Any]:
    graph = build_graph(
        review, provenance_edges(review.provenance) if review.provenance is not None else ()
    )
    return graph_section(graph, blast_radius(graph))


def _options(review: Review) -> dict[str, Any]:
    o = review.options
    return {
        "release_name": o.release_name,
        "namespace": o.namespace,
        "renderer": o.renderer,
        "renderer_version": o.renderer_version,
        "kube_version": o.kube_version,
    }


def _summary(review: Review) -> dict[str, int]:
    changes = [c for r in review.chart_reviews for c in r.changes]
    return {
        "commits": len(review.commits),
        "files": len(review.files),
        "charts_affected": len(review.affected),
        "charts_rendered": len({(r.chart, r.release) for r in review.chart_reviews}),
        "renders": len(review.chart_reviews),
        "charts_changed": sum(r.outcome is ChartOutcome.CHANGED for r in review.chart_reviews),
        "charts_not_reviewed": sum(
            r.outcome is ChartOutcome.NOT_REVIEWED for r in review.chart_reviews
        ),
        "charts_rendered_by_template": len(
            {(r.chart, r.release) for r in review.chart_reviews if r.partial}
        ),
        # distinct objects: one changed in several scenarios of an install counts once
        "objects_changed": len(
            {(f"{r.chart}@{r.release}", c.key.id) for r in review.chart_reviews for c in r.changes}
        ),
        "fields_changed": sum(len(c.fields) for c in changes),
        "not_reviewed": len(review.not_reviewed),
    }


def _commit(c: Commit) -> dict[str, Any]:
    return {
        "sha": c.sha,
        "short_sha": c.short_sha,
        "title": c.title,
        "body": c.body,
        "author": {"name": c.author.name, "email": c.author.email},
        "authored_at": c.authored_at,
        "committer": {"name": c.committer.name, "email": c.committer.email},
        "parents": list(c.parents),
        "trailers": [{"key": t.key, "value": t.value} for t in c.trailers],
    }


def _secret_templates(review: Review) -> set[str]:
    """Repository paths of templates that rendered a Secret on either side, and files whose hunks hold one."""
    paths = {
        path
        for r in review.chart_reviews
        for o in (*r.base_objects, *r.head_objects)
        if o.key.kind == "Secret" and o.key.group == ""
        for path in (o.template, *o.shaped_by)  # a secretGenerator's env and files too
    }
    for f in review.files:
        if any("kind: Secret" in line for h in f.hunks for line in h.lines):
            paths.add(f.path)
    return paths


def _secret_keys(taint: SecretTaint) -> dict[str, frozenset[str]]:
    """Per values file, the last segments of its keys that feed a Secret, as a YAML line names them."""
    found: dict[str, set[str]] = {}
    for file, key in taint.values_keys:
        found.setdefault(file, set()).add(key.rsplit(".", 1)[-1].strip('"'))
    return {file: frozenset(keys) for file, keys in found.items()}


def _file(
    f: FileChange, units: list[str], hunks: tuple[list[dict[str, Any]], int]
) -> dict[str, Any]:
    shown, omitted = hunks
    return {
        "path": f.path,
        "old_path": f.old_path,
        "status": f.status.value,
        "similarity": f.similarity,
        "old_mode": f.old_mode,
        "new_mode": f.new_mode,
        "symlink": f.is_symlink,
        "mode_changed": f.mode_changed,
        "binary": f.binary,
        "additions": f.additions,
        "deletions": f.deletions,
        "commits": list(f.commits),
        "units": units,
        "hunks": shown,
        **({"lines_omitted": omitted} if omitted else {}),
    }


@dataclass
class HunkBudget:
    """What is left of the document's characters for hunk lines (spent file by file, in order). The
    repository holds the text; the document keeps what a reader reads of it (the HTML explorer shows
    300 lines a file), so a tree reviewed as added does not turn into a copy of the repository."""

    chars: int = MAX_DOCUMENT_CHARS


def hunk_documents(
    change: FileChange, secret_file: bool, secret_keys: frozenset[str], budget: HunkBudget
) -> tuple[list[dict[str, Any]], int]:
    """The file's hunks as JSON data, and how many of their lines were left out."""
    hunks, shown, omitted = [], 0, 0
    for hunk in change.hunks:
        kept: list[str] = []
        # redacted as kept: an added file's hunk is the whole file, of which MAX_FILE_LINES stay
        for line in redact_hunk_lines(hunk.lines, secret_file=secret_file, secret_keys=secret_keys):
            if shown >= MAX_FILE_LINES or budget.chars < len(line):
                break
            kept.append(line)
            shown += 1
            budget.chars -= len(line)
        omitted += len(hunk.lines) - len(kept)
        hunks.append(
            {
                "old_start": hunk.old_start,
                "old_lines": hunk.old_lines,
                "new_start": hunk.new_start,
                "new_lines": hunk.new_lines,
                "header": hunk.header,
                "lines": kept,
            }
        )
    return hunks, omitted


def _units(review: Review) -> list[dict[str, Any]]:
    merged: dict[str, dict[str, Any]] = {}
    for path, units in review.units:
        for u in units:
            entry = merged.setdefault(
                u.id,
                {
                    "id": u.id,
                    "kind": u.kind.value,
                    "path": u.path,
                    "chart": u.chart,
                    "defines": [],
                    "files": [],
                },
            )
            entry["defines"] = list(dict.fromkeys(entry["defines"] + list(u.defines)))
            if path not in entry["files"]:
                entry["files"].append(path)
    return [merged[k] for k in sorted(merged)]


def _values_change(v: ValuesKeyChange, taint: SecretTaint) -> dict[str, Any]:
    named = is_sensitive(v.path) or v.secret or taint.feeds_secret(v.file, v.path)
    # values redaction leaves as they are (true, null, maps of those) hold no credential: a
    # `certManager.enable` switched off is said as such, not as a secret
    sensitive = named and any(redact_value(x) != x for x in (v.before, v.after))
    return {
        "chart": v.chart,
        "file": v.file,
        "path": v.path,
        "change": v.kind.value,
        "sensitive": sensitive,
        "before": redact_value(v.before) if sensitive else v.before,
        "after": redact_value(v.after) if sensitive else v.after,
        "description": describe_change(v, secret=sensitive),
    }


def _chart(c: Chart, at_base: Chart | None = None) -> dict[str, Any]:
    return {
        "path": c.path,
        "name": c.name,
        "version": c.version,
        "type": c.type.value,
        "app_version": c.app_version,
        "base_version": at_base.version if at_base else None,
        "base_app_version": at_base.app_version if at_base else None,
        "embedded_in": c.embedded_in,
        "dependencies": [
            {
                "name": d.name,
                "version": d.version,
                "repository": d.repository,
                "source": d.source.value,
                "alias": d.alias,
                "condition": d.condition,
                "resolved_path": d.resolved_path,
                **({"locked_version": d.locked} if d.locked else {}),
            }
            for d in c.dependencies
        ],
    }


def _affected(review: Review) -> list[dict[str, Any]]:
    rendered = {r.chart for r in review.chart_reviews}
    return [
        {
            "chart": a.chart,
            "rendered": a.chart in rendered,
            "path": [{"kind": s.kind, "id": s.id, "relation": s.relation} for s in a.path],
        }
        for a in review.affected
    ]


def _render(r: ChartRender) -> dict[str, Any]:
    return {
        "status": r.status.value,
        "objects": r.object_count,
        "error": r.error,
        **({"version": r.chart_version} if r.chart_version else {}),
        **({"warnings": list(r.warnings)} if r.warnings else {}),
    }


def _chart_review(r: ChartReview, objects: list[int]) -> dict[str, Any]:
    return {
        "id": review_id(r),
        "release": r.release,
        "scenario": r.scenario,
        "chart": r.chart,
        "name": r.name,
        "outcome": r.outcome.value,
        "base": _render(r.base),
        "head": _render(r.head),
        "unstable_fields": r.unstable_fields,
        "affected_path": [
            {"kind": s.kind, "id": s.id, "relation": s.relation} for s in r.affected.path
        ],
        "objects": objects,  # indexes in the document's `objects`
        "partial": r.partial,
        "templates_not_rendered": [
            {"template": t.template, "base_error": t.base_error, "head_error": t.head_error}
            for t in r.templates_not_rendered
        ],
        "dependencies_not_rendered": [
            {"dependency": d.dependency, "route": d.route, "reason": d.reason}
            for d in r.dependencies_not_rendered
        ],
        "templates_fixed_at_head": [
            {"template": t.template, "base_error": t.base_error} for t in r.templates_fixed_at_head
        ],
        "keys_left_out_at_base": list(r.keys_left_out_at_base),
    }
