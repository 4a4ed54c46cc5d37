"""The provenance section reads a field's standing links once per field, not once per link (issue 35:
35,540 fields of sapcc's whole tree); what it says is the same."""

from __future__ import annotations

from aftershock.model.objects import ObjectKey
from aftershock.model.provenance import FieldProvenance, ProvenanceReport, ValuesLink
from aftershock.model.releases import Evidence
from aftershock.provenance import Check, provenance_document


def test_a_fields_standing_links_are_read_once(monkeypatch):
    links = tuple(
        ValuesLink(
            "charts/app/values.yaml",
            f"key{n}",
            "changed",
            (f"key{n}",),
            ("charts/app/templates/cm.yaml",),
            Evidence.OBSERVED if n == 0 else Evidence.INFERRED,
            Check.NOT_PRODUCED if n == 2 else Check.PRODUCED,
        )
        for n in range(4)
    )
    field = FieldProvenance(
        "charts/app", "core/ConfigMap/_/app", ObjectKey("", "ConfigMap", "", "app"), "data.a", "changed",
        values=links,
    )  # fmt: skip
    reads = []
    real = FieldProvenance.standing
    monkeypatch.setattr(
        FieldProvenance, "standing", property(lambda item: reads.append(item) or real.fget(item))
    )
    document = provenance_document(ProvenanceReport((field,)))
    assert [v["standing"] for v in document["fields"][0]["values"]] == [True, True, False, True]
    # the summary counts read it twice; the field's links once
    assert len(reads) == 3
