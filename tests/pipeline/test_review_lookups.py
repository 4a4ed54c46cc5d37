"""A `lookup` is a narrow edge: a chart is reached through it only by a changed object of the kind
(and, where known, namespace and name) it asks for; real Helm renders against the loopback API server."""

from __future__ import annotations

from aftershock.ingest.charts import discover_charts
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.context import cluster
from aftershock.pipeline.context.cluster import folders_naming_lookup
from blob_counts import CountingReader
from charts import app_chart, chart_yaml
from gitrepo import commit, make_repo

SETTINGS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: platform-config
  namespace: platform-system
data:
  host: {{ .Values.host | quote }}
"""
WATCHER = """\
{{- $cfg := lookup "v1" "ConfigMap" "platform-system" "platform-config" }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: watcher
data:
  host: {{ dig "data" "host" "none" $cfg | quote }}
"""
# The word in a comment, a release-namespace lookup, a library helper nothing includes.
BYSTANDER = """\
# helm lookup works with the deploy task only
{{- /* build a lookup table ordered by kind */ -}}
{{- $own := lookup "v1" "ConfigMap" .Release.Namespace "own" }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: bystander
data:
  own: {{ empty $own | quote }}
"""
LIB_HELPERS = """\
{{- define "lib.services" -}}
{{- range (lookup "v1" "Service" "" "").items }}{{ .metadata.name }} {{ end -}}
{{- end -}}
"""

ANY_KIND = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: anykind
data:
  found: {{ len (lookup .Values.apiVersion .Values.kind "" "").items | quote }}
"""
UNKNOWN_KIND = "looks it up (apps/anykind/templates/cm.yaml; its kind is not known statically)"


def platform_files() -> dict[str, str]:
    return {
        **app_chart("platform", "platform"),
        "platform/values.yaml": "replicas: 2\nimage: nginx:1.27.0\nmode: fast\nhost: db-1\n",
        "platform/templates/settings.yaml": SETTINGS,
        "apps/watcher/Chart.yaml": chart_yaml("watcher"),
        "apps/watcher/templates/cm.yaml": WATCHER,
        "lib/Chart.yaml": chart_yaml("lib", kind="library"),
        "lib/templates/_helpers.tpl": LIB_HELPERS,
        "apps/bystander/Chart.yaml": chart_yaml(
            "bystander",
            deps="dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: file://../../lib\n",
        ),
        "apps/bystander/templates/cm.yaml": BYSTANDER,
        "apps/anykind/Chart.yaml": chart_yaml("anykind"),
        "apps/anykind/values.yaml": "apiVersion: v1\nkind: Secret\n",
        "apps/anykind/templates/cm.yaml": ANY_KIND,
    }


def platform_repo(tmp_path) -> tuple:
    repo = make_repo(tmp_path)
    return repo, commit(repo, platform_files(), "feat: platform")


def reached(repo, base, renderer) -> dict[str, str]:
    review = run_review(
        ReviewRequest(repo=repo, base=base, run_tests=False, namespace="apps"), renderer
    )
    return {a.chart: a.path[-1].relation for a in review.affected if len(a.path) > 2}


def test_a_deployment_change_reaches_only_a_lookup_of_unknown_kind(tmp_path, renderer):
    repo, base = platform_repo(tmp_path)
    commit(
        repo,
        {"platform/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\nhost: db-1\n"},
        "feat: replicas",
    )
    assert reached(repo, base, renderer) == {"apps/anykind": UNKNOWN_KIND}


def test_a_chart_whose_written_calls_ask_for_nothing_changed_is_not_parsed_whole(
    tmp_path, renderer, monkeypatch
):
    """Reachability needs every file's includes, but only when some call written in the chart's
    files asks for a changed object: otherwise only the files naming `lookup` are parsed."""
    repo = make_repo(tmp_path)
    other = "apps/watcher/templates/other.yaml"
    base = commit(repo, {**platform_files(), other: '{{ include "lib.services" . }}\n'}, "feat")
    commit(
        repo,
        {"platform/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\nhost: db-1\n"},
        "feat: replicas",
    )
    parsed: list[str] = []
    real = cluster.parse_template

    def counting(path: str, text: str):  # the real parser, counting what it is asked for
        parsed.append(path)
        return real(path, text)

    monkeypatch.setattr(cluster, "parse_template", counting)
    assert reached(repo, base, renderer) == {"apps/anykind": UNKNOWN_KIND}
    assert "apps/watcher/templates/cm.yaml" in parsed  # its call asks for a ConfigMap: not changed
    assert other not in parsed


def test_a_change_to_the_looked_up_configmap_reaches_its_chart_only(tmp_path, renderer):
    repo, base = platform_repo(tmp_path)
    commit(
        repo,
        {"platform/values.yaml": "replicas: 2\nimage: nginx:1.27.0\nmode: fast\nhost: db-2\n"},
        "feat: host",
    )
    assert reached(repo, base, renderer) == {
        "apps/watcher": "looks it up (apps/watcher/templates/cm.yaml)",
        "apps/anykind": UNKNOWN_KIND,
    }


def test_the_lookup_scan_reads_each_template_blob_once_over_both_refs(tmp_path):
    """Which charts' templates name `lookup`, before any is parsed: the base ref reads every template
    once, the head ref only the one file the commit changed; a library's folder counts."""
    repo, base = platform_repo(tmp_path)
    head = commit(repo, {"apps/watcher/templates/extra.yaml": "kind: ConfigMap\n"}, "feat: extra")
    git = GitRepository.open(repo)
    known: dict[str, bool] = {}
    found, asked = [], []
    with CountingReader(git) as reader:
        for sha in (base, head):
            with RefSnapshot.open(git, sha, sha, 1 << 20, reader) as tree:
                folders = {c.path for c in discover_charts(tree, sha)}
                reader.asked = 0
                found.append(folders_naming_lookup(tree, folders, known))
                asked.append(reader.asked)
    templates = [p for p in platform_files() if "/templates/" in p]
    assert asked == [len(templates), 1]  # every template once; then only the commit's new file
    assert found[0] == found[1] == {"apps/watcher", "lib", "apps/bystander", "apps/anykind"}


def test_a_change_only_a_probe_shows_reaches_no_lookup(tmp_path, renderer):
    """The change writes a guard on a key the chart does not document: a made-up value opens it and
    the looked-up ConfigMap changes there, but no cluster holds that value, so no chart that looks
    the ConfigMap up is reached (sapcc's nova reached seven charts so)."""
    repo, base = platform_repo(tmp_path)
    guarded = (
        SETTINGS
        + '  {{- if hasKey .Values "region" }}\n  region: {{ .Values.region }}\n  {{- end }}\n'
    )
    commit(repo, {"platform/templates/settings.yaml": guarded}, "feat: region")
    review = run_review(
        ReviewRequest(repo=repo, base=base, run_tests=False, namespace="apps"), renderer
    )
    probe = next(r for r in review.chart_reviews if r.scenario == "guard:region=aftershock")
    assert probe.outcome.value == "changed" and probe.probe
    assert [c.key.name for c in probe.changes] == ["platform-config"]
    assert {a.chart for a in review.affected} == {"platform"}
