"""Values scenarios: defaults, values files beside the chart, toggles flipped one at a time, and the cap."""

from __future__ import annotations

from aftershock.findings.model import Location
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.review import review_change
from aftershock.render.scenarios import Scenario, choose, toggle_paths, toggle_scenarios
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import app_chart, chart_yaml
from gitrepo import commit, make_repo

INGRESS = """\
{{- if .Values.ingress.enabled }}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ .Release.Name }}
spec:
  rules:
    - host: {{ .Values.ingress.host }}
      http:
        paths:
          - path: {{ .Values.ingress.path }}
            pathType: Prefix
            backend: {service: {name: web, port: {number: 80}}}
{{- end }}
"""


def chart(path="/", extra=None):
    files = app_chart("c", "c")
    files["c/values.yaml"] += "ingress:\n  enabled: false\n  host: shop.example.invalid\n"
    files["c/templates/ingress.yaml"] = INGRESS.replace("{{ .Values.ingress.path }}", path)
    return {**files, **(extra or {})}


def scenario_doc(repo, base, renderer, **options):
    return review_document(run_review(ReviewRequest(repo=repo, base=base, **options), renderer))


def test_toggle_only_regression_shows_in_the_toggled_scenario_only(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, chart("/"), "feat: chart")
    commit(
        repo,
        {"c/templates/ingress.yaml": INGRESS.replace("{{ .Values.ingress.path }}", "/api")},
        "fix: path",
    )
    doc = scenario_doc(repo, base, renderer)
    (summary,) = doc["scenarios"]
    assert summary["ran"] == ["default", "toggle:ingress.enabled=true"]
    assert summary["changed_in"] == ["toggle:ingress.enabled=true"]
    (obj,) = doc["objects"]
    assert obj["scenario"] == "toggle:ingress.enabled=true" and obj["key"]["kind"] == "Ingress"
    assert [(f["path"], f["change"]) for f in obj["fields"]] == [
        ("spec.rules[host=shop.example.invalid].http.paths[path=/]", "removed"),
        ("spec.rules[host=shop.example.invalid].http.paths[path=/api]", "added"),
    ]


def test_refactor_renders_identically_in_all_scenarios(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        chart(
            extra={"c/values-prod.yaml": "replicas: 5\n", "c/ci/ha-values.yaml": "replicas: 3\n"}
        ),
        "feat",
    )
    nil_safe = chart("/")["c/templates/ingress.yaml"].replace(
        "{{- if .Values.ingress.enabled }}", "{{- if (.Values.ingress).enabled }}"
    )
    commit(repo, {"c/templates/ingress.yaml": nil_safe}, "refactor")
    (summary,) = scenario_doc(repo, base, renderer)["scenarios"]
    # the changed line reads .Values.ingress: the toggle that reaches it ranks first
    assert summary["ran"] == [
        "default",
        "toggle:ingress.enabled=true",
        "file:ci/ha-values.yaml",
        "file:values-prod.yaml",
    ]
    assert summary["summary"] == "renders identically in all 4 scenario(s)"


def test_values_file_scenario_uses_each_sides_file(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, chart(extra={"c/values-prod.yaml": "replicas: 5\n"}), "feat")
    commit(repo, {"c/values-prod.yaml": "replicas: 7\n"}, "feat: 7")
    doc = scenario_doc(repo, base, renderer)
    assert doc["scenarios"][0]["changed_in"] == ["file:values-prod.yaml"]
    (obj,) = doc["objects"]
    assert [(f["path"], f["before"], f["after"]) for f in obj["fields"]] == [
        ("spec.replicas", 5, 7)
    ]


