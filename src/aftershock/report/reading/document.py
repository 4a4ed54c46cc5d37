"""The review document with every field it leaves out written back, by the rules of docs/reviewing.md
("Reading the document"): the graph with its nodes and edges by id, each node's layer, distance
and facts (graph/compact.py), each finding's headline, each provenance link's values key, and each
chart review's object ids.

The reports read the document as written, each what it needs (the comment's blast-radius chart the
expanded graph); this is for a program that wants every field, and what the tests hold the rules to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.graph.compact import expand_graph
from aftershock.provenance.document import values_key_of
from aftershock.report.findings_document import finding_headline


def readable_document(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `doc` with what it leaves out restored (`doc` itself is left as it is)."""
    full = dict(doc)
    if doc.get("graph") is not None:
        full["graph"] = expand_graph(doc["graph"], doc["values_changes"], doc["files"])
    objects = doc.get("objects", [])
    full["chart_reviews"] = [
        {**r, "objects": [objects[i]["id"] for i in r["objects"]]}
        for r in doc.get("chart_reviews", [])
    ]
    if doc.get("findings") is not None:
        full["findings"] = _findings(doc["findings"])
    if doc.get("provenance") is not None:
        full["provenance"] = _provenance(doc["provenance"])
    return full


def _findings(section: Mapping[str, Any]) -> dict[str, Any]:
    full = dict(section)
    for part in ("items", "suppressed"):
        if part in section:
            full[part] = [{**item, "headline": finding_headline(item)} for item in section[part]]
    return full


def _provenance(section: Mapping[str, Any]) -> dict[str, Any]:
    fields = [
        {**f, "values": [{"values_key": values_key_of(v), **v} for v in f["values"]]}
        for f in section["fields"]
    ]
    return {**section, "fields": fields}
