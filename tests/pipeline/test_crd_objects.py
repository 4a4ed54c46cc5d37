"""A chart's crds/ files are parsed once per review and their bodies shared by every chart, side and
scenario that installs them (pipeline/rendering/side_results.py::CrdObjects): the diff and the
secret taint then skip what both refs share by identity."""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.rendering.side_results import CrdObjects
from charts import chart_yaml
from gitrepo import commit, make_repo


def _crd(name: str) -> str:
    return (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        f"metadata: {{name: {name}s.example.com}}\nspec:\n  group: example.com\n"
        f"  names: {{kind: {name.title()}, plural: {name}s}}\n  scope: Namespaced\n"
        "  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n"
    )


def test_each_file_is_parsed_once_whatever_the_order_charts_ask_for_it() -> None:
    files = {f"crds/c{n}.yaml": _crd(f"c{n}") for n in range(100)}
    charts = [tuple(sorted(files.items()))[n * 10 : n * 10 + 10] for n in range(10)]
    crds = CrdObjects()
    first = {
        (chart, o.key.name): o.body
        for round_ in range(2)
        for n, chart in enumerate(charts)
        for o in crds.objects(chart, f"chart{n}", f"ns{round_}")
    }
    again = [o for n, chart in enumerate(charts) for o in crds.objects(chart, f"other{n}", "ns")]
    assert len(first) == 100 and len(again) == 100
    assert {id(body) for body in first.values()} == {id(o.body) for o in again}


def test_both_refs_and_every_scenario_share_one_parse(tmp_path, renderer) -> None:
    repo = make_repo(tmp_path)
    chart = {
        "apps/web/Chart.yaml": chart_yaml("web"),
        "apps/web/values.yaml": "mode: fast\n",
        "apps/web/ci/test-values.yaml": "mode: ci\n",
        "apps/web/crds/cache.yaml": _crd("cache"),
        "apps/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n"
        "data: {mode: {{ .Values.mode | quote }}}\n",
    }
    base = commit(repo, chart, "feat: web")
    head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "web slow")
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    reviews = [r for r in result.chart_reviews if r.chart == "apps/web"]
    bodies = [
        o.body
        for r in reviews
        for o in (*r.base_objects, *r.head_objects)
        if o.key.kind == "CustomResourceDefinition"
    ]
    assert len(reviews) == 2 and len(bodies) == 4  # default and ci, at both refs
    assert len({id(body) for body in bodies}) == 1
