"""The override-trap stage and rule on real git repositories rendered with real Helm: a partial override
of a default list that a template merges is rendered, and the default entries it drops are observed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from aftershock.config.settings import AftershockConfig
from aftershock.findings.model import Delta, Severity
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.override import ProbeStatus, probe_summary
from aftershock.model.review import Review
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.observation.override_trap import probe_override_traps
from aftershock.pipeline.testing.tests import materialize_charts
from aftershock.provenance.merges import merge_calls, override_path
from aftershock.rules.engine import evaluate
from charts import chart_yaml
from gitrepo import commit, make_repo

DEPLOYMENT = """\
{{- $cfg := merge (deepCopy (.Values.user | default dict)) .Values.defaults }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
        - name: app
          image: nginx:1.27.0
          args: {{- toYaml $cfg.args | nindent 12 }}
          env: {{- toYaml $cfg.env | nindent 12 }}
{{- range .Values.extraEnv }}
            - {{- toYaml . | nindent 14 }}
{{- end }}
"""

# The hosts are appended to the defaults (concat), so a partial override keeps them: only a render shows it.
INGRESS = """\
{{- $cfg := merge (deepCopy (.Values.user | default dict)) .Values.defaults }}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app
spec:
  rules:
{{- range concat .Values.defaults.hosts (.Values.user.hosts | default list) }}
    - host: {{ .host }}
{{- end }}
"""

BASE_VALUES = """\
user: {}
defaults:
  args: ["--a"]
  env:
    - name: A
      value: "1"
  hosts:
    - host: a.example.com
extraEnv:
  - name: EXTRA_ONE
    value: x
"""

HEAD_VALUES = """\
user: {}
defaults:
  args: ["--a", "--b"]
  env:
    - name: A
      value: "1"
    - name: B
      value: "2"
  hosts:
    - host: a.example.com
    - host: b.example.com
extraEnv:
  - name: EXTRA_ONE
    value: x
  - name: EXTRA_TWO
    value: y
"""


def _app_repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path)
    commit(
        repo,
        {
            "charts/app/Chart.yaml": chart_yaml("app"),
            "charts/app/values.yaml": BASE_VALUES,
            "charts/app/templates/deployment.yaml": DEPLOYMENT,
            "charts/app/templates/ingress.yaml": INGRESS,
        },
        "chore: base",
    )
    commit(repo, {"charts/app/values.yaml": HEAD_VALUES}, "feat: more defaults")
    return repo


def _review(repo: Path, renderer, base: str, head: str) -> Review:
    return run_review(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False, max_scenarios=1), renderer
    )


def _probe(review: Review, repo: Path, renderer, work: Path, max_renders: int = 12):
    """Lay the reviewed charts out at both refs as the review does, then run the stage."""
    git = GitRepository.open(repo)
    charts = [r.chart for r in review.chart_reviews]
    for side, sha in (("base", review.base.sha), ("head", review.head.sha)):
        with RefSnapshot.open(git, sha, side, 5 * 2**20) as tree:
            tree.check_safe()
            materialize_charts(tree, charts, work / side)
    return probe_override_traps(review, work / "base", work / "head", renderer, max_renders)


def _findings(review: Review, probes) -> list:
    judged = evaluate(replace(review, override_probes=probes), AftershockConfig())
    return [f for f in judged if f.rule_id == "values-override-trap"]


def test_example_release_defaults_env_is_dropped_by_a_partial_override(
    example_repo, renderer, tmp_path
):
    review = _review(
        example_repo,
        renderer,
        "state-03-lib-security-context-helpers",
        "state-04-orders-release-tracing",
    )
    probes = _probe(review, example_repo, renderer, tmp_path)
    assert [(p.chart, p.values_path, p.override_path, p.status) for p in probes] == [
        (
            "charts/releases/platform-releases",
            "defaults.orders.env",
            "overrides.orders.env",
            ProbeStatus.DROPPED,
        ),
    ]
    probe = probes[0]
    assert probe.dropped_entries == (
        "LOG_LEVEL",
        "ORDERS_CONFIG_FILE",
        "ORDERS_REGION",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
    )
    release = "helm.toolkit.fluxcd.io/HelmRelease/flux-system/orders"
    assert {(d.object_id, d.field) for d in probe.dropped} == {(release, "spec.values.env")}
    assert (
        probe.dropped[0].template == "charts/releases/platform-releases/templates/helmreleases.yaml"
    )
    assert (probe.site.template, probe.site.line, probe.site.function) == (
        "charts/releases/platform-releases/templates/helmreleases.yaml",
        3,
        "mergeOverwrite",
    )
    assert probe.base_dropped == ("LOG_LEVEL", "ORDERS_CONFIG_FILE", "ORDERS_REGION")
    assert probe.values_line == 26  # `env:` under defaults.orders

    [finding] = _findings(review, probes)
    assert (finding.delta, finding.severity, finding.evidence.value) == (
        Delta.WIDENED,
        Severity.MEDIUM,
        "observed",
    )
    assert (
        finding.location is not None
        and finding.location.file == "charts/releases/platform-releases/values.yaml"
    )
    assert "OTEL_EXPORTER_OTLP_ENDPOINT new with this change" in finding.message
    assert (
        "HelmRelease.helm.toolkit.fluxcd.io flux-system/orders spec.values.env" in finding.message
    )


def test_example_change_without_merged_lists_probes_nothing(example_repo, renderer, tmp_path):
    review = _review(example_repo, renderer, "state-00-initial", "state-01-orders-replicas")
    assert _probe(review, example_repo, renderer, tmp_path) == ()


def test_merge_user_over_defaults_drops_lists_but_concat_keeps_them(tmp_path, renderer):
    repo = _app_repo(tmp_path)
    review = _review(repo, renderer, "HEAD~1", "HEAD")
    probes = {p.values_path: p for p in _probe(review, repo, renderer, tmp_path / "work")}
    assert sorted(probes) == [
        "defaults.args",
        "defaults.env",
        "defaults.hosts",
    ]  # extraEnv is merged by no template
    args, env, hosts = probes["defaults.args"], probes["defaults.env"], probes["defaults.hosts"]
    assert (args.override_path, args.probe_entry, args.site.function) == (
        "user.args",
        "aftershock-probe",
        "merge",
    )
    assert (args.status, args.dropped_entries, args.base_dropped) == (
        ProbeStatus.DROPPED,
        ("--a", "--b"),
        ("--a",),
    )
    containers = "spec.template.spec.containers[name=app]"
    assert {(d.object_id, d.field) for d in args.dropped} == {
        ("apps/Deployment/default/app", f"{containers}.args")
    }
    assert (env.probe_entry, env.dropped_entries, env.base_dropped) == (
        {"name": "aftershock-probe"},
        ("A", "B"),
        ("A",),
    )
    assert (hosts.status, hosts.dropped, hosts.base_dropped) == (ProbeStatus.KEPT, (), ())

    findings = _findings(review, tuple(probes.values()))
    assert sorted((f.subject.id, f.delta) for f in findings) == [
        ("charts/app/values.yaml#defaults.args", Delta.WIDENED),
        ("charts/app/values.yaml#defaults.env", Delta.WIDENED),
    ]
    by_key = {f.subject.id: f for f in findings}
    assert [fact.value for fact in by_key["charts/app/values.yaml#defaults.env"].facts] == [
        ["A", "B"]
    ]


def test_renders_are_bounded_and_a_head_only_probe_counts_as_introduced(tmp_path, renderer):
    repo = _app_repo(tmp_path)
    review = _review(repo, renderer, "HEAD~1", "HEAD")
    probes = {
        p.values_path: p for p in _probe(review, repo, renderer, tmp_path / "work", max_renders=3)
    }
    assert probes["defaults.args"].base_dropped == ("--a",)  # head and base: 2 renders
    env = probes["defaults.env"]  # head only: the third render
    assert (env.status, env.base_present, env.base_dropped) == (ProbeStatus.DROPPED, True, None)
    assert probes["defaults.hosts"].status is ProbeStatus.CUT
    assert [p.renders for p in probes.values()] == [2, 1, 0]
    assert probe_summary(tuple(probes.values())) == (
        "2 override probe(s) rendered in 3 render(s), 2 dropping defaults; 1 cut by the render bound"
    )
    deltas = {
        f.subject.id.split("#")[1]: f.delta for f in _findings(review, tuple(probes.values()))
    }
    assert deltas == {"defaults.args": Delta.WIDENED, "defaults.env": Delta.INTRODUCED}


def test_merge_calls_follow_variables_pipes_and_argument_order():
    text = (
        "{{- range $name, $r := .Values.releases }}\n"
        "{{- $d := index $.Values.defaults $name }}\n"
        "{{- $v := mergeOverwrite (deepCopy $d) (index $.Values.overrides $name | default dict) }}\n"
        "{{- end }}\n"
        "{{/* merge (.Values.commented) .Values.out is a comment */}}\n"
        '{{ toYaml (mustMerge (dict) (get .Values "user") .Values.base) }}\n'
        "{{ $x := .Values.top | mergeOverwrite (dict) }}\n"
    )
    calls = merge_calls(text)
    assert [(c.line, c.function, c.defaults, c.overrides) for c in calls] == [
        (3, "mergeOverwrite", ("defaults", "$name"), ("overrides", "$name")),
        (6, "mustMerge", ("base",), ("user",)),
    ]
    assert override_path(calls[0], ("defaults", "orders", "env")) == ("overrides", "orders", "env")
    assert (
        override_path(calls[0], ("defaults", "orders")) is None
    )  # the merged map itself, not a list in it
    assert override_path(calls[1], ("base", "tolerations")) == ("user", "tolerations")
    assert override_path(calls[1], ("other", "tolerations")) is None


DEFAULTS_DEFINE = """\
{{- define "app.defaults" -}}
env:
  - name: LOG_LEVEL
    value: info
{{- if .Values.tracing }}
  - name: TRACING
    value: "on"
{{- end }}
{{- end }}
"""

DEFINE_DEPLOYMENT = """\
{{- $cfg := mergeOverwrite (include "app.defaults" . | fromYaml) (.Values.config | default dict) }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
        - name: app
          image: nginx:1.27.0
          env: {{- toYaml $cfg.env | nindent 12 }}
"""


def test_defaults_a_define_builds_are_dropped_by_a_partial_override_of_the_merged_values(
    tmp_path, renderer
):
    """Defaults kept in a template (a define merged under `.Values.config`) are probed as the
    values.yaml ones: the new entry the change adds is lost to a one-entry `config.env`."""
    repo = make_repo(tmp_path)
    files = {
        "charts/app/Chart.yaml": chart_yaml("app"),
        "charts/app/values.yaml": "config: {}\ntracing: true\n",
        "charts/app/templates/_defaults.tpl": DEFAULTS_DEFINE.replace(
            '{{- if .Values.tracing }}\n  - name: TRACING\n    value: "on"\n{{- end }}\n', ""
        ),
        "charts/app/templates/deployment.yaml": DEFINE_DEPLOYMENT,
    }
    commit(repo, files, "chore: base")
    commit(repo, {"charts/app/templates/_defaults.tpl": DEFAULTS_DEFINE}, "feat: trace")
    review = _review(repo, renderer, "HEAD~1", "HEAD")
    (probe,) = _probe(review, repo, renderer, tmp_path / "work")
    assert (probe.values_path, probe.values_file, probe.override_path) == (
        "env of define app.defaults",
        "charts/app/templates/_defaults.tpl",
        "config.env",
    )
    assert (probe.status, probe.dropped_entries, probe.base_dropped) == (
        ProbeStatus.DROPPED,
        ("LOG_LEVEL", "TRACING"),
        ("LOG_LEVEL",),
    )
    (finding,) = _findings(review, (probe,))
    assert finding.delta is Delta.WIDENED and "TRACING new with this change" in finding.message
