"""Flux Kustomizations: the path each builds, with targetNamespace and postBuild substitution, at base and
head; the HelmReleases it builds are followed; the graph chains cluster -> Kustomization -> object."""

from __future__ import annotations

import time

import pytest

from aftershock.graph.build import build_graph
from aftershock.graph.model import EdgeKind, NodeKind
from aftershock.model.errors import MalformedInputError
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.releases.envsubst import substitute
from aftershock.render.kustomize import available
from charts import app_chart
from gitrepo import commit, make_repo
from yamlbombs import bomb_manifest

needs_kustomize = pytest.mark.skipif(available() is not None, reason=str(available()))


def flux_kustomization(
    replicas: str = "2", optional: bool = False, var_source: str = "cluster-vars"
) -> str:
    return f"""\
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {{name: apps, namespace: flux-system}}
spec:
  interval: 10m
  path: ./apps/prod
  prune: true
  sourceRef: {{kind: GitRepository, name: flux-system}}
  targetNamespace: web
  postBuild:
    substitute: {{replicas: "{replicas}"}}
    substituteFrom:
      - {{kind: ConfigMap, name: {var_source}, optional: {str(optional).lower()}}}
"""


def cluster_vars(tag: str = "1.27.0") -> str:
    return f'apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cluster-vars, namespace: flux-system}}\ndata: {{tag: "{tag}"}}\n'


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations: {literal: "$${kept}", home: "${HOME_DIR:=/srv}"}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:${tag:=latest}"}]
"""

HELM_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {{name: api}}
spec:
  chart:
    spec: {{chart: ./charts/api, sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}}}
  values: {{replicas: {replicas}}}
"""


def fleet(**changes: str) -> dict[str, str]:
    return {
        "clusters/prod/apps.yaml": changes.get("ks", flux_kustomization()),
        "clusters/prod/vars.yaml": changes.get("vars", cluster_vars()),
        "apps/base/kustomization.yaml": "resources: [deployment.yaml, api.yaml]\n",
        "apps/base/deployment.yaml": DEPLOYMENT,
        "apps/base/api.yaml": changes.get("api", HELM_RELEASE.format(replicas=1)),
        "apps/prod/kustomization.yaml": "resources: [../base]\n",
        **app_chart("charts/api", "api"),
    }


def _review(repo, base, renderer):
    return review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer).review


def _flux(review):
    (found,) = [
        r
        for r in review.chart_reviews
        if r.release == "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/apps@prod"
    ]
    return found


def test_envsubst_follows_flux_semantics():
    variables = {"var01": "abcdEFGH28ij", "default_var": "foo"}
    assert (
        substitute("some text ${var01}$${var$${var01}$var01${var01}", variables)
        == "some text abcdEFGH28ij${var${var01}$var01abcdEFGH28ij"
    )
    assert (
        substitute("foo: ${var=prefix${default_var}-suffix}", variables) == "foo: prefixfoo-suffix"
    )
    assert (
        substitute("${missing:=xyz} ${missing} ${#var01} ${var01^^} ${var01:4:4}", variables)
        == "xyz  12 ABCDEFGH28IJ EFGH"
    )
    with pytest.raises(MalformedInputError):
        substitute("${var01@Q}", variables)