def test_the_cap_cuts_and_says_so(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        chart(extra={"c/values-a.yaml": "replicas: 5\n", "c/values-b.yaml": "replicas: 6\n"}),
        "feat",
    )
    commit(
        repo,
        {"c/values.yaml": chart()["c/values.yaml"].replace("mode: fast", "mode: slow")},
        "feat: slow",
    )
    (summary,) = scenario_doc(repo, base, renderer, max_scenarios=2)["scenarios"]
    assert summary["ran"] == ["default", "file:values-a.yaml"]
    assert summary["cut"] == ["file:values-b.yaml", "toggle:ingress.enabled=true"]


def test_toggles_come_from_conditions_and_boolean_defaults_only():
    texts = [
        "{{ if and .Values.a.on .Values.b }}{{ end }}{{- with .Values.c }}{{ end }}{{ .Values.d.on }}"
    ]
    assert toggle_paths(texts) == ["a.on", "b", "c"]
    scenarios = toggle_scenarios(
        ["a.on", "b", "c"], {"a": {"on": True}, "b": "yes-string", "c": False}
    )
    assert [(s.name, s.overrides) for s in scenarios] == [
        ("toggle:a.on=false", {"a": {"on": False}}),
        ("toggle:c=true", {"c": True}),
    ]
    x = Scenario("x", overrides={"a": 1})
    chosen = choose(
        [
            x,
            x,
            Scenario("default"),
            Scenario("same-as-x", overrides={"a": 1}),
            Scenario("y", ("v.yaml",)),
        ],
        cap=5,
    )
    assert [s.name for s in chosen.ran] == ["default", "x", "y"] and chosen.cut == ()


def test_a_scenario_the_chart_rejects_on_both_sides_is_not_a_gap(tmp_path, renderer):
    repo = make_repo(tmp_path)
    guard = '{{- if .Values.hardened }}{{ required "hardened needs hub.enabled" .Values.hub }}{{ end }}\n'
    base = commit(
        repo,
        chart(
            extra={
                "c/templates/guard.yaml": guard,
                "c/values.yaml": chart()["c/values.yaml"] + "hardened: false\n",
            }
        ),
        "feat",
    )
    commit(
        repo,
        {"c/templates/ingress.yaml": INGRESS.replace("{{ .Values.ingress.path }}", "/v2")},
        "feat: v2",
    )
    doc = scenario_doc(repo, base, renderer)
    (summary,) = doc["scenarios"]
    assert summary["invalid"] == ["toggle:hardened=true"]
    assert doc["status"] == "complete" and doc["not_reviewed"] == []
    assert "rejects at base and head alike" in summary["summary"]


def test_value_sets_of_the_charts_own_tests_become_scenarios(tmp_path, renderer):
    suite = """\
suite: deployment
templates: [deployment.yaml]
tests:
  - it: runs the canary image
    set:
      image: nginx:1.29.0-canary
    asserts:
      - equal: {path: "spec.template.spec.containers[0].image", value: "nginx:1.29.0-canary"}
  - it: also toggles ingress
    set:
      ingress.enabled: true
    asserts:
      - hasDocuments: {count: 1}
"""
    repo = make_repo(tmp_path)
    base = commit(repo, {**chart(), "c/tests/deployment_test.yaml": suite}, "feat")
    deployment = chart()["c/templates/deployment.yaml"].replace(
        'image: "{{ .Values.image }}"', 'image: "{{ .Values.image | replace "-canary" "" }}"'
    )
    commit(repo, {"c/templates/deployment.yaml": deployment}, "fix: strip canary suffix")
    doc = scenario_doc(repo, base, renderer)
    (summary,) = doc["scenarios"]
    # the test that sets ingress.enabled adds nothing beyond the toggle scenario
    # the changed line reads .Values.image: the test that sets it ranks first, then the probe of
    # the value the line re-expresses (a made-up value, after the given ones)
    assert summary["ran"] == [
        "default",
        "test:deployment_test.yaml/runs the canary image",
        "probe:image=nginx:1.27.0.Probe_1",
        "toggle:ingress.enabled=true",
    ]
    assert summary["changed_in"] == ["test:deployment_test.yaml/runs the canary image"]


