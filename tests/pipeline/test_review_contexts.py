"""Render contexts: a chart is reviewed in the first context that renders it at base, and says why."""

from __future__ import annotations

from aftershock.model.contexts import ContextKind
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.review import ChartOutcome
from aftershock.model.units import Chart, ChartType
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.releases.parse import release_spec
from aftershock.releases.resolve import resolve_chart
from charts import chart_yaml
from gitrepo import commit, make_repo

# Renders only with the platform's injected `_cluster` map and a tenant- release name.
PLATFORM_APP = """\
{{- if not (hasPrefix "tenant-" .Release.Name) }}{{ fail "release name should start with tenant-" }}{{ end }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  domain: {{ index .Values._cluster "cluster-domain" | quote }}
  level: {{ .Values.level | quote }}
"""

SUITE = """\
suite: {name}
values:
  - values-ci.yaml
release:
  name: tenant-a
  namespace: tenant-a
templates: [templates/configmap.yaml]
tests:
  - it: renders
    asserts:
      - isKind: {{of: ConfigMap}}
"""


def platform_chart(level: str = "info") -> dict[str, str]:
    return {
        "apps/app/Chart.yaml": chart_yaml("app"),
        "apps/app/values.yaml": f"level: {level}\n",
        "apps/app/templates/configmap.yaml": PLATFORM_APP,
        "apps/app/tests/values-ci.yaml": "_cluster:\n  cluster-domain: cluster.local\n",
        "apps/app/tests/a_test.yaml": SUITE.format(name="a"),
        "apps/app/tests/b_test.yaml": SUITE.format(name="b"),
    }


def review(repo, base, renderer, **options):
    return run_review(ReviewRequest(repo=repo, base=base, run_tests=False, **options), renderer)


def test_a_chart_that_renders_only_with_its_tests_values_is_reviewed_in_them(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, platform_chart(), "feat: app")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    assert context.kind is ContextKind.TESTS
    assert "values of tests/values-ci.yaml, loaded by 2 of 2 suites" in context.reason
    assert (context.release_name, context.namespace) == ("tenant-a", "tenant-a")
    assert [a.name for a in context.attempts] == ["defaults"]  # the defaults alone do not render
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert default.outcome is ChartOutcome.CHANGED
    (change,) = default.changes
    assert change.key == ObjectKey("", "ConfigMap", "tenant-a", "tenant-a-settings")
    assert [f.path for f in change.fields] == ["data.level"]


def split_suites(first: str, second: str) -> dict[str, str]:
    """Three suites on `first` with no release, two on `second` with release tenant-a."""
    files = {k: v for k, v in platform_chart().items() if not k.endswith("_test.yaml")}
    files["apps/app/tests/values-other.yaml"] = "other: 1\n"
    without_release = SUITE.replace("release:\n  name: tenant-a\n  namespace: tenant-a\n", "")
    for i in range(3):
        files[f"apps/app/tests/a{i}_test.yaml"] = without_release.format(name=f"a{i}").replace(
            "values-ci.yaml", first
        )
    for i in range(2):
        files[f"apps/app/tests/b{i}_test.yaml"] = SUITE.format(name=f"b{i}").replace(
            "values-ci.yaml", second
        )
    return files


def test_a_chart_whose_suites_split_is_reviewed_in_the_group_that_renders(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, split_suites("values-other.yaml", "values-ci.yaml"), "feat: app")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    assert (context.kind, context.name) == (ContextKind.TESTS, "tests:2")
    assert context.reason.startswith("values of tests/values-ci.yaml, loaded by 2 of 5 suites")
    # the defaults do not render, and values-other.yaml has no _cluster
    assert [a.name for a in context.attempts] == ["defaults", "tests"]


def test_a_group_of_suites_without_a_release_borrows_the_charts(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, split_suites("values-ci.yaml", "values-other.yaml"), "feat: app")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    assert (context.name, context.release_name, context.namespace) == (
        "tests",
        "tenant-a",
        "tenant-a",
    )
    assert "release tenant-a in namespace tenant-a, borrowed from 2 of 5 suites" in context.reason


def test_the_contexts_own_values_file_is_read_at_each_side(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, platform_chart(), "feat: app")
    commit(
        repo,
        {"apps/app/tests/values-ci.yaml": "_cluster:\n  cluster-domain: example.org\n"},
        "test: domain",
    )
    result = review(repo, base, renderer)
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert [f.path for c in default.changes for f in c.fields] == ["data.domain"]


def test_release_name_and_namespace_given_on_the_command_line_override_the_context(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, platform_chart(), "feat: app")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer, release_name="tenant-z", namespace="z")
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert [c.key.id for c in default.changes] == ["core/ConfigMap/z/tenant-z-settings"]


