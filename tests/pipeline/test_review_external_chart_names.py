"""A chart from outside the repository is named as its release names it, in every output: the objects
of a HelmRelease's OCIRepository chart (pulled from a real OCI registry on loopback, rendered by real
Helm at both versions of a tag bump) are the chart review's (`oci://…/podinfo`), their templates are
Helm's own names (`podinfo/templates/deployment.yaml`), the comment says the release and the versions;
the folder of the review's workspace the archives were unpacked in shows nowhere."""

from __future__ import annotations

import json

from test_review_external_charts import podinfo_tag_bump

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from aftershock.report.html import render_html
from aftershock.report.sarif import sarif_document
from ociregistry import serve_registry

WORKSPACE = ".aftershock-charts"  # where the pipeline unpacks external charts


def test_an_oci_chart_bump_is_named_by_its_address_and_helm_template_names(tmp_path, renderer):
    with serve_registry() as registry:
        repo, base = podinfo_tag_bump(tmp_path, registry)
        request = ReviewRequest(
            repo=repo, base=base, run_tests=False, chart_cache=tmp_path / "cache", fetch_charts=True
        )
        result = review_change(request, renderer)
        address = f"oci://{registry.url.removeprefix('http://')}/charts/podinfo"
    doc = review_document(result.review, result.judgement)
    (install,) = [r for r in doc["chart_reviews"] if r["chart"] == address]
    assert (install["base"]["version"], install["head"]["version"]) == ("6.5.0", "6.6.0")
    (deployment,) = [o for o in doc["objects"] if o["review"] == install["id"]]
    assert deployment["chart"] == address == install["chart"]
    assert deployment["templates"] == ["podinfo/templates/deployment.yaml"]
    assert {o["chart"] for o in doc["objects"]} <= {r["chart"] for r in doc["chart_reviews"]}

    text = render_markdown(doc)
    assert (
        f"<code>Deployment.apps apps/apps-podinfo-podinfo</code> in <code>{address} 6.5.0 → 6.6.0 via "
        "HelmRelease flux-system/podinfo in cluster prod</code>"
    ) in text
    assert "From `podinfo/templates/deployment.yaml`" in text
    sarif = sarif_document(result.review, result.judgement.findings)
    on_chart = [
        f for f in result.judgement.findings if f.subject.id.startswith(f"{install['id']}::")
    ]
    assert on_chart and all(
        f.location is None or not f.location.file.startswith(WORKSPACE) for f in on_chart
    )
    for output in (json.dumps(doc), text, render_html(doc), json.dumps(sarif)):
        assert WORKSPACE not in output
