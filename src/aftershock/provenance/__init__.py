"""Provenance of changed rendered fields: which values keys and templates produce each (pure).

Static analysis of Go templates (gotemplate.py, reads.py, templates.py), links per field (link.py),
the pure side of perturbation renders (perturb.py), and the document and graph edges (document.py).
The renders themselves are wired in aftershock.pipeline.observation.provenance.
"""

from aftershock.model.provenance import (
    Check,
    FieldProvenance,
    Perturbation,
    ProvenanceEdge,
    ProvenanceReport,
    TemplateLink,
    ValuesLink,
)
from aftershock.provenance.document import provenance_document, provenance_edges
from aftershock.provenance.link import provenance

__all__ = [
    "Check",
    "FieldProvenance",
    "Perturbation",
    "ProvenanceEdge",
    "ProvenanceReport",
    "TemplateLink",
    "ValuesLink",
    "provenance",
    "provenance_document",
    "provenance_edges",
]