def test_scenarios_declared_in_the_configuration_come_first(tmp_path, renderer):
    repo = make_repo(tmp_path)
    config = "scenarios:\n  - name: prod\n    charts: ['c']\n    values: {mode: prod, ingress: {enabled: true}}\n"
    base = commit(repo, {**chart(), ".aftershock.yaml": config}, "feat")
    commit(
        repo,
        {"c/templates/ingress.yaml": INGRESS.replace("{{ .Values.ingress.path }}", "/shop")},
        "feat: shop",
    )
    (summary,) = scenario_doc(repo, base, renderer)["scenarios"]
    assert summary["ran"][:2] == ["default", "config:prod"]
    assert "config:prod" in summary["changed_in"]


def guarded_prod_mode(tmp_path, renderer, extra: dict[str, str]):
    """The review of a change that adds a guard on `mode` and edits values-prod.yaml to pass it."""
    repo = make_repo(tmp_path)
    base = commit(repo, chart(extra=extra), "feat")
    guard = '{{ if not (regexMatch "^(fast|slow)$" .Values.mode) }}{{ fail "mode must be fast or slow" }}{{ end }}\n'
    deployment = guard + chart()["c/templates/deployment.yaml"]
    commit(
        repo,
        {"c/templates/deployment.yaml": deployment, "c/values-prod.yaml": "mode: fast\n"},
        "feat: check the mode",
    )
    return run_review(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)


def test_an_edited_values_file_is_also_rendered_at_head_as_it_was_at_base(tmp_path, renderer):
    """Issue 23: a new guard the change satisfies in its own values file still rejects the values
    existing installs pass; only base's version of the file, rendered against head, shows it."""
    from aftershock.config.settings import AftershockConfig
    from aftershock.rules.engine import evaluate

    review = guarded_prod_mode(tmp_path, renderer, {"c/values-prod.yaml": "mode: turbo\n"})
    (summary,) = review.scenarios
    assert summary.ran[:3] == ("default", "upgrade:values-prod.yaml", "file:values-prod.yaml")
    findings = evaluate(review, AftershockConfig())
    (finding,) = [f for f in findings if f.rule_id == "upgrade-values-rejected"]
    assert finding.message.startswith(
        "chart c: c/values-prod.yaml as it is at base renders at base but a guard in "
        "c/templates/deployment.yaml:1 rejects it at head (mode must be fast or slow)"
    )
    assert [f for f in findings if f.rule_id == "chart-render-broken"] == []


def test_an_upgrade_rejected_by_one_template_of_several_is_the_upgrade_finding(tmp_path, renderer):
    """The chart has another template: its head still fails as a whole in the upgrade scenario, not
    by template, since the head's rejection of those values is the finding."""
    from aftershock.config.settings import AftershockConfig
    from aftershock.rules.engine import evaluate

    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"
    extra = {"c/values-prod.yaml": "mode: turbo\n", "c/templates/settings.yaml": config_map}
    review = guarded_prod_mode(tmp_path, renderer, extra)
    (upgrade,) = [r for r in review.chart_reviews if r.scenario == "upgrade:values-prod.yaml"]
    assert upgrade.rejects_upgrade and upgrade.templates_not_rendered == ()
    findings = evaluate(review, AftershockConfig())
    assert [f.rule_id for f in findings if f.rule_id.endswith("rejected")] == [
        "upgrade-values-rejected"
    ]
    assert [f for f in findings if f.rule_id == "chart-render-broken"] == []
    assert [g.part for g in review.not_reviewed if "upgrade:" in g.part] == []


