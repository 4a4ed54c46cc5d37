"""Every changed template line is run by some render of the review, or the review says it was not."""

from __future__ import annotations

from aftershock.model.change import Side
from aftershock.pipeline import ReviewRequest, review_change, run_review
from charts import chart_yaml, library_and_app
from gitrepo import commit, make_repo

# `extra` is a map: only a scenario that sets it to a map enters the block.
LABELS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels:
    app: c
    {{- with .Values.extra }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
data:
  level: info
"""


def review(repo, base, renderer, **options):
    return run_review(ReviewRequest(repo=repo, base=base, run_tests=False, **options), renderer)


def chart_repo(tmp_path, values: str, files: dict[str, str]):
    """A repository holding chart `c` with `values` and `files` (paths inside the chart); (repo,
    the commit)."""
    repo = make_repo(tmp_path)
    chart = {"c/Chart.yaml": chart_yaml("c"), "c/values.yaml": values}
    base = commit(repo, {**chart, **{f"c/{path}": text for path, text in files.items()}}, "feat: c")
    return repo, base


def _chart() -> dict[str, str]:
    return {
        "c/Chart.yaml": chart_yaml("c"),
        "c/values.yaml": "extra: {}\n",
        "c/templates/cm.yaml": LABELS,
    }


def test_a_logic_only_line_no_render_runs_is_not_exercised(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _chart(), "feat: c")
    # nothing but template logic changes, under a block the defaults leave off
    commit(repo, {"c/templates/cm.yaml": LABELS.replace("nindent 4 }}", "nindent 4 -}}")}, "fix")
    result = review(repo, base, renderer, max_scenarios=1)
    # the line edited: one gap for both refs, not one a side
    assert [(g.part, g.side) for g in result.not_reviewed] == [
        ("template c/templates/cm.yaml lines 8", None)
    ]
    assert "executed these edited lines" in result.not_reviewed[0].reason
    assert not result.complete
    lines = {(c.side, c.lines): (c.evidence, c.scenarios) for c in result.changed_lines}
    assert lines == {(Side.HEAD, "8"): ("none", ()), (Side.BASE, "8"): ("none", ())}


def test_the_scenario_that_opens_the_block_runs_the_line_and_is_named(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _chart(), "feat: c")
    commit(repo, {"c/templates/cm.yaml": LABELS.replace("nindent 4 }}", "nindent 4 -}}")}, "fix")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (head,) = [c for c in result.changed_lines if c.side is Side.HEAD]
    assert head.evidence == "traced" and head.lines == "8"
    assert head.scenarios and all(s.startswith("guard:extra=") for s in head.scenarios)


LIBRARY = """\
{{- define "lib.labels" -}}
team: platform
{{- end }}
{{- define "lib.unused" -}}
never: called
{{- end }}
"""

CONSUMER = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  labels:
    {{- include "lib.labels" . | nindent 4 }}
"""


def _library_repo(tmp_path):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        library_and_app(
            {"templates/_labels.tpl": LIBRARY},
            {"values.yaml": "{}\n", "templates/cm.yaml": CONSUMER},
        ),
        "feat: app",
    )
    return repo, base


def test_a_library_line_is_traced_through_the_chart_that_includes_it(tmp_path, renderer):
    repo, base = _library_repo(tmp_path)
    commit(
        repo,
        {"lib/templates/_labels.tpl": LIBRARY.replace("{{- end }}\n", "{{- end -}}\n", 1)},
        "fix: trim",
    )
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    head = [c for c in result.changed_lines if c.side is Side.HEAD]
    assert [(c.path, c.lines, c.evidence, c.scenarios) for c in head] == [
        ("lib/templates/_labels.tpl", "3", "traced", ("default",))
    ]


def test_a_changed_define_nothing_includes_is_not_exercised(tmp_path, renderer):
    repo, base = _library_repo(tmp_path)
    commit(
        repo,
        {"lib/templates/_labels.tpl": LIBRARY.replace("never: called", "never: {{ .x }}")},
        "feat: unused",
    )
    result = review(repo, base, renderer)
    assert [g.part for g in result.not_reviewed] == ["template lib/templates/_labels.tpl lines 5"]


def test_a_fail_line_is_exercised_by_the_render_that_fails_with_its_message(tmp_path, renderer):
    repo = make_repo(tmp_path)
    chart = {**_chart(), "c/values.yaml": "extra: {}\nlegacy: false\n"}
    base = commit(repo, chart, "feat: c")
    guarded = LABELS + '{{- if .Values.legacy }}\n{{- fail "legacy mode is gone" }}\n{{- end }}\n'
    commit(repo, {"c/templates/cm.yaml": guarded}, "feat: drop legacy")
    result = review(repo, base, renderer)
    lines = [(c.lines, c.evidence, c.scenarios) for c in result.changed_lines]
    # the fail, by the scenarios Helm rejected with it; the `if` that opens to it, in every render
    assert ("13", "text", ("guards:edited", "toggle:legacy=true")) in lines
    assert ("12", "traced") in [(numbers, evidence) for numbers, evidence, _ in lines]


