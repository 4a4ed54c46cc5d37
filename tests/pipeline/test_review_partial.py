"""Render by template: a chart that fails as a whole in every context is rendered without the
templates that fail; what renders is diffed and judged, each template left out is not reviewed.

Real repositories in tmp folders, real renders with the embedded Helm.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from aftershock.model.change import Side
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import chart_yaml
from gitrepo import commit, make_repo

CHART = "apps/app"
GUARD = """\
{{- if eq .Release.Namespace "default" }}{{ fail "refusing to install into namespace default" }}{{ end }}
apiVersion: v1
kind: ConfigMap
metadata: {name: guarded}
"""
AGENT = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      hostPID: {{ .Values.hostPID }}
      containers: [{name: agent, image: "busybox:1.36"}]
"""
REGION = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: region}
data: {region: {{ index .Values.global.platform "region" | quote }}}
"""
SCHEMA = Path(__file__).parents[2] / "src" / "aftershock" / "schema" / "review.schema.json"
SUB_REQUIRED = '{{ required "sub needs .Values.endpoint" .Values.endpoint }}\n'


def guarded_chart(host_pid: str = "false") -> dict[str, str]:
    return {
        f"{CHART}/Chart.yaml": chart_yaml("app"),
        f"{CHART}/values.yaml": f"hostPID: {host_pid}\n",
        f"{CHART}/templates/guard.yaml": GUARD,
        f"{CHART}/templates/agent.yaml": AGENT,
    }


def reviewed(tmp_path, renderer, base: dict[str, str], head: dict[str, str]):
    repo = make_repo(tmp_path)
    commit(repo, base, "base")
    commit(repo, head, "head")
    return review_change(
        ReviewRequest(repo=repo, base="HEAD~1", head="HEAD", run_tests=False), renderer
    )


def default_review(result):
    (review,) = [r for r in result.review.chart_reviews if r.scenario == "default"]
    return review


def test_a_failing_guard_leaves_only_its_template_unreviewed(tmp_path, renderer):
    result = reviewed(
        tmp_path, renderer, guarded_chart(), {f"{CHART}/values.yaml": "hostPID: true\n"}
    )
    review = default_review(result)
    assert review.outcome is ChartOutcome.CHANGED and review.partial
    (change,) = review.changes
    assert change.key.kind == "DaemonSet" and [f.path for f in change.fields] == [
        "spec.template.spec.hostPID"
    ]
    (failure,) = review.templates_not_rendered
    assert failure.template == f"{CHART}/templates/guard.yaml"
    assert "refusing to install into namespace default" in (failure.base_error or "")
    assert failure.base_error == failure.head_error
    gaps = [g for g in result.review.not_reviewed if g.part.startswith("template ")]
    assert [(g.part, g.side) for g in gaps] == [
        (f"template {CHART}/templates/guard.yaml of chart {CHART}", None)
    ]
    assert "refusing to install" in gaps[0].reason
    assert not result.review.complete
    rules = {f.rule_id for f in result.judgement.findings}
    assert "pss-host-namespaces" in rules and "chart-render-broken" not in rules


def test_the_document_says_the_chart_rendered_by_template(tmp_path, renderer):
    result = reviewed(
        tmp_path, renderer, guarded_chart(), {f"{CHART}/values.yaml": "hostPID: true\n"}
    )
    doc = review_document(result.review, result.judgement)
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    assert doc["status"] == "partial" and doc["summary"]["charts_rendered_by_template"] == 1
    (entry,) = [r for r in doc["chart_reviews"] if r["scenario"] == "default"]
    assert entry["partial"] is True and entry["outcome"] == "changed"
    (left_out,) = entry["templates_not_rendered"]
    assert left_out["template"] == f"{CHART}/templates/guard.yaml"
    assert "refusing to install" in left_out["base_error"]
    (summary,) = doc["scenarios"]
    assert (
        "renders identically" not in summary["summary"]
        or "templates that render" in (summary["summary"])
    )
    assert f"not rendered: {CHART}/templates/guard.yaml" in summary["summary"]
    markdown = render_markdown(doc)
    assert "changed, by template: 1 not rendered" in markdown
    assert f"template {CHART}/templates/guard.yaml of chart {CHART}" in markdown


def test_the_same_templates_are_left_out_at_both_refs(tmp_path, renderer):
    """A template failing at head only is left out at base too, so its objects show as no removal;
    that it renders at base and fails at head is a high finding, as for a whole chart."""
    base = {
        **guarded_chart(),
        f"{CHART}/templates/region.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: region}\n",
    }
    result = reviewed(tmp_path, renderer, base, {f"{CHART}/templates/region.yaml": REGION})
    review = default_review(result)
    assert review.partial and review.outcome is ChartOutcome.UNCHANGED
    failures = {f.template.rsplit("/", 1)[1]: f for f in review.templates_not_rendered}
    assert sorted(failures) == ["guard.yaml", "region.yaml"]
    region = failures["region.yaml"]
    assert region.base_error is None and "nil pointer evaluating" in (region.head_error or "")
    gaps = {(g.part.split()[1].rsplit("/", 1)[1], g.side) for g in result.review.not_reviewed}
    assert ("region.yaml", Side.HEAD) in gaps and ("guard.yaml", None) in gaps
    (broken,) = [f for f in result.judgement.findings if f.rule_id == "chart-render-broken"]
    assert "region.yaml" in broken.message and "renders at base but fails at head" in broken.message
    assert result.judgement.verdicts.merge.level.value == "high"


def test_a_chart_the_change_breaks_in_one_template_is_still_reviewed_in_the_others(
    tmp_path, renderer
):
    """The chart renders whole at base; the change breaks region.yaml and sets hostPID: the chart is
    rendered by template at head, region.yaml is left out at both refs (a high finding, not reviewed
    at head), and the DaemonSet's change is diffed and judged."""
    base = {
        f"{CHART}/Chart.yaml": chart_yaml("app"),
        f"{CHART}/values.yaml": "hostPID: false\n",
        f"{CHART}/templates/agent.yaml": AGENT,
        f"{CHART}/templates/region.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: region}\n",
    }
    head = {f"{CHART}/values.yaml": "hostPID: true\n", f"{CHART}/templates/region.yaml": REGION}
    result = reviewed(tmp_path, renderer, base, head)
    review = default_review(result)
    assert review.partial and review.outcome is ChartOutcome.CHANGED
    (change,) = review.changes
    assert change.key.kind == "DaemonSet" and [f.path for f in change.fields] == [
        "spec.template.spec.hostPID"
    ]
    (failure,) = review.templates_not_rendered
    assert failure.template == f"{CHART}/templates/region.yaml" and failure.base_error is None
    assert "nil pointer evaluating" in (failure.head_error or "")
    assert [(g.part, g.side) for g in result.review.not_reviewed] == [
        (f"template {CHART}/templates/region.yaml of chart {CHART}", Side.HEAD)
    ]
    rules = {f.rule_id: f for f in result.judgement.findings}
    assert "pss-host-namespaces" in rules
    assert "region.yaml" in rules["chart-render-broken"].message
    assert result.judgement.verdicts.merge.level.value == "high"