def test_a_chart_no_context_renders_is_not_reviewed_once_with_each_context_tried(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    files = platform_chart()
    files["apps/app/ci/prod-values.yaml"] = "level: warn\n"
    files["apps/app/tests/values-ci.yaml"] = (
        "other: 1\n"  # no _cluster: the tests' context fails too
    )
    base = commit(repo, files, "feat: app")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    (context,) = result.contexts
    assert not context.chosen and [a.name for a in context.attempts] == [
        "defaults",
        "tests",
        "ci/prod-values.yaml",
    ]
    assert all(len(a.error) <= 300 for a in context.attempts)
    gaps = [g for g in result.not_reviewed if g.part == "chart apps/app"]
    assert len(gaps) == 1 and gaps[0].reason.startswith("no render context renders it: defaults: ")
    assert "release name should start with tenant-" in gaps[0].reason


def test_a_configured_context_comes_first(tmp_path, renderer):
    repo = make_repo(tmp_path)
    config = ".aftershock.yaml"
    files = {
        **platform_chart(),
        config: (
            "contexts:\n  - name: prod\n    charts: ['apps/*']\n    release_name: tenant-prod\n    namespace: prod\n"
            "    values_files: [/platform/cluster.yaml]\n"
        ),
        "platform/cluster.yaml": "_cluster:\n  cluster-domain: prod.example\n",
    }
    base = commit(repo, files, "feat: app")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    (context,) = result.contexts
    assert (context.kind, context.name, context.namespace) == (
        ContextKind.CONFIG,
        "config:prod",
        "prod",
    )


RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: shop
  namespace: flux-system
spec:
  releaseName: tenant-shop
  targetNamespace: shop
  chart:
    spec:
      chart: ./apps/app
      sourceRef: {kind: GitRepository, name: platform}
  values:
    _cluster:
      cluster-domain: shop.example
"""


def test_the_release_that_installs_a_chart_is_its_context(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {k: v for k, v in platform_chart().items() if "/tests/" not in k}
    base = commit(repo, {**files, "clusters/prod/shop.yaml": RELEASE}, "feat: app")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    (context,) = result.contexts
    assert (
        context.kind is ContextKind.RELEASE
        and context.name == "release:helm.toolkit.fluxcd.io/HelmRelease/flux-system/shop@prod"
    )
    assert "plain manifest clusters/prod/shop.yaml" in context.reason
    assert not [r for r in result.chart_reviews if r.release]  # reviewed once, in its context
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert [c.key.id for c in default.changes] == ["core/ConfigMap/shop/tenant-shop-settings"]


TOGGLED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  level: info
{{- if .Values.extra.enabled }}
  extra-mode: turbo-{{ .Values.mode }}
{{- end }}
"""


def test_a_changed_block_that_no_scenario_renders_is_not_exercised(tmp_path, renderer):
    repo = make_repo(tmp_path)
    chart = {
        "c/Chart.yaml": chart_yaml("c"),
        "c/values.yaml": "mode: a\nextra:\n  enabled: false\n",
        "c/templates/cm.yaml": TOGGLED,
    }
    base = commit(repo, chart, "feat: c")
    commit(repo, {"c/templates/cm.yaml": TOGGLED.replace("turbo-", "warp-")}, "feat: warp")
    result = review(repo, base, renderer, max_scenarios=1)
    gaps = [g.part for g in result.not_reviewed]
    assert gaps == ["template c/templates/cm.yaml lines 8"]  # edited: both refs in one
    assert not result.complete
    exercised = review(repo, base, renderer)  # the toggle scenario renders the block
    assert exercised.complete, exercised.not_reviewed


def test_a_generated_release_chart_name_resolves_to_the_chart_it_ends_with():
    body = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "payments", "namespace": "flux-system"},
        "spec": {"chartRef": {"kind": "ExternalArtifact", "name": "platform-shop-payments"}},
    }
    obj = RenderedObject(
        ObjectKey("helm.toolkit.fluxcd.io", "HelmRelease", "flux-system", "payments"),
        "helm.toolkit.fluxcd.io/v2",
        body,
        "",
        "r.yaml",
    )
    spec = release_spec(obj)
    charts = [
        Chart("apps/payments", "payments", "1.0.0", ChartType.APPLICATION, "v2"),
        Chart("apps/orders", "orders", "1.0.0", ChartType.APPLICATION, "v2"),
    ]
    path, evidence, problem = resolve_chart(spec, charts)
    assert (path, evidence.value, problem) == ("apps/payments", "inferred", None)


LOOKS_UP = """\
{{- $cfg := lookup "v1" "ConfigMap" "platform-system" "platform-config" }}
{{- if not $cfg }}{{ fail "platform-config not found" }}{{ end }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  host: {{ index $cfg.data "host" | quote }}
  level: {{ .Values.level | quote }}
"""


