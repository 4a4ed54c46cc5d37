"""Kustomize: root kustomizations a change reaches are built with kustomize at base and head and diffed;
what must not be built (remote resources, KRM functions, paths leaving the repository) is not reviewed."""

from __future__ import annotations

import json

import pytest

from aftershock.model.diff import ObjectChangeKind
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.kustomize import available
from aftershock.report.canonical import review_document
from gitrepo import commit, make_repo

pytestmark = pytest.mark.skipif(available() is not None, reason=str(available()))

BASE_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx:1.27.0
          envFrom: [{configMapRef: {name: web-config}}]
"""

BASE_KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [deployment.yaml]
configMapGenerator:
  - name: web-config
    literals: [MODE={mode}]
"""


def overlay(cluster: str, replicas: int = 2, tag: str = "1.27.1") -> dict[str, str]:
    return {
        f"clusters/{cluster}/web/kustomization.yaml": f"""\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: {cluster}
namePrefix: {cluster}-
labels: [{{pairs: {{cluster: {cluster}}}}}]
resources: [../../../base/web]
images: [{{name: nginx, newTag: "{tag}"}}]
patches:
  - path: replicas.yaml
  - target: {{kind: Deployment, name: web}}
    patch: |
      - op: add
        path: /spec/template/spec/hostPID
        value: false
""",
        f"clusters/{cluster}/web/replicas.yaml": f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec: {{replicas: {replicas}}}
""",
    }


def fleet(mode: str = "fast") -> dict[str, str]:
    return {
        "base/web/kustomization.yaml": BASE_KUSTOMIZATION.format(mode=mode),
        "base/web/deployment.yaml": BASE_DEPLOYMENT,
        **overlay("prod"),
        **overlay("staging"),
    }


def _review(repo, base, renderer):
    return review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer).review


def _kustomized(review):
    return {r.chart: r for r in review.chart_reviews if r.name == "kustomization"}


def test_an_overlay_patch_change_builds_only_that_overlay(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(
        repo,
        {
            "clusters/prod/web/replicas.yaml": overlay("prod", replicas=5)[
                "clusters/prod/web/replicas.yaml"
            ]
        },
        "scale",
    )
    review = _review(repo, base, renderer)
    assert list(_kustomized(review)) == ["clusters/prod/web"]
    prod = _kustomized(review)["clusters/prod/web"]
    assert prod.outcome is ChartOutcome.CHANGED
    (change,) = prod.changes
    assert str(change.key) == "Deployment.apps prod/prod-web"
    assert [(f.path, f.before, f.after) for f in change.fields] == [("spec.replicas", 2, 5)]
    deployment = next(o for o in prod.head_objects if o.key.kind == "Deployment")
    spec = deployment.body["spec"]["template"]["spec"]
    assert spec["containers"][0]["image"] == "nginx:1.27.1" and spec["hostPID"] is False
    assert deployment.body["metadata"]["labels"] == {"cluster": "prod"}
    assert not [
        r for r in review.chart_reviews if r.name == "manifests"
    ]  # built files are not plain manifests
    assert review.complete


def test_a_base_generator_change_reaches_every_overlay_with_new_hashed_names(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(repo, {"base/web/kustomization.yaml": BASE_KUSTOMIZATION.format(mode="slow")}, "slow")
    review = _review(repo, base, renderer)
    built = _kustomized(review)
    assert sorted(built) == ["clusters/prod/web", "clusters/staging/web"]
    for cluster, r in (
        ("prod", built["clusters/prod/web"]),
        ("staging", built["clusters/staging/web"]),
    ):
        (renamed,) = [c for c in r.changes if c.key.kind == "ConfigMap"]
        assert (
            renamed.kind is ObjectChangeKind.RENAMED and renamed.generator == "ConfigMapGenerator"
        )
        assert renamed.previous_key is not None
        old, new = renamed.previous_key.name, renamed.key.name
        assert old != new and old.startswith(f"{cluster}-web-config-")
        assert new.startswith(f"{cluster}-web-config-")
        assert [(f.path, f.before, f.after) for f in renamed.fields] == [
            ("data.MODE", "fast", "slow"),
            ("metadata.name", old, new),
        ]
        assert renamed.templates == ("base/web/kustomization.yaml",)
        (deployment,) = [c for c in r.changes if c.key.kind == "Deployment"]
        assert renamed.rolls == (deployment.key,)  # its pod template now names the new ConfigMap
        assert [(f.path, f.before, f.after) for f in deployment.fields] == [
            ("spec.template.spec.containers[name=web].envFrom[0].configMapRef.name", old, new)
        ]


def test_built_objects_name_their_resource_file_and_the_patches_that_changed_them(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(
        repo,
        {
            "base/web/deployment.yaml": BASE_DEPLOYMENT.replace(
                "image: nginx:1.27.0", "image: nginx:1.27.0\n          ports: [{containerPort: 80}]"
            )
        },
        "port",
    )
    review = _review(repo, base, renderer)
    prod = _kustomized(review)["clusters/prod/web"]
    (change,) = prod.changes
    assert change.templates == (
        "base/web/deployment.yaml",
        "clusters/prod/web/kustomization.yaml",  # its inline hostPID patch
        "clusters/prod/web/replicas.yaml",
    )
    by_kind = {o.key.kind: o for o in prod.head_objects}
    assert by_kind["ConfigMap"].template == "base/web/kustomization.yaml"
    assert by_kind["ConfigMap"].shaped_by == ()
    for obj in prod.head_objects:  # asked for, read and removed again: not in what is diffed
        assert "annotations" not in obj.body["metadata"]
    units = dict(review.units)["base/web/deployment.yaml"]
    assert {(u.id, u.kind.value) for u in units if u.chart} == {
        ("kustomize:clusters/prod/web:base/web/deployment.yaml", "template"),
        ("kustomize:clusters/staging/web:base/web/deployment.yaml", "template"),
    }


@pytest.mark.parametrize(
    ("resource", "reason"),
    [
        ("https://github.com/example/repo//base?ref=v1", "remote resource"),
        ("../../../../../etc", "leaves the repository"),
    ],
)
def test_a_kustomization_that_must_not_be_built_is_not_reviewed(
    tmp_path, renderer, resource, reason
):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    text = overlay("prod")["clusters/prod/web/kustomization.yaml"].replace(
        "resources: [../../../base/web]", f"resources: [../../../base/web, '{resource}']"
    )
    commit(repo, {"clusters/prod/web/kustomization.yaml": text}, "more")
    review = _review(repo, base, renderer)
    (gap,) = [g for g in review.not_reviewed if g.part == "kustomization clusters/prod/web"]
    assert reason in gap.reason and gap.side.value == "head"
    assert _kustomized(review)["clusters/prod/web"].outcome is ChartOutcome.NOT_REVIEWED


def test_a_krm_function_is_never_run(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    function = "apiVersion: example.com/v1\nkind: Sh\nmetadata:\n  name: run\n  annotations:\n    config.kubernetes.io/function: |\n      exec: {path: ./run.sh}\n"
    text = overlay("prod")["clusters/prod/web/kustomization.yaml"] + "transformers: [fn.yaml]\n"
    commit(
        repo,
        {"clusters/prod/web/kustomization.yaml": text, "clusters/prod/web/fn.yaml": function},
        "fn",
    )
    review = _review(repo, base, renderer)
    (gap,) = [g for g in review.not_reviewed if g.part == "kustomization clusters/prod/web"]
    assert "KRM function" in gap.reason


def test_a_file_outside_the_root_is_refused_by_kustomize_load_restrictions(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    text = overlay("prod")["clusters/prod/web/kustomization.yaml"].replace(
        "resources: [../../../base/web]", "resources: [../../../base/web/deployment.yaml]"
    )
    commit(repo, {"clusters/prod/web/kustomization.yaml": text}, "file outside the root")
    review = _review(repo, base, renderer)
    (gap,) = [g for g in review.not_reviewed if g.part == "kustomization clusters/prod/web"]
    assert (
        "is not in or below 'clusters/prod/web'" in gap.reason
        and "/tmp" not in gap.reason
        and "/dev/shm" not in gap.reason
    )


def test_a_kustomization_inside_a_chart_is_left_to_the_chart(tmp_path, renderer):
    from charts import app_chart

    crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: widgets.example.com}}\nspec: {{group: example.com, names: {{kind: Widget, plural: widgets}}, scope: {scope}}}\n"
    repo = make_repo(tmp_path)
    files = {
        **app_chart("charts/app", "app"),
        "charts/app/crds/widgets.yaml": crd.format(scope="Namespaced"),
        "charts/app/crds/kustomization.yaml": "resources: [widgets.yaml]\n",
    }
    base = commit(repo, files, "feat: chart with CRDs and a kustomization for them")
    commit(repo, {"charts/app/crds/widgets.yaml": crd.format(scope="Cluster")}, "scope")
    review = _review(repo, base, renderer)
    assert [(r.chart, r.name) for r in review.chart_reviews] == [("charts/app", "app")]
    assert not list(review.not_reviewed)


def test_a_secret_generator_s_env_file_change_is_one_redacted_rename(tmp_path, renderer):
    files = {
        "app/kustomization.yaml": """\
resources: [deployment.yaml]
secretGenerator:
  - name: creds
    envs: [creds.env]
""",
        "app/creds.env": "TOKEN=xw4\n",
        "app/deployment.yaml": BASE_DEPLOYMENT.replace(
            "envFrom: [{configMapRef: {name: web-config}}]", "envFrom: [{secretRef: {name: creds}}]"
        ),
    }
    repo = make_repo(tmp_path)
    base = commit(repo, files, "feat: app")
    commit(repo, {"app/creds.env": "TOKEN=zq9\n"}, "rotate")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    (secret,) = [c for c in _kustomized(result.review)["app"].changes if c.key.kind == "Secret"]
    assert secret.kind is ObjectChangeKind.RENAMED and secret.generator == "SecretGenerator"
    assert secret.templates == ("app/creds.env", "app/kustomization.yaml")
    assert [d.key.kind for d in _kustomized(result.review)["app"].changes] == [
        "Deployment",
        "Secret",
    ]
    text = json.dumps(review_document(result.review, result.judgement))
    # short values, hidden where they are known to go; letters no hex digest or kustomize suffix holds
    assert "zq9" not in text and "xw4" not in text


def test_a_finding_on_a_built_object_points_at_the_line_of_the_patch_that_made_it(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      hostNetwork: true\n"
    commit(
        repo,
        {
            "base/web/aaa.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aaa}\n",
            "base/web/host.yaml": patch,
            "base/web/kustomization.yaml": BASE_KUSTOMIZATION.format(mode="fast").replace(
                "resources: [deployment.yaml]",
                "resources: [aaa.yaml, deployment.yaml]\npatches: [{path: host.yaml}]",
            ),
        },
        "host network",
    )
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    found = [f for f in result.judgement.findings if f.rule_id == "pss-host-namespaces"]
    assert found and {(f.location.file, f.location.line) for f in found if f.location} == {
        ("base/web/host.yaml", 7)
    }  # not the first changed file the build reads (aaa.yaml), nor the root kustomization
