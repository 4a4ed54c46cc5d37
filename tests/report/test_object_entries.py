"""The review document's `objects` from a real review: a non-default scenario's change identical to
the default scenario's is said once, by the default's entry, and nothing refers to an entry left out."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.reading import readable_document
from aftershock.report.shown import field_where, merged_across_scenarios
from charts import app_chart
from gitrepo import commit, make_repo

SCHEMA = (
    Path(__file__).resolve().parents[2] / "src" / "aftershock" / "schema" / "review.schema.json"
)
DEPLOYMENT = "apps/Deployment/default/release-c"
ALIKE, OTHER = "file:values-a.yaml", "file:values-b.yaml"


@pytest.fixture(scope="module")
def doc(tmp_path_factory, renderer) -> dict:
    """Chart c's image and mode change: values-a.yaml changes neither (its scenario changes the
    Deployment as the default does), values-b.yaml sets the mode (its scenario changes the image only)."""
    repo = make_repo(tmp_path_factory.mktemp("entries"))
    files = app_chart("c", "c")
    files |= {"c/values-a.yaml": "replicas: 5\n", "c/values-b.yaml": "mode: slow\n"}
    base = commit(repo, files, "feat: chart c")
    bumped = files["c/values.yaml"].replace("1.27.0", "1.27.1").replace("fast", "turbo")
    head = commit(repo, {"c/values.yaml": bumped}, "feat: nginx 1.27.1, turbo")
    result = review_change(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False), renderer
    )
    return review_document(result.review, result.judgement)


def test_a_scenario_changing_an_object_as_the_default_does_is_said_by_the_default_entry(doc):
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    entries = [o for o in doc["objects"] if o["key"]["id"] == DEPLOYMENT]
    assert [(o["scenario"], o["same_in"]) for o in entries] == [
        ("default", [ALIKE]),
        (OTHER, []),
    ]
    assert entries[0]["rendered_in"] == ["default", ALIKE, OTHER]
    assert [f["path"] for f in entries[1]["fields"]] == [
        "spec.template.spec.containers[name=app].image"
    ]
    # a chart review names its entries by their index in `objects`
    reviews = {r["scenario"]: r["objects"] for r in doc["chart_reviews"]}
    assert reviews["default"] == reviews[ALIKE] == [doc["objects"].index(entries[0])]
    assert reviews[OTHER] == [doc["objects"].index(entries[1])]


def test_nothing_refers_to_an_entry_left_out(doc):
    ids = {o["id"] for o in doc["objects"]}
    full = readable_document(doc)
    referred = {i for r in full["chart_reviews"] for i in r["objects"]}
    referred |= {
        n["ref"] for n in full["graph"]["nodes"] if n["kind"] in ("object", "downstream_object")
    }
    referred |= {f["object"] for f in doc["provenance"]["fields"]}
    referred |= {
        f["subject"]["id"] for f in doc["findings"]["items"] if f["subject"]["kind"] == "object"
    }
    assert referred and referred <= ids


def test_merged_the_entries_say_each_field_where_it_changed(doc):
    (deployment,) = [
        o for o in merged_across_scenarios(doc["objects"]) if o["key"]["id"] == DEPLOYMENT
    ]
    assert deployment["scenarios"] == ["default", ALIKE, OTHER]
    where = {f["path"].rsplit(".", 1)[-1]: field_where(deployment, f) for f in deployment["fields"]}
    assert where["image"] is None
    assert where["value"] == "in 2 of 3 scenarios; not in: file:values-b.yaml"


def test_the_same_edit_to_a_text_is_the_same_change_whose_other_lines_differ():
    """A script line listed in Go's order is masked in one scenario and not in another: the same
    edit is the same change (said once, by the default's entry); another edit is not."""
    from aftershock.report.object_entries import change_fingerprint

    def entry(listing: str, after: str) -> dict:
        text = "#!/bin/sh\nIPS={}\nA=1\nB=1\nC=1\nOPTS={}\nexec db\n"
        field = {"path": "data.run", "change": "modified", "ignored": False}
        field |= {"before": text.format(listing, "a"), "after": text.format(listing, after)}
        return {"key": {"id": "cm"}, "change": "changed", "fields": [field], "scenario": "x"}

    masked, listed = entry("<unstable>", "b"), entry("y,x", "b")
    assert change_fingerprint(masked) == change_fingerprint(listed)
    assert change_fingerprint(masked) != change_fingerprint(entry("<unstable>", "c"))
