"""Many objects changing the same way, each with its own name (a chart bump relabelling every release's
Deployment with its release's name), are said once: one repeated field change per field, no entry per
object, one plain diff naming the others, one concern; a values change said alike of many releases is
one line. The comment's budget keeps the whole plain-diff blocks that fit when the section does not."""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.budget import Section, compose
from aftershock.report.comment.markdown import render_markdown
from aftershock.report.comment.plain_diffs import plain_diffs
from aftershock.report.overview import field_groups
from aftershock.report.shown import values_lines
from charts import chart_yaml
from gitrepo import commit, make_repo

TEMPLATES = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels: {app.kubernetes.io/LABEL: {{ .Release.Name }}}
spec:
  selector:
    matchLabels: {app.kubernetes.io/LABEL: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app.kubernetes.io/LABEL: {{ .Release.Name }}}
    spec:
      containers: [{name: app, image: "nginx:1.27.0@sha256:%s"}]
""" % ("0" * 64)

RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {{name: {name}, namespace: apps}}
spec:
  chart:
    spec: {{chart: ./charts/app, sourceRef: {{kind: GitRepository, name: flux-system}}}}
  values: {{port: 80}}
"""

NAMES = ("atuin", "bazarr", "plex", "zigbee")


def _reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {
        "charts/app/Chart.yaml": chart_yaml("app"),
        "charts/app/templates/deployment.yaml": TEMPLATES.replace("LABEL", "component"),
        **{f"clusters/prod/{n}.yaml": RELEASE.format(name=n) for n in NAMES},
    }
    base = commit(repo, files, "feat: apps")
    head = commit(
        repo,
        {"charts/app/templates/deployment.yaml": TEMPLATES.replace("LABEL", "controller")},
        "feat!: label by controller",
    )
    result = review_change(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False), renderer
    )
    return review_document(result.review, result.judgement)


def test_objects_changing_alike_but_for_their_names_are_said_once(tmp_path, renderer):
    doc = _reviewed(tmp_path, renderer)
    deployments = [o for o in doc["objects"] if o["key"]["kind"] == "Deployment"]
    assert sorted(o["key"]["name"] for o in deployments) == list(NAMES)
    text = render_markdown(doc)
    groups = text[text.index("### Repeated field changes") :]
    assert (
        '`spec.selector.matchLabels["app.kubernetes.io/controller"]` added the object\'s name on '
        "4 objects in 4 chart install(s)"
    ) in groups
    assert "### Rendered objects" not in text  # every object said whole by the repeated changes
    assert "4 Deployment.apps objects, each: the change edits spec.selector" in text
    _, (block,) = plain_diffs(doc)  # the short comment leaves it to the JSON: one block
    assert block.startswith(
        "<details><summary>changed <code>Deployment.apps apps/atuin</code> and 3 more alike but "
        "for their names (apps/bazarr, apps/plex, apps/zigbee)</summary>"
    )
    assert "-    app.kubernetes.io/component: atuin" in block


def test_a_values_change_said_alike_of_many_files_is_one_line():
    def change(file: str) -> dict:
        return {"file": file, "path": "port", "change": "changed", "description": "port 80 → 81"}

    doc = {
        "values_changes": [change(f"release HelmRelease.x apps/{n}") for n in NAMES]
        + [{**change("release HelmRelease.x apps/web"), "description": "port 80 → 82"}]
    }
    assert values_lines(doc) == [
        (
            "release HelmRelease.x apps/atuin and 3 more (apps/bazarr, apps/plex, apps/zigbee)",
            "port 80 → 81",
        ),
        ("release HelmRelease.x apps/web", "port 80 → 82"),
    ]


def test_a_section_of_whole_blocks_keeps_those_that_fit():
    """A plain diff's blocks are each one line of its section: cut, it keeps the first blocks whole,
    not nothing."""
    block = "<details><summary>changed</summary>\n\n```diff\n-a\n+b\n```\n\n</details>"
    diffs = Section("Plain diff", ("### Plain diff", ""), (block,) * 50, priority=3)
    text = compose([Section("Verdict", ("### Verdict", ""), ("x",)), diffs], 1_000)
    assert 0 < text.count("<summary>changed</summary>") < 50
    assert "more line(s) of this section are in the JSON output" in text
    assert text.count("<details>") == text.count("</details>") and text.count("```") % 2 == 0


def _object(name: str, diff: str) -> dict:
    key = {"group": "apps", "kind": "Deployment", "namespace": "apps", "name": name}
    return {
        "id": f"charts/app@r/{name}::d",
        "review": f"charts/app@helm.toolkit.fluxcd.io/HelmRelease/apps/{name}",
        "identity": f"{name}::d",
        "change": "changed",
        "key": {**key, "id": f"apps/Deployment/apps/{name}"},
        "previous_key": None,
        "display": f"Deployment.apps apps/{name}",
        "scenario": "default",
        "rendered_in": ["default"],
        "same_in": [],
        "templates": ["charts/app/templates/deployment.yaml"],
        "fields": [{"path": "spec.replicas", "change": "modified", "before": 1, "after": 2}],
        "diff": diff,
    }


def test_diffs_that_differ_in_more_than_names_stay_apart():
    def diff(name: str, replicas: int) -> str:
        return f"@@ -1,2 +1,2 @@\n   name: {name}\n-  replicas: 1\n+  replicas: {replicas}"

    doc = {"objects": [_object("web", diff("web", 2)), _object("api", diff("api", 2))]}
    doc["objects"].append(_object("db", diff("db", 3)))
    _, blocks = plain_diffs(doc)
    assert [b.split("</summary>")[0] for b in blocks] == [
        "<details><summary>changed <code>Deployment.apps apps/web</code> and 1 more alike but "
        "for their names (apps/api)",
        "<details><summary>changed <code>Deployment.apps apps/db</code>",
    ]


def test_a_value_that_is_each_release_s_name_groups_but_another_value_does_not():
    def labelled(name: str, value: str) -> dict:
        obj = _object(f"{name}-podinfo", "")
        field = {"path": "metadata.labels.instance", "change": "added", "before": None}
        return {
            **obj,
            "review": f"charts/app@helm.toolkit.fluxcd.io/HelmRelease/apps/{name}",
            "fields": [{**field, "after": value}],
        }

    doc = {"objects": [labelled(n, n) for n in ("web", "api", "db")] + [labelled("x", "web")]}
    (group,) = field_groups(doc)
    assert (group.path, group.text, len(group.objects)) == (
        "metadata.labels.instance",
        "added its release's name",
        3,
    )


def test_objects_of_one_diff_are_said_to_share_it():
    same = "@@ -1 +1 @@\n-  tag: 4.0.1\n+  tag: 4.1.0"
    doc = {"objects": [_object(n, same) for n in ("web", "api", "db")]}
    _, (block,) = plain_diffs(doc)
    assert "and 2 more with the same diff (apps/api, apps/db)" in block


def test_a_repeated_change_on_objects_with_no_name_of_their_own_is_said_plainly():
    """No release and an empty name (a manifest Kubernetes would reject): nothing to name, values said."""

    def nameless(n: int) -> dict:
        obj = _object(f"o{n}", "")
        return {**obj, "review": "charts/app", "key": {**obj["key"], "name": ""}}

    doc = {"objects": [nameless(n) for n in range(3)]}
    (group,) = field_groups(doc)
    assert (group.path, group.text) == ("spec.replicas", "1 → 2")
