"""End-to-end reviews of real git repositories with real Helm rendering (the embedded SDK)."""

from __future__ import annotations

import io
import json

from aftershock.model.review import ChartOutcome, RenderStatus
from aftershock.pipeline import ReviewRequest, review_change, run_review
from aftershock.report.canonical import review_document
from aftershock.report.formats import OutputFormat, write_report
from aftershock.report.sarif import sarif_document
from charts import app_chart, chart_yaml
from gitrepo import Symlink, commit, make_repo

LIBRARY = {
    "lib/common/Chart.yaml": chart_yaml("common", kind="library"),
    "lib/common/templates/_labels.tpl": '{{- define "common.labels" -}}\ntier: web\n{{- end -}}\n',
}


def lib_user(prefix: str, name: str, *, via_symlink: bool) -> dict:
    files = {
        f"{prefix}/Chart.yaml": chart_yaml(
            name,
            deps="dependencies:\n- name: common\n  version: 0.1.0\n  repository: file://../../lib/common\n",
        ),
        f"{prefix}/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-"
        + name
        + '\n  labels:\n    {{- include "common.labels" . | nindent 4 }}\ndata: {a: b}\n',
    }
    if via_symlink:
        files[f"{prefix}/charts/common"] = Symlink("../../../lib/common")
    return files


def review(repo, base, head="HEAD", renderer=None, **options):
    return run_review(ReviewRequest(repo=repo, base=base, head=head, **options), renderer)


def test_default_change_is_observed_down_to_the_field(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo, {**app_chart("charts/web", "web"), **app_chart("charts/api", "api")}, "feat: charts"
    )
    commit(
        repo,
        {"charts/web/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "feat: three replicas",
    )
    result = review(repo, base, renderer=renderer)
    assert [r.chart for r in result.chart_reviews] == [
        "charts/web"
    ]  # the untouched chart is not rendered
    (chart,) = result.chart_reviews
    assert chart.outcome is ChartOutcome.CHANGED
    (change,) = chart.changes
    assert (change.key.kind, change.key.name, change.key.namespace) == (
        "Deployment",
        "release-web",
        "default",
    )
    assert [(f.path, f.before, f.after) for f in change.fields] == [("spec.replicas", 2, 3)]
    assert change.templates == ("charts/web/templates/deployment.yaml",)
    assert [(v.path, v.before, v.after) for v in result.values_changes] == [("replicas", 2, 3)]
    assert [s.id for s in chart.affected.path] == ["charts/web/values.yaml", "charts/web"]


def test_library_change_reaches_every_including_chart(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {
        **LIBRARY,
        **lib_user("apps/a", "a", via_symlink=True),
        **lib_user("apps/b", "b", via_symlink=False),
    }
    base = commit(repo, files, "feat: charts")
    commit(
        repo,
        {
            "lib/common/templates/_labels.tpl": '{{- define "common.labels" -}}\ntier: backend\n{{- end -}}\n'
        },
        "feat: tier",
    )
    result = review(repo, base, renderer=renderer)
    assert [r.chart for r in result.chart_reviews] == ["apps/a", "apps/b"]
    for chart in result.chart_reviews:
        (change,) = chart.changes
        assert [(f.path, f.before, f.after) for f in change.fields] == [
            ("metadata.labels.tier", "web", "backend")
        ]
        assert [s.id for s in chart.affected.path] == [
            "lib/common/templates/_labels.tpl",
            "lib/common",
            chart.chart,
        ]
    (unit,) = dict(result.units)["lib/common/templates/_labels.tpl"]
    assert unit.defines == ("common.labels",)


def test_pure_refactor_renders_identically(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("c", "c"), "feat: chart")
    text = app_chart("c", "c")["c/templates/deployment.yaml"].replace(
        "{{ .Values.replicas }}", "{{ .Values.replicas | int }}"
    )
    commit(
        repo,
        {
            "c/templates/deployment.yaml": text,
            "c/templates/_h.tpl": '{{- define "c.unused" -}}{{- end -}}\n',
        },
        "refactor: int",
    )
    (chart,) = review(repo, base, renderer=renderer).chart_reviews
    assert chart.outcome is ChartOutcome.UNCHANGED and chart.changes == ()


def test_template_error_is_not_reviewed_never_all_removed(tmp_path, renderer):
    """A template the change breaks is left out at both refs: the rest is diffed, nothing removed."""
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("c", "c"), "feat: chart")
    commit(repo, {"c/templates/boom.yaml": '{{ fail "replicas must be odd" }}\n'}, "feat: boom")
    result = review(repo, base, renderer=renderer)
    (chart,) = result.chart_reviews
    assert chart.outcome is ChartOutcome.UNCHANGED and chart.changes == () and chart.partial
    (failure,) = chart.templates_not_rendered
    assert failure.template == "c/templates/boom.yaml" and failure.base_error is None
    assert "replicas must be odd" in (failure.head_error or "")
    (gap,) = result.not_reviewed
    assert gap.part == "template c/templates/boom.yaml of chart c" and gap.side.value == "head"
    assert review_document(result)["status"] == "partial"


def test_a_head_failing_as_a_whole_is_not_reviewed_never_all_removed(tmp_path, renderer):
    """A failure that names no template (the values schema the change adds) fails the whole chart
    at head: not reviewed there, and none of its objects shows as removed."""
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("c", "c"), "feat: chart")
    schema = '{"type": "object", "required": ["region"]}\n'
    commit(repo, {"c/values.schema.json": schema}, "feat: schema")
    result = review(repo, base, renderer=renderer)
    (chart,) = result.chart_reviews
    assert chart.outcome is ChartOutcome.NOT_REVIEWED and chart.changes == ()
    assert chart.head.status is RenderStatus.FAILED and "region" in (chart.head.error or "")
    assert chart.base.status is RenderStatus.OK
    (gap,) = result.not_reviewed
    assert gap.part == "chart c" and gap.side.value == "head" and "region" in gap.reason
    assert review_document(result)["status"] == "partial"