LEGACY = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  level: info
{{- if .Values.legacy.enabled }}
  legacy: "on"
{{- end }}
"""


def test_lines_a_change_removes_under_a_toggle_it_removes_run_at_base(tmp_path, renderer):
    repo, base = chart_repo(tmp_path, "legacy:\n  enabled: false\n", {"templates/cm.yaml": LEGACY})
    # the feature and its toggle go: only the base knows the guard
    commit(
        repo,
        {"c/values.yaml": "{}\n", "c/templates/cm.yaml": LEGACY.split("{{- if")[0]},
        "feat!: drop legacy",
    )
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    removed = [(c.lines, c.evidence, c.scenarios) for c in result.changed_lines]
    # the guard's condition runs in every render, its body only with the toggle
    assert removed[1] == ("8", "traced", ("toggle:legacy.enabled=true",))
    assert [(lines, evidence) for lines, evidence, _ in removed] == [
        ("7", "traced"),
        ("8", "traced"),
        ("9", "traced"),
    ]


TOGGLES = "".join(f'{{{{- if .Values.t{n} }}}}\n  t{n}: "on"\n{{{{- end }}}}\n' for n in range(6))


def test_the_tests_of_a_suite_the_change_adds_render_ahead_of_other_scenarios(tmp_path, renderer):
    values = "".join(f"t{n}: false\n" for n in range(6)) + "level: info\n"
    template = LEGACY.replace("{{- if .Values.legacy.enabled }}", "{{- if false }}") + TOGGLES
    repo, base = chart_repo(tmp_path, values, {"templates/cm.yaml": template})
    suite = (
        "suite: level\ntemplates: [templates/cm.yaml]\ntests:\n"
        "  - it: sets the level\n    set: {level: debug}\n"
        "    asserts: [{isKind: {of: ConfigMap}}]\n"
    )
    commit(repo, {"c/tests/level_test.yaml": suite}, "test: level")
    result = review(repo, base, renderer, max_scenarios=2)
    (summary,) = result.scenarios
    assert summary.ran == ("default", "test:level_test.yaml/sets the level")


def test_the_test_a_change_edits_renders_ahead_of_its_suites_other_tests(tmp_path, renderer):
    """A suite of many tests, one of them edited to set what the change reads: that test renders
    within the cap, not the suite's first tests (traefik's e9fb8f4514 added 14 tests to suites of
    hundreds)."""
    values = "".join(f"t{n}: false\n" for n in range(6)) + "level: info\n"
    template = LEGACY.replace("{{- if .Values.legacy.enabled }}", "{{- if false }}") + TOGGLES
    tests = "".join(
        f"  - it: sets t{n}\n    set: {{t{n}: true}}\n    asserts: [{{isKind: {{of: ConfigMap}}}}]\n"
        for n in range(6)
    )
    suite = "suite: toggles\ntemplates: [templates/cm.yaml]\ntests:\n" + tests
    repo, base = chart_repo(
        tmp_path, values, {"templates/cm.yaml": template, "tests/toggles_test.yaml": suite}
    )
    edited = suite.replace("set: {t4: true}", "set: {t4: true, level: debug}")
    commit(repo, {"c/tests/toggles_test.yaml": edited}, "test: t4 at debug")
    result = review(repo, base, renderer, max_scenarios=2)
    (summary,) = result.scenarios
    assert summary.ran == ("default", "test:toggles_test.yaml/sets t4")


PORTS = """\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - name: http
      port: 80
    {{- range .Values.extraPorts }}
    - name: {{ .name }}
      port: {{ .port }}
    {{- end }}
"""


def test_a_range_the_defaults_leave_empty_runs_with_an_entry_shaped_as_its_body_reads(
    tmp_path, renderer
):
    repo, base = chart_repo(tmp_path, "extraPorts: []\n", {"templates/svc.yaml": PORTS})
    commit(
        repo,
        {
            "c/templates/svc.yaml": PORTS.replace(
                "port: {{ .port }}", "port: {{ .port }}\n      protocol: TCP"
            )
        },
        "feat: tcp",
    )
    result = review(repo, base, renderer, max_scenarios=2)
    assert result.complete, result.not_reviewed
    (added,) = [c for c in result.changed_lines if c.side is Side.HEAD]
    assert added.evidence == "traced" and added.scenarios[0].startswith("guard")


TLS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: web
data:
  level: info
{{- if .Values.ingress.tls }}
  tls: "on"
{{- end }}
"""
# in another template: the edited one's guards open tls alone, which the chart rejects
VALIDATE = """\
{{- if and .Values.ingress.tls (not .Values.ingress.enabled) }}
{{- fail "ingress.tls needs ingress.enabled" }}
{{- end }}
"""