def test_a_template_broken_in_several_scenarios_is_one_finding_naming_them(tmp_path, renderer):
    base = {
        f"{CHART}/Chart.yaml": chart_yaml("app"),
        f"{CHART}/values.yaml": "hostPID: false\nextra: {enabled: false}\n",
        f"{CHART}/templates/agent.yaml": AGENT,
        f"{CHART}/templates/extra.yaml": "{{- if .Values.extra.enabled }}\napiVersion: v1\n"
        "kind: ConfigMap\nmetadata: {name: extra}\n{{- end }}\n",
        f"{CHART}/templates/region.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: region}\n",
    }
    result = reviewed(tmp_path, renderer, base, {f"{CHART}/templates/region.yaml": REGION})
    scenarios = [r.scenario for r in result.review.chart_reviews]
    assert scenarios == ["default", "toggle:extra.enabled=true"]
    (broken,) = [f for f in result.judgement.findings if f.rule_id == "chart-render-broken"]
    assert broken.subject.facet == f"{CHART}/templates/region.yaml"
    assert "fails at head in 2 scenarios (default, toggle:extra.enabled=true): " in broken.message


def test_a_template_the_change_fixes_renders_at_head_and_its_objects_show_as_added(
    tmp_path, renderer
):
    """The chart fails as a whole at base (the guard, and region.yaml reading a map nobody sets); the
    change fixes region.yaml: the head keeps it, its ConfigMap is added and judged, and only the guard
    is not reviewed."""
    fixed = REGION.replace('index .Values.global.platform "region"', '"eu-de-1"')
    base = {**guarded_chart(), f"{CHART}/templates/region.yaml": REGION}
    result = reviewed(tmp_path, renderer, base, {f"{CHART}/templates/region.yaml": fixed})
    review = default_review(result)
    assert review.partial and review.outcome is ChartOutcome.CHANGED
    (change,) = review.changes
    assert (change.key.kind, change.key.name, change.kind.value) == ("ConfigMap", "region", "added")
    (failure,) = review.templates_not_rendered
    assert failure.template.endswith("guard.yaml")
    (repaired,) = review.templates_fixed_at_head
    assert repaired.template == f"{CHART}/templates/region.yaml"
    assert "nil pointer" in (repaired.base_error or "") and repaired.head_error is None
    parts = [g.part for g in result.review.not_reviewed]
    assert parts == [f"template {CHART}/templates/guard.yaml of chart {CHART}"]
    doc = review_document(result.review, result.judgement)
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    (entry,) = [r for r in doc["chart_reviews"] if r["scenario"] == "default"]
    assert [t["template"] for t in entry["templates_fixed_at_head"]] == [repaired.template]
    assert "1 template(s) fixed: failed at base, render at head" in render_markdown(doc).replace(
        "\\", ""
    )