def test_randomness_is_not_a_change(tmp_path, renderer):
    repo = make_repo(tmp_path)
    secret = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tok\ndata:\n  token: {{ randAlphaNum 16 | quote }}\n  mode: {{ .Values.mode | quote }}\n"
    base = commit(repo, {**app_chart("c", "c"), "c/templates/tok.yaml": secret}, "feat: chart")
    commit(repo, {"c/values.yaml": "replicas: 2\nimage: nginx:1.27.0\nmode: slow\n"}, "feat: slow")
    (chart,) = review(repo, base, renderer=renderer).chart_reviews
    fields = sorted(f.path for c in chart.changes for f in c.fields)
    assert fields == ["data.mode", "spec.template.spec.containers[name=app].env[name=MODE].value"]
    assert chart.unstable_fields >= 1


REGIONS = "".join(f"  r{n}: 10.0.0.{n}\n" for n in range(24))  # two renders list them apart


def _with_listing(repo, template: str, values: str, edited: str) -> str:
    """Chart c with `template` listing REGIONS in Go's map order, then a commit editing its values
    to `edited`; returns the base commit."""
    files = {**app_chart("c", "c"), "c/templates/listing.yaml": template, "c/values.yaml": values}
    base = commit(repo, files, "feat: chart")
    commit(repo, {"c/values.yaml": edited}, "feat: edit")
    return base


def test_a_map_listed_in_go_s_order_is_not_a_change(tmp_path, renderer):
    """sprig's `values` lists a dict in Go's map order, which differs render to render."""
    repo = make_repo(tmp_path)
    listing = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ips\ndata:\n"
        '  ips: {{ values .Values.regions | join "," | quote }}\n  mode: {{ .Values.mode | quote }}\n'
    )
    values = f"replicas: 2\nimage: nginx:1.27.0\nmode: fast\nregions:\n{REGIONS}"
    base = _with_listing(repo, listing, values, values.replace("mode: fast", "mode: slow"))
    (chart,) = review(repo, base, renderer=renderer).chart_reviews
    fields = sorted(f.path for c in chart.changes for f in c.fields)
    assert fields == ["data.mode", "spec.template.spec.containers[name=app].env[name=MODE].value"]


def test_a_small_map_listed_in_go_s_order_is_not_a_change_when_two_renders_agree(
    tmp_path, renderer
):
    """Two renders of one input list a two-entry map alike half the time, so they cannot tell what
    varies: base and head differing only in the order of a field's pieces is no change either. The
    order here is the values' own, so both renders of each side always agree."""
    repo = make_repo(tmp_path)
    listing = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ips\ndata:\n"
        "  ips: {{ .Values.ips | quote }}\n  mode: {{ .Values.mode | quote }}\n"
        "  {{- $regions := values .Values.regions }}\n"
    )
    values = "replicas: 2\nimage: nginx:1.27.0\nmode: fast\nips: 10.0.0.1,10.0.0.2\nregions: {}\n"
    files = {**app_chart("c", "c"), "c/templates/ips.yaml": listing, "c/values.yaml": values}
    base = commit(repo, files, "feat: chart")
    head = values.replace("fast", "slow").replace("10.0.0.1,10.0.0.2", "10.0.0.2,10.0.0.1")
    commit(repo, {"c/values.yaml": head}, "feat: slow")
    (chart,) = review(repo, base, renderer=renderer).chart_reviews
    fields = sorted(f.path for c in chart.changes for f in c.fields)
    assert fields == ["data.mode", "spec.template.spec.containers[name=app].env[name=MODE].value"]
    assert chart.unstable_fields == 1


