"""The compact JSON of a review is written part by part, and is the text `json.dumps` gives."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from aftershock.report.formats import OutputFormat, write_compact_json, write_report

SNAPSHOTS = sorted((Path(__file__).resolve().parents[1] / "snapshots" / "example").glob("*.json"))


def _dumped(data: object) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: p.stem)
def test_a_review_document_is_written_as_json_dumps_writes_it(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    stream = io.StringIO()
    write_report(doc, OutputFormat.JSON, stream, color=False)
    assert stream.getvalue() == _dumped(doc) + "\n"


def test_odd_values_at_every_depth_come_out_the_same():
    data = {
        "é": ["ü", 1.5, None, True, (1, 2), {"k": {"deep": [1, {"x": "\u2028"}]}}],
        "ints": {1: "a", 2: "b"},  # keys json turns into text
        "empty": {"a": [], "b": {}},
        "nan": float("nan"),
    }
    for depth in range(5):
        stream = io.StringIO()
        write_compact_json(data, stream, depth)
        assert stream.getvalue() == _dumped(data)
    assert SNAPSHOTS  # the review documents above were found
