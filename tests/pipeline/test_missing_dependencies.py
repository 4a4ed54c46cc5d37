"""A chart whose dependency no render can be given (a version Chart.lock pins that no cache holds)
renders without it at both refs: its own templates are diffed and judged, the dependency is not
reviewed with the command that fetches it; a chart with nothing else to render stays not reviewed."""

from __future__ import annotations

from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from aftershock.report.text import outcome_cell
from charts import chart_yaml, library_and_app
from gitrepo import commit, make_repo

REDIS = "dependencies:\n- name: redis\n  version: 18.1.0\n  repository: https://charts.example.invalid\n"
LOCK = (
    "dependencies:\n- name: redis\n  repository: https://charts.example.invalid\n  version: 18.1.0\n"
    "digest: sha256:0\n"
)
OWN = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {mode: {{ .Values.mode | quote }}}\n"
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: caches.example.com}
spec:
  group: example.com
  names: {kind: Cache, plural: caches}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
"""
VENDORED = {
    "apps/web/charts/redis/Chart.yaml": "apiVersion: v2\nname: redis\nversion: 18.1.0\n",
    "apps/web/charts/redis/crds/cache.yaml": CRD,
    "apps/web/charts/redis/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: redis}\n",
}


def _web(mode: str) -> dict[str, str]:
    return {
        "apps/web/Chart.yaml": chart_yaml("web", deps=REDIS),
        "apps/web/Chart.lock": LOCK,
        "apps/web/values.yaml": f"mode: {mode}\n",
        "apps/web/templates/cm.yaml": OWN,
    }


def test_a_locked_dependency_nowhere_at_hand_leaves_the_charts_own_templates_reviewed(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, _web("fast"), "feat: web")
    head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    (review,) = result.chart_reviews
    assert review.outcome is ChartOutcome.CHANGED
    assert [(c.key.name, [f.path for f in c.fields]) for c in review.changes] == [
        ("web", ["data.mode"])
    ]
    (gap,) = result.not_reviewed
    assert gap.part == "dependency redis 18.1.0 of chart apps/web"
    assert "`aftershock charts fetch --repo . --chart-cache DIR apps/web`" in gap.reason
    assert not result.complete
    document = review_document(result)
    (entry,) = document["chart_reviews"]
    assert entry["partial"] is True
    assert entry["dependencies_not_rendered"] == [
        {
            "dependency": "redis 18.1.0",
            "route": "web/charts/redis",
            "reason": review.dependencies_not_rendered[0].reason,
        }
    ]
    assert outcome_cell(entry) == "changed, without 1 dependency"
    markdown = render_markdown(document)
    assert "dependency redis 18.1.0 of chart apps/web" in markdown
    # the command is said whole, first
    assert "run \\`aftershock charts fetch --repo . --chart-cache DIR apps/web\\`" in markdown
    assert "renders identically" not in markdown


def test_a_dependency_at_hand_at_one_ref_only_is_left_out_at_both(tmp_path, renderer):
    """Vendored at base, only locked at head: its objects are not shown as removed."""
    repo = make_repo(tmp_path)
    base = commit(repo, {**_web("fast"), **VENDORED}, "feat: web with redis vendored")
    head = commit(
        repo,
        {"apps/web/values.yaml": "mode: slow\n", **dict.fromkeys(VENDORED)},
        "chore: stop vendoring redis",
    )
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    (review,) = result.chart_reviews
    assert [c.key.name for c in review.changes] == ["web"]  # no ConfigMap, no CRD of redis removed
    markdown = render_markdown(review_document(result))
    assert "what rendered renders identically" not in markdown  # it changed
    assert "without 1 dependency" in markdown
    assert all(o.key.name != "redis" for o in review.base_objects)
    assert [d.route for d in review.dependencies_not_rendered] == ["web/charts/redis"]
    gaps = {g.part: g for g in result.not_reviewed}
    assert gaps["dependency redis 18.1.0 of chart apps/web"].side is None
    # the vendored copy's deleted lines: no render exercised them, and the review says so
    assert "template apps/web/charts/redis/templates/cm.yaml lines 1-3" in gaps


def test_a_bumped_dependency_nowhere_at_hand_is_named_by_both_versions(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**_web("fast"), "apps/web/ci/test-values.yaml": "mode: ci\n"}, "web")
    head = commit(
        repo,
        {
            "apps/web/Chart.yaml": chart_yaml("web", deps=REDIS.replace("18.1.0", "18.2.0")),
            "apps/web/Chart.lock": LOCK.replace("18.1.0", "18.2.0"),
        },
        "chore: redis 18.2.0",
    )
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    assert len(result.chart_reviews) == 2  # default and ci
    assert [g.part for g in result.not_reviewed] == [
        "dependency redis 18.1.0 → 18.2.0 of chart apps/web"
    ]
    markdown = render_markdown(review_document(result))
    assert "redis 18.1.0 → 18.2.0" in markdown and "redis 18.1.0 of" not in markdown


def _define(name: str, mode: str) -> str:
    return (
        f'{{{{- define "lib.{name}" -}}}}\n{{{{- if .Values.{name}.enabled }}}}\n'
        f"{name}Mode: {mode}-{{{{ .Values.{name}.size }}}}\n{{{{- end }}}}\n{{{{- end }}}}\n"
    )


def test_a_dependency_left_out_in_two_rounds_of_scenarios_is_one_gap(tmp_path, renderer):
    """With room for one scenario beside the defaults, a second round renders the scenario for the
    library lines the first left unrun: the chart renders without redis in both, said once."""
    app = {
        "values.yaml": "alpha: {enabled: false, size: 1}\nbeta: {enabled: false, size: 1}\n",
        "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata:\n"
        '  {{- include "lib.alpha" . | nindent 2 }}\n  {{- include "lib.beta" . | nindent 2 }}\n',
        "ci/alpha-values.yaml": "alpha: {enabled: true}\n",
        "ci/beta-values.yaml": "beta: {enabled: true}\n",
    }
    files = library_and_app({"templates/_a.tpl": _define("alpha", "a") + _define("beta", "a")}, app)
    lib = "- name: lib\n  version: 0.1.0\n  repository: file://../lib\n"
    files["app/Chart.yaml"] = chart_yaml("app", deps=REDIS + lib)
    files["app/Chart.lock"] = LOCK.replace("digest:", lib + "digest:")
    repo = make_repo(tmp_path)
    base = commit(repo, files, "feat: library and app")
    edited = {"lib/templates/_a.tpl": _define("alpha", "b") + _define("beta", "b")}
    head = commit(repo, edited, "feat: mode b")
    request = ReviewRequest(repo=repo, base=base, head=head, run_tests=False, max_scenarios=2)
    result = run_review(request, renderer)
    scenarios = sorted(r.scenario for r in result.chart_reviews if r.chart == "app")
    assert scenarios == ["default", "file:ci/alpha-values.yaml", "file:ci/beta-values.yaml"]
    assert [g.part for g in result.not_reviewed] == ["dependency redis 18.1.0 of chart app"]


def test_a_wrapper_with_nothing_but_the_missing_dependency_is_not_reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    wrapper = {
        "apps/web/Chart.yaml": chart_yaml("web", deps=REDIS),
        "apps/web/Chart.lock": LOCK,
        "apps/web/values.yaml": "redis: {replicas: 1}\n",
        "apps/web/templates/_helpers.tpl": '{{- define "web.name" -}}web{{- end -}}\n',
    }
    base = commit(repo, wrapper, "feat: web wraps redis")
    head = commit(repo, {"apps/web/values.yaml": "redis: {replicas: 2}\n"}, "feat: two")
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    (review,) = result.chart_reviews
    assert review.outcome is ChartOutcome.NOT_REVIEWED
    (gap,) = result.not_reviewed
    assert gap.part == "chart apps/web"
    assert gap.reason.startswith("dependency redis 18.1.0: run `aftershock charts fetch")


def test_a_chart_rendered_without_a_dependency_is_never_said_to_render_identically(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, _web("fast"), "feat: web")
    head = commit(repo, {"apps/web/values.yaml": "mode: fast  # the mode\n"}, "docs: say it")
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    (review,) = result.chart_reviews
    assert review.outcome is ChartOutcome.UNCHANGED and review.partial
    markdown = render_markdown(review_document(result))
    assert "what rendered renders identically in all" in markdown
    assert "renders identically in all" not in markdown.replace("what rendered renders", "")


LIB = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: labels}\ndata: {team: {{ .Values.team | quote }}}\n"
BESIDE = (
    "dependencies:\n- name: redis\n  version: 18.1.0\n  repository: https://charts.example.invalid\n"
    "- name: labels\n  version: 0.1.0\n  repository: file://../labels\n"
    "- name: broken\n  version: 0.1.0\n  repository: file://../broken\n"
)


def _platform() -> dict[str, str]:
    """A chart with a remote dependency no render is given, beside a local one (sapcc's kube-system-*
    charts with cert-manager beside owner-label-injector)."""
    return {
        "apps/web/Chart.yaml": chart_yaml("web", deps=BESIDE),
        "apps/web/Chart.lock": LOCK,
        "apps/web/values.yaml": "mode: fast\n",
        "apps/web/templates/cm.yaml": OWN,
        "apps/labels/Chart.yaml": chart_yaml("labels"),
        "apps/labels/values.yaml": "team: core\n",
        "apps/labels/templates/cm.yaml": LIB,
        "apps/broken/Chart.yaml": chart_yaml("broken"),
        "apps/broken/templates/cm.yaml": LIB,
        "apps/broken/templates/bad.yaml": '{{ fail "needs a region" }}\n',
    }


def test_a_dependency_beside_the_one_the_change_reaches_the_chart_through_is_context(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, _platform(), "feat: web")
    head = commit(repo, {"apps/labels/values.yaml": "team: edge\n"}, "labels: edge")
    result = run_review(ReviewRequest(repo=repo, base=base, head=head, run_tests=False), renderer)
    (gap,) = [
        g for g in result.not_reviewed if g.part == "dependency redis 18.1.0 of chart apps/web"
    ]
    assert gap.context and "no changed file reaches it" in gap.reason
    assert _bad(result).context and _bad(result).side is None
    assert result.complete
    again = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "web: slow")
    result = run_review(ReviewRequest(repo=repo, base=head, head=again, run_tests=False), renderer)
    (gap,) = [
        g for g in result.not_reviewed if g.part == "dependency redis 18.1.0 of chart apps/web"
    ]
    assert not gap.context and not _bad(result).context and not result.complete


def _bad(result):
    (bad,) = [g for g in result.not_reviewed if g.part.startswith("template apps/broken/")]
    return bad


def test_what_is_apart_leaves_out_every_chart_on_the_way_and_below_and_any_edited_define():
    from aftershock.pipeline.context.missing_dependencies import Apart

    folders = {"p/charts/s": "apps/s", "p/charts/s/charts/t": "apps/t", "p/charts/x": "apps/x"}
    apart = Apart("apps/p", folders, frozenset({"p/charts/s/charts/t"}), defines=False)
    assert apart.route("p/charts/redis") and apart.route("p/charts/x")
    assert not apart.route("p/charts/s")  # it may include t's named templates
    assert not apart.route("p/charts/s/charts/t/charts/redis")
    assert apart.template("apps/x/templates/cm.yaml")
    assert not apart.template("apps/s/templates/cm.yaml")
    assert not apart.template("apps/p/templates/cm.yaml")  # the chart's own
    edited = Apart("apps/p", folders, frozenset({"p/charts/s/charts/t"}), defines=True)
    assert edited.route("p/charts/x") and not edited.template("apps/x/templates/cm.yaml")