def test_an_edit_to_a_script_that_lists_a_map_in_go_s_order_shows_and_the_order_does_not(
    tmp_path, renderer
):
    """sapcc's percona_cluster: the startup script joins a map's values in Go's random order, so
    the two renders of each side differ in that line. The edit to another line of the script shows,
    review after review, and the listing's order never does."""
    repo = make_repo(tmp_path)
    script = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: start\ndata:\n  entrypoint.sh: |\n"
        "    #!/bin/sh\n    REGIONS='{{ values .Values.regions | join \" \" }}'\n"
        "    OPTS='{{ .Values.opts }}'\n    exec mysqld\n"
    )
    values = f"replicas: 2\nimage: nginx:1.27.0\nopts: gcache=1G\nregions:\n{REGIONS}"
    base = _with_listing(repo, script, values, values.replace("gcache=1G", "gcache=2G"))
    for _ in range(2):
        (chart,) = review(repo, base, renderer=renderer).chart_reviews
        (change,) = chart.changes
        (field,) = change.fields
        assert field.path == 'data["entrypoint.sh"]'
        assert "OPTS='gcache=2G'" in field.after and "OPTS='gcache=1G'" in field.before
        assert "10.0.0." not in field.before + field.after


def test_a_random_name_is_one_object_and_the_same_findings_run_after_run(tmp_path, renderer):
    repo = make_repo(tmp_path)
    job = (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: cfg-{{ randAlphaNum 8 | lower }}\n"
        "spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n"
        "      - {name: cfg, image: 'busybox:{{ .Values.mode }}', command: [sh]}\n"
    )
    base = commit(repo, {**app_chart("c", "c"), "c/templates/job.yaml": job}, "feat: chart")
    commit(repo, {"c/values.yaml": "replicas: 2\nimage: nginx:1.27.0\nmode: slow\n"}, "feat: slow")
    runs = [
        review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
        for _ in range(2)
    ]
    (chart,) = runs[0].review.chart_reviews
    (changed,) = [c for c in chart.changes if c.key.kind == "Job"]
    assert (changed.kind.value, changed.key.name) == ("changed", "cfg-<random>")
    first, second = ({f.fingerprint for f in run.judgement.findings} for run in runs)
    assert first == second and any("cfg-<random>" in f.message for f in runs[0].judgement.findings)


def test_unvendored_remote_dependency_is_not_reviewed_the_chart_itself_is(tmp_path, renderer):
    repo = make_repo(tmp_path)
    deps = "dependencies:\n- name: redis\n  version: 1.0.0\n  repository: oci://registry.example.invalid/charts\n"
    base = commit(
        repo, {**app_chart("c", "c"), "c/Chart.yaml": chart_yaml("c", deps=deps)}, "feat: chart"
    )
    commit(repo, {"c/values.yaml": "replicas: 1\nimage: x\nmode: a\n"}, "feat: one")
    result = review(repo, base, renderer=renderer)
    (chart,) = result.chart_reviews
    assert chart.outcome is ChartOutcome.CHANGED and chart.partial  # its own Deployment
    (gap,) = result.not_reviewed  # the same reason at both refs is said once, for both
    assert gap.part == "dependency redis 1.0.0 of chart c"
    assert gap.side is None and "never downloads" in gap.reason


def test_secret_values_never_appear_in_any_format(tmp_path, renderer):
    repo = make_repo(tmp_path)
    template = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: {{ .Values.password | b64enc | quote }}\nstringData:\n  token: {{ .Values.apiToken | quote }}\n"
    base = commit(
        repo,
        {
            **app_chart("c", "c"),
            "c/templates/secret.yaml": template,
            "c/values.yaml": "replicas: 1\nimage: x\nmode: a\npassword: zq9-pw-old\napiToken: tok-old-123\n",
        },
        "feat: chart",
    )
    commit(
        repo,
        {
            "c/values.yaml": "replicas: 1\nimage: x\nmode: a\npassword: zq9-pw-new\napiToken: tok-new-456\n"
        },
        "fix: rotate",
    )
    result = review_change(ReviewRequest(repo=repo, base=base), renderer)
    doc = review_document(result.review, result.judgement)
    sarif = sarif_document(result.review, result.judgement.findings)
    (obj,) = doc["objects"]
    assert {f["path"]: f["after"] for f in obj["fields"]} == {
        "data.password": {"redacted": True, "bytes": 10},
        "stringData.token": {"redacted": True, "bytes": 11},
    }
    for fmt in OutputFormat:
        stream = io.StringIO()
        write_report(doc, fmt, stream, color=False, sarif=sarif)
        text = stream.getvalue()
        for plain in ("zq9-pw", "tok-old", "tok-new", "enE5LXB3"):
            assert plain not in text, (fmt, plain)
    assert "redacted" in json.dumps(doc)