def test_a_toggle_the_chart_rejects_alone_runs_with_the_toggle_its_fail_demands(tmp_path, renderer):
    values = "ingress:\n  enabled: false\n  tls: false\n"
    files = {"templates/cm.yaml": TLS, "templates/validate.yaml": VALIDATE}
    repo, base = chart_repo(tmp_path, values, files)
    commit(repo, {"c/templates/cm.yaml": TLS.replace('tls: "on"', 'tls: "strict"')}, "feat: strict")
    result = review(repo, base, renderer, max_scenarios=2)
    assert result.complete, result.not_reviewed
    (added,) = [c for c in result.changed_lines if c.side is Side.HEAD]
    assert added.evidence == "traced"
    assert added.scenarios == ("toggle:ingress.tls=true+ingress.enabled",)


TENANT = """\
{{- if .Values.tenant }}
{{- if ne .Release.Namespace .Values.tenant }}{{ fail "install a tenant into its namespace" }}{{ end }}
{{- end }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  tenant: {{ .Values.tenant | quote }}
"""


def test_a_test_scenario_renders_as_the_release_its_suite_sets(tmp_path, renderer):
    suite = (
        "suite: tenant\ntemplates: [templates/cm.yaml]\nrelease: {name: shop, namespace: shop}\n"
        "tests:\n  - it: is the shop's\n    set: {tenant: shop}\n"
        "    asserts: [{isKind: {of: ConfigMap}}]\n"
    )
    files = {"templates/cm.yaml": TENANT, "tests/tenant_test.yaml": suite}
    repo, base = chart_repo(tmp_path, 'tenant: ""\n', files)
    commit(
        repo, {"c/templates/cm.yaml": TENANT.replace("settings", "tenant-settings")}, "feat: name"
    )
    result = review(repo, base, renderer)
    (tested,) = [
        r for r in result.chart_reviews if r.scenario == "test:tenant_test.yaml/is the shop's"
    ]
    assert tested.outcome.value == "changed"
    assert tested.head_inputs.namespace == "shop" and tested.head_inputs.release_name == "shop"


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: web
      image: web:1
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
"""


def test_what_made_up_values_render_is_diffed_and_traced_but_never_judged(tmp_path, renderer):
    """The probe opening `tolerations` with a made-up entry renders a toleration Kubernetes would
    reject: that is no finding of the change."""
    pod = POD.replace("nindent 4", "nindent 2")
    repo, base = chart_repo(tmp_path, "tolerations: []\n", {"templates/pod.yaml": pod})
    commit(repo, {"c/templates/pod.yaml": POD}, "fix: indent")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    probes = [r for r in result.review.chart_reviews if r.probe]
    assert probes and all(r.scenario.startswith("guard") for r in probes)
    assert any(c.evidence == "traced" for c in result.review.changed_lines)
    assert "object-schema-invalid" not in {f.rule_id for f in result.judgement.findings}


MODE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  level: info
{{- if .Values.mode }}
  mode: {{ .Values.mode | quote }}
{{- end }}
"""
ENUM = '{"type": "object", "properties": {"mode": {"enum": ["", "fast"]}}}\n'


def test_a_probe_the_chart_rejects_at_one_ref_is_rejected_not_a_part_not_reviewed(
    tmp_path, renderer
):
    """The head's new schema refuses the made-up `mode`: that says nothing of the change."""
    repo, base = chart_repo(tmp_path, 'mode: ""\n', {"templates/cm.yaml": MODE})
    edited = MODE.replace("mode: {{", "run-mode: {{")
    commit(repo, {"c/values.schema.json": ENUM, "c/templates/cm.yaml": edited}, "feat: modes")
    result = review(repo, base, renderer)
    (probe,) = [r for r in result.chart_reviews if r.probe]
    assert probe.outcome.value == "scenario_invalid"
    assert not [g for g in result.not_reviewed if "scenario guard" in g.part]


ENV = (
    """\
apiVersion: example.com/v1
kind: Config
metadata: {name: c}
spec:
"""
    + "".join(
        f"  {{{{- with .Values.{k} }}}}\n  {k}: {{{{ toYaml . | nindent 4 }}}}\n  {{{{- end }}}}\n"
        for k in "abcde"
    )
    + """\
  env:
  {{- with (concat .Values.global.env .Values.server.env) }}
    {{- toYaml . | nindent 4 }}
  {{- end }}
"""
)


def test_a_line_reading_nothing_is_reached_through_the_blocks_around_it(tmp_path, renderer):
    """`toYaml .` becomes `tpl (toYaml .) $`: the line reads no field, the `with` around it reads
    global.env and server.env. Past the edited guards, the scenario opening that block renders
    first, not the first of the chart's other guards."""
    values = "a: {}\nb: {}\nc: {}\nd: {}\ne: {}\nglobal: {env: []}\nserver: {env: []}\n"
    repo, base = chart_repo(tmp_path, values, {"templates/config.yaml": ENV})
    edited = ENV.replace("{{- toYaml . | nindent 4 }}", "{{- tpl (toYaml .) $ | nindent 4 }}")
    commit(repo, {"c/templates/config.yaml": edited}, "feat: tpl in env values")
    request = ReviewRequest(repo=repo, base=base, run_tests=False, max_scenarios=3)
    (summary,) = review_change(request, renderer).review.scenarios
    assert summary.ran[:2] == ("default", "guards:edited")
    assert summary.ran[2].startswith(("guard:global.env", "guard:server.env")), summary.ran