def test_a_lookup_finds_the_objects_the_configuration_declares(tmp_path, renderer):
    repo = make_repo(tmp_path)
    config = (
        "cluster:\n  objects:\n    - {apiVersion: v1, kind: ConfigMap, "
        "metadata: {name: platform-config, namespace: platform-system}, data: {host: api.internal}}\n"
    )
    files = {
        "c/Chart.yaml": chart_yaml("c"),
        "c/values.yaml": "level: info\n",
        "c/templates/cm.yaml": LOOKS_UP,
        ".aftershock.yaml": config,
    }
    base = commit(repo, files, "feat: c")
    commit(repo, {"c/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    assert context.lookups == ("ConfigMap platform-system/platform-config",)
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert default.head_objects[0].body["data"] == {"host": "api.internal", "level": "debug"}


# An installer chart that renders only on its platform (its region is injected there).
INSTALLER = """\
{{- $region := required "the platform sets region" .Values.region }}
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: shop
  namespace: flux-system
spec:
  releaseName: tenant-shop
  targetNamespace: shop
  chart:
    spec:
      chart: ./apps/app
      sourceRef: {kind: GitRepository, name: platform}
  values:
    region: {{ $region }}
"""


def test_an_installer_chart_that_does_not_render_still_gives_the_release_identity(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    app = {
        "apps/app/Chart.yaml": chart_yaml("app"),
        "apps/app/values.yaml": "level: info\n",
        "apps/app/templates/configmap.yaml": PLATFORM_APP.replace(
            '{{ index .Values._cluster "cluster-domain" | quote }}', "example"
        ),
    }
    installer = {
        "platform/Chart.yaml": chart_yaml("platform"),
        "platform/templates/shop.yaml": INSTALLER,
    }
    base = commit(repo, {**app, **installer}, "feat: app")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    (context,) = [c for c in result.contexts if c.chart == "apps/app"]
    assert context.kind is ContextKind.RELEASE, context
    assert "read from template platform/templates/shop.yaml" in context.reason
    assert "values are not known" in context.reason
    (default,) = [
        r for r in result.chart_reviews if r.chart == "apps/app" and r.scenario == "default"
    ]
    assert [c.key.id for c in default.changes] == ["core/ConfigMap/shop/tenant-shop-settings"]


# Issue 32, item 1: an umbrella chart whose ci/ file switches its components off, and whose kind is
# chosen by a value the ci/ file sets otherwise.
WORKLOAD = """\
{{- if .Values.job.enabled }}
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: {{ .Values.job.image | quote }}}]
{{- end }}
---
apiVersion: apps/v1
kind: {{ .Values.kind }}
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: {{ .Values.agent.image | quote }}}]
"""


def umbrella(job_image: str, agent_image: str = "agent:1") -> dict[str, str]:
    return {
        "apps/umbrella/Chart.yaml": chart_yaml("umbrella"),
        "apps/umbrella/values.yaml": (
            f"kind: Deployment\njob:\n  enabled: true\n  image: {job_image}\n"
            f"agent:\n  image: {agent_image}\n"
        ),
        "apps/umbrella/templates/workloads.yaml": WORKLOAD,
        "apps/umbrella/ci/crds-only-values.yaml": "job:\n  enabled: false\nkind: DaemonSet\n",
    }


def test_the_default_scenario_is_the_chart_s_own_defaults_not_its_ci_values(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, umbrella("migrate:1"), "feat: umbrella")
    commit(
        repo,
        {"apps/umbrella/values.yaml": umbrella("migrate:2")["apps/umbrella/values.yaml"]},
        "bump",
    )
    result = review(repo, base, renderer)
    (context,) = result.contexts
    assert (context.kind, context.name) == (ContextKind.DEFAULTS, "defaults")
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    # the edit is in the default scenario, on the kind the chart installs by default
    assert [c.key.kind for c in default.changes] == ["Job"]
    assert {o.key.kind for o in default.head_objects} == {"Job", "Deployment"}
    # the ci/ file is a scenario of its own, as chart-testing installs it
    ci = [r for r in result.chart_reviews if "crds-only" in r.scenario]
    assert ci and {o.key.kind for o in ci[0].head_objects} == {"DaemonSet"}


def test_values_borrowed_from_tests_do_not_hide_the_defaults_the_change_edits(tmp_path, renderer):
    files = platform_chart()
    files["apps/app/tests/values-ci.yaml"] += "level: pinned-by-tests\n"
    repo = make_repo(tmp_path)
    base = commit(repo, files, "feat: app")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    (context,) = result.contexts
    assert context.kind is ContextKind.TESTS  # the defaults alone do not render
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    (change,) = default.changes
    assert [(f.path, f.before, f.after) for f in change.fields] == [("data.level", "info", "debug")]