def test_a_base_tests_value_set_is_also_rendered_at_head(tmp_path, renderer):
    """Issue 23: the change adds a guard and edits the test whose values it now rejects; the values that
    test gave at base (a supported install) are rendered against head and reported as rejected."""
    from aftershock.config.settings import AftershockConfig
    from aftershock.rules.engine import evaluate

    suite = """\
suite: deployment
templates: [deployment.yaml]
tests:
  - it: runs in turbo mode
    set:
      mode: {mode}
    asserts:
      - hasDocuments: {{count: 1}}
"""
    repo = make_repo(tmp_path)
    base = commit(
        repo, {**chart(), "c/tests/deployment_test.yaml": suite.format(mode="turbo")}, "feat"
    )
    guard = '{{ if not (regexMatch "^(fast|slow)$" .Values.mode) }}{{ fail "mode must be fast or slow" }}{{ end }}\n'
    commit(
        repo,
        {
            "c/templates/deployment.yaml": guard + chart()["c/templates/deployment.yaml"],
            "c/tests/deployment_test.yaml": suite.format(mode="fast"),
        },
        "feat: check the mode",
    )
    review = run_review(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    (summary,) = review.scenarios
    assert "upgrade:test:deployment_test.yaml/runs in turbo mode" in summary.ran
    assert "test:deployment_test.yaml/runs in turbo mode" in summary.ran  # head's set: mode fast
    findings = evaluate(review, AftershockConfig())
    (finding,) = [f for f in findings if f.rule_id == "upgrade-values-rejected"]
    assert finding.message.startswith(
        'chart c: the values of test "runs in turbo mode" in c/tests/deployment_test.yaml (as at base) '
        "render at base but a guard in c/templates/deployment.yaml:1 rejects them at head "
        "(mode must be fast or slow); the change edits that test's values"
    )
    assert {f.name: f.value for f in finding.facts}["suite"] == "c/tests/deployment_test.yaml"
    assert [f for f in findings if f.rule_id == "chart-render-broken"] == []
    # the head's rejection is what the scenario observed: a finding, not a part left unreviewed, and
    # no security matter (the chart renders at both refs by default)
    assert [g.part for g in review.not_reviewed if "upgrade:" in g.part] == []
    from aftershock.verdict.levels import merge_risk, security_risk

    assert security_risk(review, findings).level.value == "minimal"
    assert merge_risk(review, findings).level.value == "high"


def test_base_test_value_sets_head_still_gives_are_not_upgrades():
    from aftershock.helmtest.suite_values import SuiteValueSet
    from aftershock.model.contexts import WHOLE_CHART
    from aftershock.render.scenarios import test_upgrade_scenarios

    same = SuiteValueSet("test:a_test.yaml/x", {"mode": "fast"}, WHOLE_CHART)
    gone = [SuiteValueSet(f"test:a_test.yaml/{n}", {"mode": n}, WHOLE_CHART) for n in "abcdef"]
    found = test_upgrade_scenarios([same, *gone, gone[0]], [same], bound=4)
    assert [s.name for s in found] == [f"upgrade:test:a_test.yaml/{n}" for n in "abcd"]
    assert all(s.values_from_base for s in found)


def _schema(*keys: str) -> str:
    properties = ", ".join(f'"{k}": {{}}' for k in keys)
    return f'{{"type": "object", "additionalProperties": false, "properties": {{{properties}}}}}\n'


TLS_ENV = '          {{- if .Values.tls }}\n            - name: TLS\n              value: "on"\n          {{- end }}\n'


def _new_tls_option(repo, guard: str = "") -> str:
    """A chart whose values schema knows its keys only, then a commit adding a `tls` option (default
    false) that the deployment reads; returns the base commit."""
    files = chart()
    files["c/values.schema.json"] = _schema("replicas", "image", "mode", "ingress")
    base = commit(repo, files, "feat: chart")
    deployment = files["c/templates/deployment.yaml"] + TLS_ENV
    commit(
        repo,
        {
            "c/values.yaml": files["c/values.yaml"] + "tls: false\n",
            "c/values.schema.json": _schema("replicas", "image", "mode", "ingress", "tls"),
            "c/templates/deployment.yaml": deployment,
            **({"c/templates/guard.yaml": guard} if guard else {}),
        },
        "feat: tls option",
    )
    return base


def test_a_scenario_setting_a_key_new_at_head_renders_its_base_without_it(tmp_path, renderer):
    """The base's schema rejects `tls`, which did not exist there: the toggle's base renders without
    it, so the scenario shows what the new key does instead of being not reviewed at base."""
    repo = make_repo(tmp_path)
    doc = scenario_doc(repo, _new_tls_option(repo), renderer)
    (summary,) = doc["scenarios"]
    assert "toggle:tls=true" in summary["ran"] and summary["changed_in"] == ["toggle:tls=true"]
    assert doc["status"] == "complete" and doc["not_reviewed"] == []
    toggled = next(r for r in doc["chart_reviews"] if r["scenario"] == "toggle:tls=true")
    assert toggled["keys_left_out_at_base"] == ["tls"]
    assert toggled["base"]["status"] == "ok" and toggled["outcome"] == "changed"
    default = next(r for r in doc["chart_reviews"] if r["scenario"] == "default")
    assert default["keys_left_out_at_base"] == [] and default["outcome"] == "unchanged"
    (obj,) = [o for o in doc["objects"] if o["scenario"] == "toggle:tls=true"]
    assert [f["change"] for f in obj["fields"]] == ["added"]  # the TLS variable, nothing else
    assert "at base without tls (new at head" in summary["summary"]
    markdown = render_markdown(doc).replace("\\", "")  # unescaped
    assert "base rendered without tls (keys new at head)" in markdown
    # the default scenario changed nothing, the toggle did: the chart's line says both
    assert (
        "renders identically by default; 1 object(s) changed in scenario toggle:tls=true"
        in markdown
    )


def test_a_version_bump_does_not_hide_what_only_another_scenario_changed(tmp_path, renderer):
    """sapcc's metal-operator-dhcp: the chart's version bump changed nothing but labels by default,
    and its Service lost a port in a toggle; the chart's line said the bump alone."""
    repo = make_repo(tmp_path)
    base = _new_tls_option(repo)
    commit(repo, {"c/Chart.yaml": chart_yaml("c").replace("0.1.0", "0.1.1")}, "chore: 0.1.1")
    markdown = render_markdown(scenario_doc(repo, base, renderer)).replace("\\", "")
    line = next(n for n in markdown.splitlines() if n.startswith("- `c`"))
    assert line == (
        "- `c`: version 0.1.0 → 0.1.1, renders identically by default; "
        "1 object(s) changed in scenario toggle:tls=true"
    )


def test_a_key_new_at_head_that_the_head_refuses_alone_is_a_scenario_both_refs_reject(
    tmp_path, renderer
):
    """The base does not know `tls`; the head's guard refuses it without a certificate: the toggle is
    a configuration neither ref accepts, not a gap of the review."""
    repo = make_repo(tmp_path)
    guard = '{{- if .Values.tls }}{{ fail "tls needs a certificate" }}{{ end }}\n'
    doc = scenario_doc(repo, _new_tls_option(repo, guard), renderer)
    (summary,) = doc["scenarios"]
    assert summary["invalid"] == ["toggle:tls=true"]
    assert not [g for g in doc["not_reviewed"] if "scenario" in g["part"]]


def test_a_renamed_default_is_reviewed_as_an_upgrade_with_the_old_values_file(tmp_path, renderer):
    """Issue 32, item 2: a key of values.yaml renamed (`image.tag` to `image.version`): the base
    values.yaml passed to the head chart is a scenario, and a schema that now refuses the old key
    makes it an upgrade the head rejects."""
    from aftershock.pipeline import review_change

    repo = make_repo(tmp_path)
    cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {tag: "{{ .Values.image.TAG }}"}\n'
    base = commit(
        repo,
        {
            "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
            "c/values.yaml": "image:\n  tag: '1'\n",
            "c/templates/cm.yaml": cm.replace("TAG", "tag"),
        },
        "base",
    )
    schema = '{"properties": {"image": {"type": "object", "additionalProperties": false, "properties": {"version": {"type": "string"}}}}}'
    commit(
        repo,
        {
            "c/values.yaml": "image:\n  version: '1'\n",
            "c/templates/cm.yaml": cm.replace("TAG", "version"),
            "c/values.schema.json": schema,
        },
        "rename image.tag",
    )
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    (summary,) = result.review.scenarios
    assert summary.ran[:2] == ("default", "upgrade:values.yaml")
    rejected = [f for f in result.judgement.findings if f.rule_id == "upgrade-values-rejected"]
    assert rejected and "c/values.yaml as it is at base" in rejected[0].message


GUARDED = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: guarded}
data:
{{- with .Values.extra }}
  extra: {{ . | quote }}
  extraMode: LINE_A
{{- end }}
{{- if eq .Values.mode "strict" }}
  strict: LINE_B
{{- end }}
{{- if and .Values.audit.enabled (eq .Values.audit.sink "remote") }}
  audit: LINE_C
{{- end }}
"""


def test_scenarios_open_the_guards_of_the_changed_lines_whatever_their_type(tmp_path, renderer):
    """Issue 32, item 2: lines edited under a `with` of a null value, an `eq` with a string, and an
    `and` of a boolean and a comparison are each rendered in a scenario that opens their guard."""
    from aftershock.pipeline import review_change

    repo = make_repo(tmp_path)
    values = "extra: null\nmode: lax\naudit:\n  enabled: false\n  sink: local\n"
    files = {
        "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        "c/values.yaml": values,
    }
    base = commit(repo, {**files, "c/templates/cm.yaml": GUARDED.replace("LINE_", "old-")}, "base")
    commit(repo, {"c/templates/cm.yaml": GUARDED.replace("LINE_", "new-")}, "edit guarded lines")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    changed = {r.scenario for r in result.review.chart_reviews if r.changes}
    assert {
        "guard:extra=aftershock",
        "guard:mode=strict",
        "guard:audit.enabled=true,audit.sink=remote",
    } <= changed


RULES = """\
{{- $_ := required "must is required" .Values.must }}
{{- range $path, $bytes := .Files.Glob "alerts/*.tpl" }}
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ base $path | trimSuffix ".tpl" }}
spec:
{{ tpl (toString $bytes) $ | indent 2 }}
{{- end }}
"""

ALERTS = """\
groups:
- name: api
  rules:
  - alert: ApiDown
    expr: up == 0
  - alert: FeatureBroken
    expr: feature_errors > 0
