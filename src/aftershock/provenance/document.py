"""The `provenance` section of the review document, and the graph's `produces` edges (pure).

Plain JSON data in a stable order (fields in the review's change order); no values, only key paths,
field paths and files, so nothing a Secret holds can leak through it. Its JSON Schema is
schema_fragment.json next to this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.model.provenance import (
    FieldProvenance,
    ProvenanceEdge,
    ProvenanceReport,
    ValuesLink,
)
from aftershock.model.releases import Evidence

SECTION_VERSION = "2"


def provenance_document(report: ProvenanceReport) -> dict[str, Any]:
    observed = sum(
        1 for f in report.fields if any(v.evidence is Evidence.OBSERVED for v in f.standing)
    )
    linked = sum(1 for f in report.fields if f.standing)
    return {
        "version": SECTION_VERSION,
        "summary": {"fields": len(report.fields), "with_values_keys": linked, "observed": observed},
        "renders": {
            "max": report.max_renders,
            "ran": report.renders,
            "failed": report.failed,
            "cut": len(report.cut),
        },
        "cut": [{"review": p.review, "values_key": p.ref} for p in report.cut],
        "not_perturbed": [
            {"review": review, "reason": reason} for review, reason in report.not_perturbed
        ],
        "fields": [_field(f) for f in report.fields],
    }


def _field(item: FieldProvenance) -> dict[str, Any]:
    standing = item.standing  # a property that reads every link: once a field, not once a link
    return {
        "review": item.review,
        "object": item.object_id,
        "field": item.field,
        "change": item.change,
        "values": [_link(v, v in standing) for v in item.values],
        "templates": [
            {"path": t.path, "changed": t.changed, "evidence": t.evidence.value}
            for t in item.templates
        ],
    }


def _link(link: ValuesLink, standing: bool) -> dict[str, Any]:
    """A values key read for the field; its id (`values_key_of`) is left out: its file and key say it."""
    return {
        "file": link.file,
        "key": link.key,
        "change": link.change,
        "reads": list(link.reads),
        "templates": list(link.templates),
        "evidence": link.evidence.value,
        "check": link.check.value,
        "standing": standing,
    }


def values_key_of(link: Mapping[str, Any]) -> str:
    """The values key a link of the document names, `<file>::<key>`, as values-key nodes and the
    provenance's `cut` name it."""
    return f"{link['file']}::{link['key']}"


def provenance_edges(report: ProvenanceReport) -> tuple[ProvenanceEdge, ...]:
    """One edge per standing link: values key -> the object whose field it produces."""
    return tuple(
        ProvenanceEdge(link.ref, item.object_id, item.field, link.evidence)
        for item in report.fields
        for link in item.standing
    )