def test_a_failing_subchart_template_is_left_out_alone(tmp_path, renderer):
    base = {
        **guarded_chart(),
        f"{CHART}/charts/sub/Chart.yaml": chart_yaml("sub"),
        f"{CHART}/charts/sub/templates/endpoint.yaml": SUB_REQUIRED,
        f"{CHART}/charts/sub/templates/service.yaml": (
            "apiVersion: v1\nkind: Service\nmetadata: {name: sub}\n"
            "spec: {ports: [{port: {{ .Values.port | default 80 }}}]}\n"
        ),
    }
    head = {f"{CHART}/charts/sub/values.yaml": "port: 8080\n"}
    review = default_review(reviewed(tmp_path, renderer, base, head))
    assert review.outcome is ChartOutcome.CHANGED
    assert sorted(f.template for f in review.templates_not_rendered) == [
        f"{CHART}/charts/sub/templates/endpoint.yaml",
        f"{CHART}/templates/guard.yaml",
    ]
    (change,) = review.changes
    assert change.key.kind == "Service"


def test_a_chart_every_template_of_which_fails_is_not_reviewed_as_a_whole(tmp_path, renderer):
    base = {
        f"{CHART}/Chart.yaml": chart_yaml("app"),
        f"{CHART}/values.yaml": "level: 1\n",
        f"{CHART}/templates/guard.yaml": GUARD,
    }
    result = reviewed(tmp_path, renderer, base, {f"{CHART}/values.yaml": "level: 2\n"})
    review = default_review(result)
    assert review.outcome is ChartOutcome.NOT_REVIEWED and not review.partial
    assert [g.part for g in result.review.not_reviewed] == [f"chart {CHART}"]


def test_an_error_naming_no_template_leaves_the_chart_not_reviewed(tmp_path, renderer):
    base = {
        **guarded_chart(),
        f"{CHART}/values.schema.json": '{"type": "object", "required": ["region"]}',
    }
    result = reviewed(tmp_path, renderer, base, {f"{CHART}/values.yaml": "hostPID: true\n"})
    review = default_review(result)
    assert review.outcome is ChartOutcome.NOT_REVIEWED and not review.partial


SUITE = """\
suite: agent
templates: [agent.yaml]
tests:
  - it: shares the host's processes
    set: {hostPID: true}
    asserts:
      - isKind: {of: DaemonSet}
"""


def test_a_test_scenario_renders_only_its_suites_templates(tmp_path, renderer):
    base = {**guarded_chart(), f"{CHART}/tests/agent_test.yaml": SUITE}
    head = {f"{CHART}/templates/agent.yaml": AGENT.replace("busybox:1.36", "busybox:1.37")}
    result = reviewed(tmp_path, renderer, base, head)
    (scenario,) = [r for r in result.review.chart_reviews if r.scenario.startswith("test:")]
    assert scenario.scenario == "test:agent_test.yaml/shares the host's processes"
    # the guard is not among the suite's templates: it is not rendered, and nothing fails
    assert scenario.outcome is ChartOutcome.CHANGED and not scenario.partial
    assert {o.template for o in scenario.head_objects} == {f"{CHART}/templates/agent.yaml"}
    assert not any("scenario test:" in g.part for g in result.review.not_reviewed)


def test_the_scenarios_of_a_chart_rendered_by_template_are_rendered_by_template(tmp_path, renderer):
    """They fail as the default does, not because they are values the chart rejects."""
    base = {**guarded_chart(), f"{CHART}/values-prod.yaml": "hostPID: true\n"}
    head = {f"{CHART}/templates/agent.yaml": AGENT.replace("busybox:1.36", "busybox:1.37")}
    result = reviewed(tmp_path, renderer, base, head)
    reviews = {r.scenario: r for r in result.review.chart_reviews}
    assert sorted(reviews) == ["default", "file:values-prod.yaml"]
    assert all(r.partial and r.outcome is ChartOutcome.CHANGED for r in reviews.values())
    gaps = [g for g in result.review.not_reviewed if g.part.startswith("template ")]
    assert [g.part for g in gaps] == [f"template {CHART}/templates/guard.yaml of chart {CHART}"]


ALIASED = """\
dependencies:
  - {name: sub, version: 0.1.0, alias: one}
  - {name: sub, version: 0.1.0, alias: two}
"""


