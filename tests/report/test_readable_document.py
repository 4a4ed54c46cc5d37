"""What the review document leaves out because the rest says it comes back as the review made it:
each finding's headline, each provenance link's values key, each chart review's object ids (the
graph's part: tests/graph/test_graph_build.py and the explorer's tests)."""

from __future__ import annotations

import pytest

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.reading import readable_document


@pytest.fixture(scope="module")
def reviewed(example_repo, renderer):
    request = ReviewRequest(repo=example_repo, base="demo-base", head="demo-head", run_tests=False)
    result = review_change(request, renderer)
    return result, review_document(result.review, result.judgement)


def test_a_findings_headline_is_left_out_and_read_back(reviewed):
    result, doc = reviewed
    items = doc["findings"]["items"]
    assert items and all("headline" not in i for i in items)
    read = readable_document(doc)["findings"]["items"]
    assert [i["headline"] for i in read] == [f.headline for f in result.judgement.findings]
    assert [{k: v for k, v in i.items() if k != "headline"} for i in read] == items


def test_a_provenance_links_values_key_is_left_out_and_read_back(reviewed):
    result, doc = reviewed
    links = [v for f in doc["provenance"]["fields"] for v in f["values"]]
    assert links and all("values_key" not in v for v in links)
    read = [v for f in readable_document(doc)["provenance"]["fields"] for v in f["values"]]
    made = [v.ref for f in result.review.provenance.fields for v in f.values]
    assert [v["values_key"] for v in read] == made
    keys = {n["ref"] for n in readable_document(doc)["graph"]["nodes"] if n["kind"] == "values_key"}
    in_files = {v["values_key"] for v in read if not v["file"].startswith("release ")}
    assert in_files and in_files <= keys  # a values file's key: the ref of its node


def test_a_chart_review_names_its_objects_by_index(reviewed):
    _, doc = reviewed
    objects = doc["objects"]
    indexes = [i for r in doc["chart_reviews"] for i in r["objects"]]
    assert indexes and all(isinstance(i, int) and 0 <= i < len(objects) for i in indexes)
    for entry, read in zip(doc["chart_reviews"], readable_document(doc)["chart_reviews"]):
        assert read["objects"] == [objects[i]["id"] for i in entry["objects"]]
        # each names the entry of its own review, or its default scenario's that says it `same_in`
        for i in entry["objects"]:
            held = objects[i]
            assert held["review"] == entry["id"] or entry["scenario"] in held["same_in"]
