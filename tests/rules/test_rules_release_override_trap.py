"""values-release-override-trap on real git repositories reviewed end to end with real Helm: a release
that already sets a chart's default list (or the override side of a template merge of it) misses the
entries the change adds, as a Low concern that keeps its fingerprint across pushes."""

from __future__ import annotations

from pathlib import Path

from aftershock.findings.model import Delta, Evidence, Severity
from aftershock.model.state_lifecycle import LifecycleState, compare
from aftershock.pipeline import ReviewRequest, review_change
from charts import chart_yaml
from gitrepo import commit, make_repo

RULE = "values-release-override-trap"

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx:1.27.0
          env: {{- toYaml .Values.env | nindent 12 }}
"""

LOG_LEVEL = "  - {name: LOG_LEVEL, value: info}\n"
OTEL = "  - {name: OTEL_ENDPOINT, value: http://otel:4317}\n"
REGION = "  - {name: REGION, value: eu-west-1}\n"


def release(name: str, chart: str, values: str) -> str:
    return f"""\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {{name: {name}, namespace: apps}}
spec:
  interval: 10m
  chart:
    spec: {{chart: {chart}, sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}}}
  values:
{values}"""


def web_repo(tmp_path: Path, extra: dict[str, str] | None = None) -> tuple[Path, str]:
    """Chart web (env: LOG_LEVEL) and three releases: one overrides LOG_LEVEL only, one already lists
    OTEL_ENDPOINT, one sets no env."""
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            "charts/web/Chart.yaml": chart_yaml("web"),
            "charts/web/values.yaml": "env:\n" + LOG_LEVEL,
            "charts/web/templates/deployment.yaml": DEPLOYMENT,
            "apps/web.yaml": release(
                "web", "./charts/web", "    env:\n      - {name: LOG_LEVEL, value: debug}\n"
            ),
            "apps/otel.yaml": release(
                "otel", "./charts/web", "    env:\n      - {name: OTEL_ENDPOINT, value: http://x}\n"
            ),
            "apps/plain.yaml": release("plain", "./charts/web", "    {}\n"),
            **(extra or {}),
        },
        "feat: web",
    )
    return repo, base


def findings(repo: Path, base: str, renderer, head: str = "HEAD"):
    result = review_change(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False), renderer
    )
    return [f for f in result.judgement.findings if f.rule_id == RULE]


def test_a_release_overriding_the_list_misses_the_new_default(tmp_path, renderer):
    repo, base = web_repo(tmp_path)
    commit(repo, {"charts/web/values.yaml": "env:\n" + LOG_LEVEL + OTEL}, "feat: trace web")
    (finding,) = findings(repo, base, renderer)
    assert finding.severity is Severity.LOW and finding.delta is Delta.INTRODUCED
    assert finding.evidence is Evidence.OBSERVED
    assert finding.subject.id == "charts/web/values.yaml#env"
    assert finding.subject.facet == "helm.toolkit.fluxcd.io/HelmRelease/apps/web"
    assert finding.message == (
        "release HelmRelease.helm.toolkit.fluxcd.io apps/web already sets env, which replaces the default "
        "list env of charts/web/values.yaml as a whole (Helm merges values map by map and replaces a list): "
        "an existing partial override replaces all new defaults rather than extending them, so the release "
        "will not get OTEL_ENDPOINT (observed: rendered with its values at head, Deployment.apps apps/web "
        "has none of them)"
    )
    assert finding.location is not None and finding.location.file == "charts/web/values.yaml"
    assert finding.location.line == 1
    assert {f.name: f.value for f in finding.facts}["missed"] == ["OTEL_ENDPOINT"]


def test_the_concern_is_retained_and_stays_low_across_pushes(tmp_path, renderer):
    repo, base = web_repo(tmp_path)
    first = commit(repo, {"charts/web/values.yaml": "env:\n" + LOG_LEVEL + OTEL}, "feat: trace")
    second = commit(
        repo, {"charts/web/values.yaml": "env:\n" + LOG_LEVEL + OTEL + REGION}, "feat: region"
    )
    (before,) = findings(repo, base, renderer, head=first)
    now = findings(repo, base, renderer, head=second)
    missed = {
        f.subject.facet.rsplit("/", 1)[-1]: {x.name: x.value for x in f.facts}["missed"]
        for f in now
    }
    # the release that already listed OTEL_ENDPOINT now misses REGION only
    assert missed == {"web": ["OTEL_ENDPOINT", "REGION"], "otel": ["REGION"]}
    assert all(f.severity is Severity.LOW for f in now)
    states = {e.fingerprint: e.state for e in compare([before], now, {}).entries}
    assert states[before.fingerprint] is LifecycleState.RETAINED


MERGING = """\
{{- $env := mergeOverwrite (deepCopy .Values.defaults.web) (.Values.overrides.web | default dict) }}
apiVersion: v1
kind: ConfigMap
metadata: {name: web-env}
data:
  env.yaml: |
    {{- toYaml $env.env | nindent 4 }}
"""


def platform_values(*entries: str) -> str:
    return (
        "defaults:\n  web:\n    env:\n" + "".join("    " + e for e in entries) + "overrides: {}\n"
    )


def test_a_release_setting_the_override_side_of_a_template_merge(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            "charts/platform/Chart.yaml": chart_yaml("platform"),
            "charts/platform/values.yaml": platform_values(LOG_LEVEL),
            "charts/platform/templates/env.yaml": MERGING,
            "apps/platform.yaml": release(
                "platform",
                "./charts/platform",
                "    overrides:\n      web:\n        env:\n          - {name: LOG_LEVEL, value: debug}\n",
            ),
        },
        "feat: platform",
    )
    commit(repo, {"charts/platform/values.yaml": platform_values(LOG_LEVEL, OTEL)}, "feat: trace")
    (finding,) = findings(repo, base, renderer)
    assert finding.subject.id == "charts/platform/values.yaml#defaults.web.env"
    assert {f.name: f.value for f in finding.facts}["set_at"] == "overrides.web.env"
    assert "(mergeOverwrite in env.yaml:1)" in finding.message
    # the merged list is rendered into a string: the render cannot show it, so it is read only
    assert finding.evidence is Evidence.INFERRED and finding.severity is Severity.LOW


def test_a_chart_test_of_a_partial_override_pins_it_and_guards_no_new_default(tmp_path, renderer):
    """The test asserts the replacement: it shows the trap, it does not make it safe."""
    suite = """\
suite: env
templates: [deployment.yaml]
tests:
  - it: keeps an overridden env list as given
    set:
      env: [{name: LOG_LEVEL, value: debug}]
    asserts:
      - equal: {path: "spec.template.spec.containers[0].env", value: [{name: LOG_LEVEL, value: debug}]}
"""
    repo, base = web_repo(tmp_path, {"charts/web/tests/env_test.yaml": suite})
    commit(repo, {"charts/web/values.yaml": "env:\n" + LOG_LEVEL + OTEL}, "feat: trace web")
    (found,) = findings(repo, base, renderer)
    assert found.message.endswith(
        "the chart's test charts/web/tests/env_test.yaml sets the list too: it pins the "
        "replacement but guards none of the new defaults"
    )