"""


def test_a_guard_added_to_a_file_the_chart_renders_through_tpl_is_closed_in_a_scenario(
    tmp_path, renderer
):
    """The context (a ci file, as the defaults fail) turns the feature on; the chart's default is
    off. The change gates an alert behind it in a file kept outside templates/: the scenario that
    turns it off, as the chart's users have it, shows the alert go."""
    repo = make_repo(tmp_path)
    files = app_chart("c", "c")
    files["c/values.yaml"] += "feature:\n  enabled: false\n"
    files["c/templates/rules.yaml"] = RULES
    files["c/alerts/api.tpl"] = ALERTS
    files["c/ci/test-values.yaml"] = "must: yes\nfeature:\n  enabled: true\n"
    base = commit(repo, files, "feat: chart")
    gated = ALERTS.replace(
        "  - alert: FeatureBroken\n    expr: feature_errors > 0\n",
        "{{- if .Values.feature.enabled }}\n"
        "  - alert: FeatureBroken\n    expr: feature_errors > 0\n{{- end }}\n",
    )
    files["c/alerts/a-node.tpl"] = (
        "groups:\n- name: pod\n  rules:\n  - alert: PodDown\n    expr: up == 0\n"
    )
    base = commit(repo, {"c/alerts/a-node.tpl": files["c/alerts/a-node.tpl"]}, "feat: pod alert")
    labelled = files["c/alerts/a-node.tpl"] + "    labels: {severity: info}\n"
    commit(
        repo,
        {"c/alerts/api.tpl": gated, "c/alerts/a-node.tpl": labelled},
        "fix: alert only where the feature runs",
    )
    outcome = review_change(ReviewRequest(repo=repo, base=base), renderer)
    doc = review_document(outcome.review)
    (summary,) = doc["scenarios"]
    # the toggle flips what the context renders (on), not the chart's default (off)
    assert "toggle:feature.enabled=false" in summary["ran"]
    assert "toggle:feature.enabled=true" not in summary["ran"]
    api = [o for o in doc["objects"] if o["key"]["name"] == "api"]
    assert [o["scenario"] for o in api] == ["toggle:feature.enabled=false"]  # on, as before
    assert [f["change"] for f in api[0]["fields"]] == ["removed"]
    # the finding points at the guard that drops the alert, not at the other file's edit
    (lost,) = [f for f in outcome.judgement.findings if f.rule_id == "resource-deleted"]
    assert lost.location == Location("c/alerts/api.tpl", 6)