# Cases of fluxcd/pkg envsubst's own table (eval_test.go), reproduced as its tests expect them.
FLUX_CASES = [
    ({"stringZ": "abcABC123ABCabc"}, "${stringZ/%abc/XYZ}", "abcABC123ABCXYZ"),
    ({"stringZ": "abcABC123ABCabc"}, "${stringZ/#abc/XYZ}", "XYZABC123ABCabc"),
    ({"stringZ": "somevalue"}, "${stringZ/#/prefix-}", "prefix-somevalue"),
    ({"stringZ": "somevalue"}, "${stringZ/%/-suffix}", "somevalue-suffix"),
    ({"stringZ": "abcABC123ABCabc"}, "${stringZ//abc/xyz}", "xyzABC123ABCxyz"),
    ({"stringZ": "abcABC123ABCabc"}, "${stringZ/abc/xyz}", "xyzABC123ABCabc"),
    ({"filename": "bash.string.txt"}, "${filename#*.}", "string.txt"),
    ({"filename": "path/to/file"}, "${filename#*/}", "to/file"),
    ({"filename": "/path/to/file"}, "${filename#*/}", "path/to/file"),
    ({"filename": "bash.string.txt"}, "${filename##*.}", "txt"),
    ({"filename": "path/to/file"}, "${filename##*/}", "file"),
    ({"filename": "bash.string.txt"}, "${filename%.*}", "bash.string"),
    ({"filename": "bash.string.txt"}, "${filename%%.*}", "bash"),
    ({"stringZ": "foo/bar"}, r"${stringZ/\//-}", "foo-bar"),
    ({"stringZ": "foo/bar/baz"}, r"${stringZ//\//-}", "foo-bar-baz"),
    ({"stringZ": "foo.bar"}, "${stringZ/./}", "foobar"),
    ({"default_var": "foo"}, "\\\\something ${var=${default_var}}", "\\\\something foo"),
    ({"var01": "abcdEFGH28ij"}, "${var=${var01^^}}", "ABCDEFGH28IJ"),
    ({"path_name": "/home/bozo/ideas/thoughts.for.today"}, "${path_name:11:5}", "ideas"),
]


@pytest.mark.parametrize(
    ("variables", "text", "expected"), FLUX_CASES, ids=[c[1] for c in FLUX_CASES]
)
def test_envsubst_operators_match_flux(variables, text, expected):
    assert substitute(text, variables) == expected