def test_a_failing_template_of_a_subchart_taken_under_two_aliases_is_left_out_under_both(
    tmp_path, renderer
):
    # one folder, charts/sub, renders under each alias: leaving its template out under one alias
    # leaves it out under both, and the review says so for both
    base = {
        f"{CHART}/Chart.yaml": chart_yaml("app", deps=ALIASED),
        f"{CHART}/values.yaml": "one: {port: 81}\ntwo: {port: 82}\n",
        f"{CHART}/charts/sub/Chart.yaml": chart_yaml("sub"),
        f"{CHART}/charts/sub/templates/endpoint.yaml": SUB_REQUIRED,
        f"{CHART}/charts/sub/templates/service.yaml": (
            "apiVersion: v1\nkind: Service\nmetadata: {name: {{ .Chart.Name }}-{{ .Values.port }}}\n"
            "spec: {ports: [{port: {{ .Values.port }}}]}\n"
        ),
    }
    head = {f"{CHART}/values.yaml": "one: {port: 81}\ntwo: {port: 83}\n"}
    review = default_review(reviewed(tmp_path, renderer, base, head))
    assert review.outcome is ChartOutcome.CHANGED and review.partial
    assert {f.template for f in review.templates_not_rendered} == {
        f"{CHART}/charts/sub/templates/endpoint.yaml"
    }
    assert sorted(o.key.name for o in review.head_objects) == ["one-81", "two-83"]


def test_alias_names_are_every_name_a_subchart_folder_renders_under(tmp_path):
    from aftershock.render.workspaces.partial_charts import alias_names

    chart = tmp_path / "app"
    (chart / "charts" / "sub").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(chart_yaml("app", deps=ALIASED))
    (chart / "charts" / "sub" / "Chart.yaml").write_text(chart_yaml("sub"))
    assert alias_names(chart, "app/charts/two/templates/x.yaml") == (
        "app/charts/one/templates/x.yaml",
        "app/charts/two/templates/x.yaml",
    )
    assert alias_names(chart, "app/templates/x.yaml") == ("app/templates/x.yaml",)
    assert alias_names(chart, "app/charts/none/templates/x.yaml") == (
        "app/charts/none/templates/x.yaml",
    )


def test_a_template_the_change_adds_that_fails_is_said_to_be_added_not_to_render_at_base(
    tmp_path, renderer
):
    result = reviewed(
        tmp_path, renderer, guarded_chart(), {f"{CHART}/templates/region.yaml": REGION}
    )
    (broken,) = [f for f in result.judgement.findings if f.rule_id == "chart-render-broken"]
    assert (
        "region.yaml" in broken.message and "that the change adds fails at head" in broken.message
    )
    assert "renders at base" not in broken.message
    reasons = result.judgement.verdicts.merge.reasons
    assert any("that the change adds fails at head" in reason for reason in reasons)


DB_PASSWORD = """\
{{- $secret := lookup "v1" "Secret" .Release.Namespace "db" }}
apiVersion: v1
kind: ConfigMap
metadata: {name: db-client}
data:
  password: {{ $secret.data.password | b64dec | quote }}
"""


def _failing_at_head(tmp_path, template: str):
    repo = make_repo(tmp_path)
    files = {
        f"{CHART}/Chart.yaml": chart_yaml("app"),
        f"{CHART}/values.yaml": "hostPID: false\n",
        f"{CHART}/templates/agent.yaml": AGENT,
    }
    base = commit(repo, files, "feat: agent")
    commit(repo, {f"{CHART}/templates/db.yaml": template}, "feat: db client")
    return repo, base


def test_a_template_failing_after_a_lookup_the_offline_cluster_answers_empty_is_no_break(
    tmp_path, renderer
):
    """Offline, `lookup` reads a snapshot of the repository's objects: a head failure in a template
    that calls it is not reviewed, said so, and neither a High verdict nor chart-render-broken."""
    repo, base = _failing_at_head(tmp_path, DB_PASSWORD)
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    (review,) = [r for r in result.review.chart_reviews if r.scenario == "default"]
    (failure,) = review.templates_not_rendered
    assert failure.template == f"{CHART}/templates/db.yaml" and failure.reads_cluster
    assert "chart-render-broken" not in {f.rule_id for f in result.judgement.findings}
    assert result.judgement.verdicts.merge.level.value != "high"
    (gap,) = [g for g in result.review.not_reviewed if "db.yaml" in g.part]
    assert "the template calls lookup" in gap.reason and not result.review.complete


def test_the_same_failure_without_a_lookup_is_a_break(tmp_path, renderer):
    without = DB_PASSWORD.replace(
        '{{- $secret := lookup "v1" "Secret" .Release.Namespace "db" }}', "{{- $secret := dict }}"
    )
    repo, base = _failing_at_head(tmp_path, without)
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    assert "chart-render-broken" in {f.rule_id for f in result.judgement.findings}
    assert result.judgement.verdicts.merge.level.value == "high"