def test_the_guard_around_the_template_reading_an_edited_file_opens_in_a_scenario(
    tmp_path, renderer
):
    """The alerts render only with `alerts.enabled`, read through a variable holding `.Values` in the
    template that globs them: an edit to an alert's expression shows in the scenario turning it on."""
    repo = make_repo(tmp_path)
    files = app_chart("c", "c")
    files["c/values.yaml"] += "alerts:\n  enabled: false\n"
    files["c/templates/rules.yaml"] = (
        "{{- $values := .Values }}\n{{- if $values.alerts.enabled }}\n"
        + (RULES.split("\n", 1)[1])
        + "{{- end }}\n"
    )
    files["c/alerts/api.tpl"] = ALERTS
    base = commit(repo, files, "feat: chart")
    commit(repo, {"c/alerts/api.tpl": ALERTS.replace("up == 0", "up < 1")}, "fix: expr")
    doc = scenario_doc(repo, base, renderer, max_scenarios=2)
    (summary,) = doc["scenarios"]
    assert summary["ran"] == ["default", "toggle:alerts.enabled=true"]
    (obj,) = doc["objects"]
    assert (
        obj["key"]["kind"] == "PrometheusRule" and obj["scenario"] == "toggle:alerts.enabled=true"
    )


def test_a_variable_holding_the_values_is_read_as_the_values_in_conditions():
    text = (
        "{{- $values := .Values }}\n{{- if $values.alerts.enabled }}\n"
        "{{- if $valuesFor.other }}{{ end }}{{- end }}\n"
    )
    assert toggle_paths([text]) == ["alerts.enabled"]
    assert [
        s.name for s in toggle_scenarios(toggle_paths([text]), {"alerts": {"enabled": False}})
    ] == ["toggle:alerts.enabled=true"]


def test_a_charts_line_counts_what_other_scenarios_changed_beside_the_defaults(tmp_path, renderer):
    """sapcc's hermes: the default changed one object and a toggle another; the chart's line said
    "1 object(s) changed" while the change changed two."""
    repo = make_repo(tmp_path)
    base = commit(repo, chart("/"), "feat: chart")
    values = chart()["c/values.yaml"].replace("replicas: 2", "replicas: 3")
    ingress = INGRESS.replace("{{ .Values.ingress.path }}", "/api")
    commit(repo, {"c/values.yaml": values, "c/templates/ingress.yaml": ingress}, "feat: scale")
    markdown = render_markdown(scenario_doc(repo, base, renderer)).replace("\\", "")
    line = next(n for n in markdown.splitlines() if n.startswith("- `c`"))
    assert line.endswith("1 object(s) changed, 1 more in scenario toggle:ingress.enabled=true"), (
        line
    )
