"""A changed file's hunks in the review document are bounded per file and per document, and say what
they left out; the document stays valid against its schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from aftershock.model.change import FileChange, FileStatus, Hunk
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import (
    MAX_FILE_LINES,
    HunkBudget,
    hunk_documents,
    review_document,
)
from gitrepo import commit, make_repo

SCHEMA = Path(__file__).resolve().parents[2] / "src/aftershock/schema/review.schema.json"


def _added(path: str, count: int) -> FileChange:
    lines = tuple(f"+line {n}" for n in range(count))
    hunk = Hunk(0, 0, 1, count, "", lines)
    return FileChange(path, FileStatus.ADDED, additions=count, hunks=(hunk, hunk))


def test_a_file_keeps_its_first_lines_and_every_hunk_header():
    hunks, omitted = hunk_documents(_added("a.yaml", 200), False, frozenset(), HunkBudget())
    assert [len(h["lines"]) for h in hunks] == [200, MAX_FILE_LINES - 200]
    assert omitted == 400 - MAX_FILE_LINES
    assert all(h["new_lines"] == 200 for h in hunks)


class _CountedLines(tuple):
    """A hunk's lines that count how many were read."""

    read = 0

    def __iter__(self):
        for line in super().__iter__():
            type(self).read += 1
            yield line


def test_only_the_lines_kept_are_redacted():
    """An added file's hunk is the whole file (sapcc's dashboards: tens of thousands of lines); the
    lines past the bound were redacted, then dropped: a seventh of a whole-tree review's time."""
    lines = _CountedLines(f"+  password: pw{n}" for n in range(20 * MAX_FILE_LINES))
    change = FileChange("a.yaml", FileStatus.ADDED, hunks=(Hunk(0, 0, 1, len(lines), "", lines),))
    (hunk,), omitted = hunk_documents(change, False, frozenset(), HunkBudget())
    assert len(hunk["lines"]) == MAX_FILE_LINES and omitted == 19 * MAX_FILE_LINES
    assert hunk["lines"][0] == "+  password: <redacted: 3 bytes>"
    assert _CountedLines.read <= MAX_FILE_LINES + 1


def test_the_document_budget_is_spent_file_by_file():
    budget = HunkBudget(chars=len("+line 1") * 10)
    first, _ = hunk_documents(_added("a.yaml", 8), False, frozenset(), budget)
    second, omitted = hunk_documents(_added("b.yaml", 8), False, frozenset(), budget)
    assert sum(len(h["lines"]) for h in first) == 10  # 8, then 2 of the second hunk
    assert second[0]["lines"] == [] and omitted == 16


def test_a_long_added_file_is_cut_in_the_review_document(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {"README.md": "x\n"}, "init")
    data = "".join(f"  key{n}: value{n}\n" for n in range(MAX_FILE_LINES + 50))
    manifest = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n{data}"
    commit(repo, {"deploy/big.yaml": manifest}, "feat: a big config map")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    doc = json.loads(json.dumps(review_document(result.review, result.judgement)))
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    (big,) = [f for f in doc["files"] if f["path"] == "deploy/big.yaml"]
    assert len(big["hunks"][0]["lines"]) == MAX_FILE_LINES
    assert big["lines_omitted"] == MAX_FILE_LINES + 55 - MAX_FILE_LINES
    assert all("lines_omitted" not in f for f in doc["files"] if f["path"] != "deploy/big.yaml")