@needs_kustomize
def test_a_substituted_variable_change_is_built_with_target_namespace_in_its_cluster(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(repo, {"clusters/prod/apps.yaml": flux_kustomization(replicas="4")}, "scale prod")
    review = _review(repo, base, renderer)
    flux = _flux(review)
    assert (
        flux.outcome is ChartOutcome.CHANGED
        and flux.chart == "apps/prod"
        and flux.cluster == "prod"
    )
    (change,) = flux.changes
    assert str(change.key) == "Deployment.apps web/web"
    assert [(f.path, f.before, f.after) for f in change.fields] == [("spec.replicas", 2, 4)]
    body = next(o for o in flux.head_objects if o.key.kind == "Deployment").body
    assert body["metadata"]["annotations"] == {"literal": "${kept}", "home": "/srv"}
    assert body["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27.0"
    assert not [
        r
        for r in review.chart_reviews
        if r.name in ("kustomization", "manifests") and r.chart.startswith("apps")
    ]
    graph = build_graph(review)
    by_id = {n.id: n for n in graph.nodes}
    release = next(n for n in graph.nodes if n.kind is NodeKind.RELEASE and n.ref == flux.release)
    assert any(
        e.source == release.id
        and by_id[e.target].kind is NodeKind.CLUSTER
        and by_id[e.target].ref == "prod"
        and e.kind is EdgeKind.TARGETS
        for e in graph.edges
    )
    assert review.complete


@needs_kustomize
def test_a_substitute_from_configmap_change_reaches_the_kustomization(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(repo, {"clusters/prod/vars.yaml": cluster_vars(tag="1.28.0")}, "bump tag")
    (change,) = _flux(_review(repo, base, renderer)).changes
    assert [(f.path, f.after) for f in change.fields] == [
        ("spec.template.spec.containers[name=web].image", "nginx:1.28.0")
    ]


@needs_kustomize
def test_a_missing_substitute_from_is_not_reviewed_unless_optional(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(repo, {"clusters/prod/apps.yaml": flux_kustomization(var_source="gone")}, "typo")
    review = _review(repo, base, renderer)
    (gap,) = [g for g in review.not_reviewed if g.part.startswith("Flux Kustomization")]
    assert "substituteFrom ConfigMap/gone" in gap.reason and gap.side.value == "head"
    commit(
        repo,
        {"clusters/prod/apps.yaml": flux_kustomization(var_source="gone", optional=True)},
        "optional",
    )
    review = _review(repo, base, renderer)
    assert _flux(review).outcome is ChartOutcome.CHANGED  # ${tag} falls back to its default
    assert not [g for g in review.not_reviewed if g.part.startswith("Flux Kustomization")]


@needs_kustomize
@pytest.mark.parametrize("entries", ["5", "{kind: ConfigMap, name: cluster-vars}"])
def test_a_substitute_from_that_is_no_list_is_not_reviewed(tmp_path, renderer, entries):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    head_ks = flux_kustomization().split("    substituteFrom:")[0]
    commit(repo, {"clusters/prod/apps.yaml": f"{head_ks}    substituteFrom: {entries}\n"}, "bad")
    review = _review(repo, base, renderer)
    (gap,) = [g for g in review.not_reviewed if g.part.startswith("Flux Kustomization")]
    assert gap.reason == "spec.postBuild.substituteFrom is not a list"
    assert gap.side.value == "head"
    assert _flux(review).outcome is ChartOutcome.NOT_REVIEWED


@needs_kustomize
@pytest.mark.parametrize("value", ["replicas=3", "[replicas, '3']"])
def test_a_substitute_that_is_no_mapping_is_not_reviewed(tmp_path, renderer, value):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    bad = flux_kustomization().replace('substitute: {replicas: "2"}', f"substitute: {value}")
    commit(repo, {"clusters/prod/apps.yaml": bad}, "bad")
    review = _review(repo, base, renderer)
    (gap,) = [g for g in review.not_reviewed if g.part.startswith("Flux Kustomization")]
    assert gap.reason == "spec.postBuild.substitute is not a mapping"
    assert gap.side.value == "head"
    assert _flux(review).outcome is ChartOutcome.NOT_REVIEWED


@needs_kustomize
def test_a_helm_release_the_kustomization_builds_is_followed_into_its_chart(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(repo, {"apps/base/api.yaml": HELM_RELEASE.format(replicas=3)}, "api runs three")
    review = _review(repo, base, renderer)
    (api,) = [r for r in review.chart_reviews if r.chart == "charts/api"]
    assert (
        api.release == "helm.toolkit.fluxcd.io/HelmRelease/web/api@prod"
    )  # targetNamespace applied to the release, which lives in the prod cluster
    assert api.cluster == "prod"  # the cluster of the Kustomization that applies it
    assert [s.kind for s in api.affected.path] == ["file", "release", "release", "chart"]
    (change,) = api.changes
    assert change.key.namespace == "web" and [(f.path, f.after) for f in change.fields] == [
        ("spec.replicas", 3)
    ]
    graph = build_graph(review)
    by_id = {n.id: n for n in graph.nodes}
    kinds = {(by_id[e.source].kind, by_id[e.target].kind) for e in graph.edges}
    # cluster <- Kustomization -> its built HelmRelease object -> the HelmRelease -> the chart as installed
    assert {
        (NodeKind.RELEASE, NodeKind.CLUSTER),
        (NodeKind.RELEASE, NodeKind.DOWNSTREAM_CHART),
        (NodeKind.DOWNSTREAM_CHART, NodeKind.DOWNSTREAM_OBJECT),
        (NodeKind.DOWNSTREAM_OBJECT, NodeKind.RELEASE),
    } <= kinds


@needs_kustomize
def test_a_kustomization_s_own_patch_links_the_object_it_patches_to_its_file(tmp_path, renderer):
    def patched(memory: str) -> str:
        return flux_kustomization() + (
            "  namePrefix: p-\n"  # the patch names `web`; kustomize matches it before the prefix
            "  patches:\n"
            "    - target: {kind: Deployment, name: web}\n"
            "      patch: |\n"
            f"        - {{op: add, path: /metadata/labels, value: {{memory: {memory}}}}}\n"
        )

    repo = make_repo(tmp_path)
    base = commit(repo, fleet(ks=patched("small")), "feat: fleet")
    commit(repo, {"clusters/prod/apps.yaml": patched("large")}, "relabel")
    review = _review(repo, base, renderer)
    (change,) = _flux(review).changes
    assert change.key.name == "p-web"
    assert change.templates == ("apps/base/deployment.yaml", "clusters/prod/apps.yaml")
    (release,) = [o for o in _flux(review).head_objects if o.key.kind == "HelmRelease"]
    assert release.shaped_by == ()  # the patch targets the Deployment only
    units = dict(review.units)["clusters/prod/apps.yaml"]
    assert ("flux:apps/prod:clusters/prod/apps.yaml", "template") in {
        (u.id, u.kind.value) for u in units
    }


@needs_kustomize
def test_objects_a_flux_kustomization_builds_name_the_file_that_declares_them(tmp_path, renderer):
    # The overlay carrying the spec's fields lies beside the materialised tree: kustomize's origin
    # paths pass through it and must still come back to the repository's own file.
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(repo, {"apps/base/api.yaml": HELM_RELEASE.format(replicas=3)}, "api runs three")
    flux = _flux(_review(repo, base, renderer))
    by_kind = {o.key.kind: o.template for o in flux.head_objects}
    assert by_kind["Deployment"] == "apps/base/deployment.yaml"
    assert by_kind["HelmRelease"] == "apps/base/api.yaml"


@needs_kustomize
@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("components", "5", "spec.components is not a list"),
        ("components", "../outside", "spec.components is not a list"),
        ("patches", "{a: b}", "spec.patches is not a list"),
        ("namePrefix", "[a-]", "spec.namePrefix is not a string"),
    ],
)
def test_a_build_field_of_the_wrong_type_is_not_reviewed(tmp_path, renderer, field, value, reason):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(repo, {"clusters/prod/apps.yaml": flux_kustomization() + f"  {field}: {value}\n"}, "bad")
    review = _review(repo, base, renderer)
    (gap,) = [g for g in review.not_reviewed if g.part.startswith("Flux Kustomization")]
    assert gap.reason == reason
    assert gap.side.value == "head"
    assert _flux(review).outcome is ChartOutcome.NOT_REVIEWED


@needs_kustomize
def test_an_alias_bomb_the_build_reads_is_refused_before_kustomize_runs(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(repo, {"apps/base/api.yaml": bomb_manifest()}, "feat: laughs")
    started = time.monotonic()
    review = _review(repo, base, renderer)
    assert time.monotonic() - started < 60  # kustomize would expand the aliases for minutes
    (gap,) = [g for g in review.not_reviewed if g.part.startswith("Flux Kustomization")]
    assert gap.reason.startswith("apps/base/api.yaml at head ")
    assert "excessive aliasing" in gap.reason
    assert _flux(review).outcome is ChartOutcome.NOT_REVIEWED


BROKEN = """\
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: everything, namespace: flux-system}
spec:
  interval: 10m
  path: ./everything
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
"""


def with_broken_build(extra: str = "x: 1") -> dict[str, str]:
    """The fleet and a second Kustomization whose build lists apps/base twice: it fails at every ref."""
    return {
        **fleet(),
        "clusters/prod/everything.yaml": BROKEN,
        "everything/kustomization.yaml": "resources: [../apps/base, ../apps/base, extra.yaml]\n",
        "everything/extra.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: extra}}\ndata: {{{extra}}}\n",
    }


@needs_kustomize
def test_a_build_failing_alike_whose_edited_files_render_elsewhere_is_context(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, with_broken_build(), "feat: fleet")
    commit(repo, {"apps/base/deployment.yaml": DEPLOYMENT.replace("/srv", "/data")}, "home")
    review = _review(repo, base, renderer)
    (gap,) = [g for g in review.not_reviewed if "everything" in g.part]
    assert gap.context and gap.side is None  # said once, for both refs, and apart
    assert _flux(review).outcome is ChartOutcome.CHANGED and review.complete


@needs_kustomize
def test_a_build_failing_alike_that_alone_reads_an_edited_file_is_not_reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, with_broken_build(), "feat: fleet")
    commit(repo, {"everything/extra.yaml": with_broken_build("x: 2")["everything/extra.yaml"]}, "x")
    review = _review(repo, base, renderer)
    (gap,) = [g for g in review.not_reviewed if "everything" in g.part]
    assert not gap.context and not review.complete
