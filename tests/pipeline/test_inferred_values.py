"""Values the platform injects: a chart no context renders takes the keys Helm says are missing from the
values files the repository's CI and tests give (its own, its dependencies', any chart's for `global.`)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from aftershock.model.contexts import PLACEHOLDER, ContextKind, InferredValue
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.context.inferred_values import MAX_CONTEXTS, MAX_ROUNDS
from aftershock.pipeline.review import review_change
from aftershock.render.interface import WrappingRenderer
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import chart_yaml
from gitrepo import commit, make_repo

NEEDS_REGISTRY = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  image: {{ required "missing value for .Values.global.registry" .Values.global.registry }}/app
  domain: {{ .Values.global.platform.domain | quote }}
  level: {{ .Values.level | quote }}
"""

OTHER = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: other
data:
  registry: {{ .Values.global.registry | quote }}
"""


def platform(registry_set_by_other: bool = True) -> dict[str, str]:
    other_ci = "global:\n  registry: registry.example.com\n  platform:\n    domain: example.org\n"
    return {
        "apps/app/Chart.yaml": chart_yaml("app"),
        "apps/app/values.yaml": "level: info\n",
        "apps/app/templates/cm.yaml": NEEDS_REGISTRY,
        "apps/app/ci/test-values.yaml": "extra: 1\n",
        "apps/other/Chart.yaml": chart_yaml("other"),
        "apps/other/values.yaml": "{}\n",
        "apps/other/templates/cm.yaml": OTHER,
        "apps/other/ci/test-values.yaml": other_ci if registry_set_by_other else "level: x\n",
    }


def review(repo, base, renderer):
    return run_review(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)


def test_a_global_another_charts_ci_values_set_is_inferred_and_the_chart_reviewed(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, platform(), "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    # the chart's own defaults, with the platform values they need: ci/ values are a scenario
    assert (context.kind, context.name) == (ContextKind.DEFAULTS, "defaults")
    # one key per error, in the order the template reads them
    assert context.inferred_values == (
        InferredValue("global.registry", "apps/other/ci/test-values.yaml"),
        InferredValue("global.platform.domain", "apps/other/ci/test-values.yaml"),
    )
    assert [a.name for a in context.attempts] == ["defaults", "ci/test-values.yaml"]
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert default.outcome is ChartOutcome.CHANGED
    (change,) = default.changes
    assert [f.path for f in change.fields] == ["data.level"]
    assert default.head_objects[0].body["data"] == {
        "image": "registry.example.com/app",
        "domain": "example.org",
        "level": "debug",
    }


def test_a_map_no_file_sets_stays_not_reviewed_with_the_error(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {
        **platform(registry_set_by_other=False),
        "apps/app/templates/cm.yaml": NEEDS_REGISTRY.replace(
            '{{ required "missing value for .Values.global.registry" .Values.global.registry }}',
            "{{ .Values.global.registry }}",
        ),
    }
    base = commit(repo, files, "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    assert not result.complete
    (context,) = result.contexts
    assert not context.chosen and context.inferred_values == ()
    (gap,) = [g for g in result.not_reviewed if g.part == "chart apps/app"]
    assert "at <.Values.global.registry>: nil pointer evaluating" in gap.reason


def test_a_text_a_required_message_names_and_no_file_sets_is_a_placeholder(tmp_path, renderer):
    """A secret the platform injects from elsewhere: the rest of the template is observed."""
    repo = make_repo(tmp_path)
    files = {**platform(), "apps/app/templates/guarded.yaml": GUARDED}
    base = commit(repo, files, "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    reviewed = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    result = reviewed.review
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    assert context.chosen and InferredValue("token", None) in context.inferred_values
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert not default.partial
    (guarded,) = [o for o in default.head_objects if o.key.name == "guarded"]
    assert guarded.body["data"] == {"key": PLACEHOLDER}
    doc = review_document(result, reviewed.judgement)
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    (token,) = [v for v in doc["contexts"][0]["inferred_values"] if v["key"] == "token"]
    assert token == {
        "key": "token",
        "file": None,
        "value": PLACEHOLDER,
        "evidence": "inferred",
    }
    assert f"inferred token as the placeholder '{PLACEHOLDER}'" in render_markdown(doc)


OWNER_INFO = """\
{{- if (index .Values "helm-chart-url" | regexMatch "^https?://" | not) -}}
  {{- fail ".Values.owner-info.helm-chart-url is missing or not a HTTP(S) URL" -}}
{{- end -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: owner-info
data:
  url: {{ index .Values "helm-chart-url" | quote }}
"""


def test_a_subcharts_key_is_taken_from_the_dependencys_own_ci_values(tmp_path, renderer):
    repo = make_repo(tmp_path)
    deps = "dependencies:\n- name: owner-info\n  version: 0.1.0\n  repository: file://../../common/owner-info\n"
    files = {
        "common/owner-info/Chart.yaml": chart_yaml("owner-info"),
        "common/owner-info/values.yaml": "helm-chart-url: ''\n",
        "common/owner-info/templates/cm.yaml": OWNER_INFO,
        "common/owner-info/ci/test-values.yaml": "helm-chart-url: https://example.org/owner-info\n",
        "apps/app/Chart.yaml": chart_yaml("app", deps=deps),
        "apps/app/values.yaml": "level: info\n",
        "apps/app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"
        "data:\n  level: {{ .Values.level | quote }}\n",
        "apps/app/ci/test-values.yaml": "level: warn\n",
    }
    base = commit(repo, files, "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    (context,) = [c for c in result.contexts if c.chart == "apps/app"]
    assert context.chosen, context.attempts
    assert context.inferred_values == (
        InferredValue("owner-info.helm-chart-url", "common/owner-info/ci/test-values.yaml"),
    )


class Recording(WrappingRenderer):
    """The real renderer, keeping the chart folder of every request."""

    def __init__(self, inner):
        super().__init__(inner)
        self.folders: list[str] = []

    def render_many(self, requests, progress=None, deadline=None):
        self.folders += [r.chart_dir for r in requests]
        return self.inner.render_many(requests, progress, deadline)


def test_a_chart_that_renders_is_not_rendered_again(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = platform()
    files["apps/app/ci/test-values.yaml"] = (
        "global:\n  registry: r.example\n  platform:\n    domain: d.example\n"
    )
    base = commit(repo, files, "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    recording = Recording(renderer)
    result = review(repo, base, recording)
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    assert context.inferred_values == ()
    assert recording.folders and not [f for f in recording.folders if "/inferred-" in f]


def test_inferred_renders_are_bounded(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, platform(), "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    recording = Recording(renderer)
    review(repo, base, recording)
    inferred = [f for f in recording.folders if "/inferred-" in f]
    assert 0 < len(inferred) <= MAX_ROUNDS * MAX_CONTEXTS


SCHEMA = (
    Path(__file__).resolve().parents[2] / "src" / "aftershock" / "schema" / "review.schema.json"
)


def test_the_json_and_markdown_say_which_keys_were_inferred_from_where(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, platform(), "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    doc = review_document(result.review, result.judgement)
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    (entry,) = doc["contexts"]
    assert entry["inferred_values"][0] == {
        "key": "global.registry",
        "file": "apps/other/ci/test-values.yaml",
        "value": None,
        "evidence": "inferred",
    }
    assert "; inferred global.registry from apps/other/ci/test-values.yaml" in render_markdown(doc)


def test_a_chart_with_its_defaults_only_takes_inferred_values_too(tmp_path, renderer):
    # no ci/ values and no suites: its defaults are its only context, and they fail
    files = {k: v for k, v in platform().items() if k != "apps/app/ci/test-values.yaml"}
    repo = make_repo(tmp_path)
    base = commit(repo, files, "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    assert (context.kind, context.name) == (ContextKind.DEFAULTS, "defaults")
    assert [v.key for v in context.inferred_values] == ["global.registry", "global.platform.domain"]
    assert [a.name for a in context.attempts] == ["defaults"]


GUARDED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: guarded
data:
  key: {{ required "set .Values.token" .Values.token | quote }}
"""


LIVE_GUARD = """\
{{- fail "this template needs a live cluster" }}
apiVersion: v1
kind: ConfigMap
metadata: {name: live}
"""


def test_values_inferred_for_some_templates_stay_when_others_render_by_template(tmp_path, renderer):
    # global.registry is found, guarded.yaml fails naming no value: the chart renders with the
    # registry, without guarded.yaml
    files = {**platform(), "apps/app/templates/guarded.yaml": LIVE_GUARD}
    repo = make_repo(tmp_path)
    base = commit(repo, files, "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    reviewed = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    result = reviewed.review
    (context,) = result.contexts
    assert not context.chosen
    assert [v.key for v in context.inferred_values] == ["global.registry", "global.platform.domain"]
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert default.partial and default.outcome is ChartOutcome.CHANGED
    assert [t.template for t in default.templates_not_rendered] == [
        "apps/app/templates/guarded.yaml"
    ]
    assert default.head_objects[0].body["data"]["image"] == "registry.example.com/app"
    markdown = render_markdown(review_document(result, reviewed.judgement))
    assert "rendered with inferred global.registry from apps/other/ci/test-values.yaml" in markdown


MISSPELT = """\
apiVersion: v1
kind: Secret
metadata:
  name: crt
data:
  tls.crt: {{ required ".Values.auth.GRPClientCert missing" .Values.auth.GRPCClientCert | b64enc | quote }}
"""


def test_the_key_a_required_call_reads_is_given_even_when_its_message_misspells_it(
    tmp_path, renderer
):
    _reviewed_with_placeholder(tmp_path, renderer, MISSPELT, "{}", "auth.GRPCClientCert")


def test_a_template_requiring_more_texts_than_rounds_gets_them_all_in_one(tmp_path, renderer):
    keys = [f"k{i}" for i in range(MAX_ROUNDS + 2)]
    data = "".join(
        f'  {k}: {{{{ required "set {k}" .Values.secrets.{k} | quote }}}}\n' for k in keys
    )
    template = f"apiVersion: v1\nkind: Secret\nmetadata: {{name: many}}\nstringData:\n{data}"
    repo = make_repo(tmp_path)
    files = {**platform(), "apps/app/templates/many.yaml": template}
    files["apps/app/values.yaml"] = "level: info\nsecrets: {}\n"
    base = commit(repo, files, "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\nsecrets: {}\n"}, "feat: debug")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    assert {f"secrets.{k}" for k in keys} <= {v.key for v in context.inferred_values}


BINDING = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: platform-admin
subjects:
  - kind: User
    name: platform:{{ .Values.organization }}:{{ .Values.global.cluster }}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
"""


GLOBALS = "organization: sci\nglobal:\n  region: eu\n"  # `global` is a map: .cluster reads as empty


def test_a_value_whose_absence_breaks_a_templates_yaml_is_inferred_from_what_it_reads(
    tmp_path, renderer
):
    """Helm renders, but the output is not YAML (`name: platform:org:` once `global.cluster` is
    empty): which value it lacked no error says, so the template's reads that no values here set
    are looked up, and only those (`organization` has a default)."""
    repo = make_repo(tmp_path)
    files = {
        **platform(),
        "apps/other/ci/test-values.yaml": "global:\n  cluster: eu-de-1\n",
        "apps/app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n"
        "data:\n  level: {{ .Values.level | quote }}\n",
        "apps/app/templates/binding.yaml": BINDING,
        "apps/app/values.yaml": f"level: info\n{GLOBALS}",
    }
    base = commit(repo, files, "feat: apps")
    commit(repo, {"apps/app/values.yaml": f"level: debug\n{GLOBALS}"}, "feat: debug")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    assert context.inferred_values == (
        InferredValue("global.cluster", "apps/other/ci/test-values.yaml"),
    )
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert not default.partial and default.outcome is ChartOutcome.CHANGED
    (binding,) = [o for o in default.head_objects if o.key.kind == "ClusterRoleBinding"]
    assert binding.body["subjects"][0]["name"] == "platform:sci:eu-de-1"


SECRET_PIPED = """\
apiVersion: v1
kind: Secret
metadata:
  name: creds
data:
  user: {{ .Values.auth.user | b64enc }}
  password: {{ .Values.auth.password | b64enc }}
"""


def test_a_secret_piped_into_b64enc_and_set_nowhere_is_a_placeholder(tmp_path, renderer):
    """Go names only the function (`at <b64enc>: invalid value`): the template's line names the key."""
    default = _reviewed_with_placeholder(
        tmp_path, renderer, SECRET_PIPED, "{user: admin}", "auth.password"
    )
    assert [o.key.name for o in default.head_objects if o.key.kind == "Secret"] == ["creds"]


def _reviewed_with_placeholder(tmp_path, renderer, template: str, auth: str, key: str):
    """A chart whose template needs an `auth` text no file sets: reviewed whole, `key` inferred as a
    placeholder; its default scenario's review."""
    repo = make_repo(tmp_path)
    files = {
        **platform(),
        "apps/app/templates/needs.yaml": template,
        "apps/app/values.yaml": f"level: info\nauth: {auth}\n",
    }
    base = commit(repo, files, "feat: apps")
    commit(repo, {"apps/app/values.yaml": f"level: debug\nauth: {auth}\n"}, "feat: debug")
    result = review(repo, base, renderer)
    assert result.complete, result.not_reviewed
    (context,) = result.contexts
    assert InferredValue(key, None) in context.inferred_values
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert not default.partial
    return default


FLAVOR = """\
{{- if not (has "u1.medium" .Values.flavors) }}
{{- fail "flavor u1.medium is not offered here" }}
{{- end }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: flavor
"""


def test_a_dotted_name_in_a_message_that_no_template_reads_is_no_values_key(tmp_path, renderer):
    """`u1.medium` names a looked-up flavor, not a value: no placeholder is invented for it."""
    repo = make_repo(tmp_path)
    files = {**platform(), "apps/app/templates/flavor.yaml": FLAVOR}
    base = commit(repo, files, "feat: apps")
    commit(repo, {"apps/app/values.yaml": "level: debug\n"}, "feat: debug")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer).review
    keys = {v.key for c in result.contexts for v in c.inferred_values}
    assert not any(key.startswith("u1") for key in keys), keys
