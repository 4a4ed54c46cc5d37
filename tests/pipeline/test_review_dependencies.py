"""Dependencies of a chart on charts of the same repository: by URL (inferred by name and version, or
mapped in .aftershock.yaml), vendored archives first; and `file://` paths that lead nowhere."""

from __future__ import annotations

from aftershock.ingest import dependency_history
from aftershock.ingest.charts import discover_charts
from aftershock.ingest.repository.blobs import BlobReader
from aftershock.ingest.repository.git import GitRepository
from aftershock.model.review import ChartOutcome
from aftershock.model.units import DependencySource
from aftershock.pipeline import ReviewRequest, review_change, run_review
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import chart_yaml
from gitrepo import commit, make_repo
from memtree import MemoryTree as MemTree

LIBRARY = {
    "charts/lib/Chart.yaml": "apiVersion: v2\nname: lib\nversion: 2.1.0\ntype: library\n",
    "charts/lib/templates/_cm.tpl": '{{- define "lib.cm" -}}\napiVersion: v1\nkind: ConfigMap\n'
    "metadata: {name: {{ .Release.Name }}}\ndata: {mode: {{ .Values.mode | quote }}}\n{{- end -}}\n",
}


def _app(version: str, repository: str = "https://charts.example.invalid") -> dict[str, str]:
    deps = f'dependencies:\n- name: lib\n  version: "{version}"\n  repository: {repository}\n'
    return {
        "apps/web/Chart.yaml": chart_yaml("web", deps=deps),
        "apps/web/values.yaml": "mode: fast\n",
        "apps/web/templates/cm.yaml": '{{ include "lib.cm" . }}\n',
    }


def test_a_url_dependency_matching_a_chart_here_renders_it_and_says_inferred(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**LIBRARY, **_app("^2.0.0")}, "feat: web")
    head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    assert result.not_reviewed == ()
    (chart,) = result.chart_reviews
    assert [f.path for c in chart.changes for f in c.fields] == ["data.mode"]
    document = review_document(result)
    (web,) = [c for c in document["charts"] if c["path"] == "apps/web"]
    assert [(d["source"], d["resolved_path"]) for d in web["dependencies"]] == [
        ("in_repo_inferred", "charts/lib")
    ]
    assert "`apps/web` uses `charts/lib` for `lib` ^2.0.0" in render_markdown(document)


def test_a_version_out_of_range_is_not_reviewed_and_names_the_chart_here(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {**LIBRARY, **_app(">=3.0.0 <4.0.0", "oci://registry.example.invalid/charts")},
        "feat: web",
    )
    head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    assert result.chart_reviews[0].outcome is ChartOutcome.NOT_REVIEWED
    assert all(
        "lib >=3.0.0 <4.0.0 is wanted, this repository's charts/lib is 2.1.0" in g.reason
        for g in result.not_reviewed
    )


def test_the_configuration_maps_a_dependency_to_a_folder_observed():
    tree = MemTree({**LIBRARY, **_app("9.9.9")})
    (web,) = [
        c for c in discover_charts(tree, "head", {"lib": "charts/lib"}) if c.path == "apps/web"
    ]
    assert [(d.source, d.resolved_path) for d in web.dependencies] == [
        (DependencySource.IN_REPO_CONFIGURED, "charts/lib")
    ]
    keyed = {"https://charts.example.invalid/lib": "charts/lib"}
    (web,) = [c for c in discover_charts(tree, "head", keyed) if c.path == "apps/web"]
    assert web.dependencies[0].source is DependencySource.IN_REPO_CONFIGURED
    (web,) = [c for c in discover_charts(tree, "head") if c.path == "apps/web"]
    assert (
        web.dependencies[0].source is DependencySource.REMOTE
    )  # 9.9.9 is not this repository's 2.1.0


def test_a_vendored_archive_still_wins_as_in_helm():
    tree = MemTree({**LIBRARY, **_app("^2.0.0"), "apps/web/charts/lib-2.0.0.tgz": "binary"})
    (web,) = [c for c in discover_charts(tree, "head") if c.path == "apps/web"]
    assert web.dependencies[0].source is DependencySource.ARCHIVE


def test_a_file_dependency_that_is_missing_or_outside_is_not_reviewed_the_rest_is(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    for repository in ("file://../gone", "file://../../../outside"):
        deps = f"dependencies:\n- name: lib\n  version: 1.0.0\n  repository: {repository}\n"
        files = {
            "apps/web/Chart.yaml": chart_yaml("web", deps=deps),
            "apps/web/values.yaml": "mode: fast\n",
            "apps/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"
            "data: {mode: {{ .Values.mode | quote }}}\n",
        }
        base = commit(repo, files, f"feat: web {repository}")
        head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
        result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
        (review,) = result.chart_reviews
        assert review.outcome is ChartOutcome.CHANGED, repository  # its own template renders
        assert [f.path for c in review.changes for f in c.fields] == ["data.mode"]
        assert review.partial and not review.every_template
        assert [d.route for d in review.dependencies_not_rendered] == ["web/charts/lib"]
        (gap,) = result.not_reviewed  # the same reason at both refs, said once
        assert gap.part == "dependency lib 1.0.0 of chart apps/web" and gap.side is None
        assert f"its path {repository} names a folder that is missing" in gap.reason
        commit(repo, {"apps/web/values.yaml": "mode: fast\n"}, "chore: reset")


def test_a_version_this_repository_held_earlier_renders_that_commits_chart(tmp_path, renderer):
    repo = make_repo(tmp_path)
    commit(
        repo,
        {
            **LIBRARY,
            "charts/lib/Chart.yaml": LIBRARY["charts/lib/Chart.yaml"].replace("2.1.0", "1.0.0"),
        },
        "feat: lib 1.0.0",
    )
    commit(
        repo,
        {
            "charts/lib/Chart.yaml": LIBRARY["charts/lib/Chart.yaml"],
            "charts/lib/templates/_cm.tpl": LIBRARY["charts/lib/templates/_cm.tpl"].replace(
                "mode:", "lib2mode:"
            ),
        },
        "feat!: lib 2.1.0 renames the key",
    )
    base = commit(repo, _app("1.0.0"), "feat: web on lib 1.0.0")
    head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    assert result.not_reviewed == ()
    (chart,) = result.chart_reviews
    assert [f.path for c in chart.changes for f in c.fields] == [
        "data.mode"
    ]  # lib 1.0.0's key, not 2.1.0's
    (web,) = [c for c in result.charts if c.path == "apps/web"]
    assert web.dependencies[0].source is DependencySource.IN_REPO_INFERRED
    assert web.dependencies[0].resolved_path.startswith(".aftershock-history/")


def _locked(version: str, repository: str = "https://charts.example.invalid") -> dict[str, str]:
    """The app depending on any lib (`>= 0.0.0`), its Chart.lock pinning `version`."""
    lock = f"dependencies:\n- name: lib\n  repository: {repository}\n  version: {version}\ndigest: sha256:0\n"
    return {**_app(">= 0.0.0", repository), "apps/web/Chart.lock": lock}


def test_the_version_chart_lock_pins_is_rendered_not_the_newest_chart_here(tmp_path, renderer):
    repo = make_repo(tmp_path)
    older = {
        **LIBRARY,
        "charts/lib/Chart.yaml": LIBRARY["charts/lib/Chart.yaml"].replace("2.1.0", "2.0.0"),
    }
    commit(repo, older, "feat: lib 2.0.0")
    renamed = LIBRARY["charts/lib/templates/_cm.tpl"].replace("mode:", "lib21mode:")
    commit(
        repo,
        {**LIBRARY, "charts/lib/templates/_cm.tpl": renamed},
        "feat!: lib 2.1.0 renames the key",
    )
    base = commit(repo, _locked("2.0.0"), "feat: web locked on lib 2.0.0")
    head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
    result, web = _renders_the_earlier_lib(repo, base, head, renderer)  # 2.0.0's key
    (dep,) = web.dependencies
    assert dep.source is DependencySource.IN_REPO_LOCKED and dep.locked == "2.0.0"
    (documented,) = [c for c in review_document(result)["charts"] if c["path"] == "apps/web"]
    assert documented["dependencies"][0]["locked_version"] == "2.0.0"
    assert documented["dependencies"][0]["source"] == "in_repo_locked"


def test_a_locked_version_many_bumps_back_is_found(tmp_path, renderer):
    repo = make_repo(tmp_path)
    commit(repo, {**LIBRARY, **_locked("2.1.0")}, "feat: web locked on lib 2.1.0")
    renamed = LIBRARY["charts/lib/templates/_cm.tpl"].replace("mode:", "newmode:")
    commit(repo, {"charts/lib/templates/_cm.tpl": renamed}, "feat!: lib renames the key")
    for patch in range(2, 6):
        chart = LIBRARY["charts/lib/Chart.yaml"].replace("2.1.0", f"2.1.{patch}")
        base = commit(repo, {"charts/lib/Chart.yaml": chart}, f"lib 2.1.{patch}")
    head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
    _renders_the_earlier_lib(repo, base, head, renderer)  # 2.1.0's key


class _CountingReader(BlobReader):
    """A real blob reader that counts the blobs it is asked for."""

    def __init__(self, repo):
        super().__init__(repo)
        self.asked = 0

    def read(self, sha):
        self.asked += 1
        return super().read(sha)


def test_the_history_walk_ends_at_the_version_it_looks_for(tmp_path):
    """lib bumped eight times; web pins the version one bump back: one Chart.yaml is read, not nine."""
    repo = make_repo(tmp_path)
    commit(repo, {**LIBRARY, **_locked("2.1.7")}, "feat: web")
    for patch in range(1, 9):
        chart = LIBRARY["charts/lib/Chart.yaml"].replace("2.1.0", f"2.1.{patch}")
        head = commit(repo, {"charts/lib/Chart.yaml": chart}, f"lib 2.1.{patch}")
    git = GitRepository.open(repo)
    tree = MemTree({**LIBRARY, **_locked("2.1.7")})
    tree_charts = discover_charts(tree, "head")
    with _CountingReader(git) as reader:
        (web,) = [
            c
            for c in dependency_history.resolve_from_history(git, head, tree_charts, reader)
            if c.path == "apps/web"
        ]
        assert web.dependencies[0].source is DependencySource.IN_REPO_LOCKED
        assert reader.asked == 2  # 2.1.8, then 2.1.7: found, the walk ends
    with _CountingReader(git) as reader:
        untouched = dependency_history.resolve_from_history(
            git, head, tree_charts, reader, needed_by={"charts/lib"}
        )
        assert untouched == tree_charts and reader.asked == 0  # web is not rendered: not asked


class _CountingGit(GitRepository):
    """A real repository that counts the history walks (`git log`) it runs."""

    walks = 0

    def stream_lines(self, *args):
        self.walks += args[0] == "log"
        return super().stream_lines(*args)


def _lib(version: str) -> dict[str, str]:
    return {"charts/lib/Chart.yaml": LIBRARY["charts/lib/Chart.yaml"].replace("2.1.0", version)}


def test_base_and_head_on_one_line_share_one_history_walk(tmp_path):
    """base pins 2.1.1 and 2.1.3, head 2.1.3 too; 2.1.3 comes after base, so base does not find it
    (a walk that did not skip head's own commits would); one walk answers as two would."""
    repo = make_repo(tmp_path)
    commit(repo, {**LIBRARY, **_locked("2.1.1")}, "feat: web")
    commit(repo, _lib("2.1.1"), "lib 2.1.1")
    base = commit(repo, _lib("2.1.2"), "lib 2.1.2")
    commit(repo, _lib("2.1.3"), "lib 2.1.3")
    head = commit(repo, {**_lib("2.1.4"), **_locked("2.1.3")}, "lib 2.1.4, web on 2.1.3")
    git = _CountingGit.open(repo)
    sides = tuple(
        discover_charts(MemTree({**LIBRARY, **_lib(v), **_locked(pin)}), label)
        for v, pin, label in (("2.1.2", "2.1.1", "base"), ("2.1.4", "2.1.3", "head"))
    )
    with BlobReader(git) as reader:
        shared = dependency_history.resolve_sides_from_history(
            git, (base, head), sides, reader, {"apps/web"}
        )
        assert git.walks == 1
        apart = tuple(
            dependency_history.resolve_from_history(git, sha, charts, reader, {"apps/web"})
            for sha, charts in zip((base, head), sides)
        )
    assert shared == apart
    pins = [next(c for c in charts if c.path == "apps/web").dependencies[0] for charts in shared]
    assert all(p.resolved_path.startswith(".aftershock-history/") for p in pins)
    assert pins[0].resolved_path != pins[1].resolved_path  # 2.1.1 at base, 2.1.3 at head
    late = tuple(discover_charts(MemTree({**LIBRARY, **_lib("2.1.2"), **_locked("2.1.3")}), "base"))
    with BlobReader(git) as reader:
        found = dependency_history.resolve_sides_from_history(
            git, (base, head), (late, sides[1]), reader, {"apps/web"}
        )
    assert found[0] == late  # 2.1.3 is not in base's history


def test_a_chart_a_release_brings_in_resolves_its_dependency_from_history(tmp_path, renderer):
    """web is rendered only because a HelmRelease the change edits installs it: its lib, pinned to
    the version before a rename, still comes from history."""
    repo = make_repo(tmp_path)
    older = {
        **LIBRARY,
        "charts/lib/Chart.yaml": LIBRARY["charts/lib/Chart.yaml"].replace("2.1.0", "2.0.0"),
    }
    commit(repo, older, "feat: lib 2.0.0")
    renamed = LIBRARY["charts/lib/templates/_cm.tpl"].replace("mode:", "lib21mode:")
    commit(repo, {**LIBRARY, "charts/lib/templates/_cm.tpl": renamed}, "feat!: lib 2.1.0")
    release = (
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n"
        "metadata: {name: web, namespace: prod}\nspec:\n  chart:\n    spec:\n"
        "      chart: ./apps/web\n"
        "      sourceRef: {kind: GitRepository, name: platform, namespace: flux-system}\n"
        "  values: {mode: MODE}\n"
    )
    base = commit(
        repo,
        {**_locked("2.0.0"), "clusters/prod/web.yaml": release.replace("MODE", "fast")},
        "feat: web in prod",
    )
    head = commit(
        repo, {"clusters/prod/web.yaml": release.replace("MODE", "slow")}, "feat: prod slow"
    )
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    assert result.not_reviewed == ()
    (web,) = [r for r in result.chart_reviews if r.chart == "apps/web"]
    assert [f.path for c in web.changes for f in c.fields] == ["data.mode"]  # 2.0.0's key


def _renders_the_earlier_lib(repo, base, head, renderer):
    """web's `mode` change reviewed: its one changed field is the earlier lib's key, `data.mode`, that
    lib taken from history. The review, and web's chart."""
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    assert result.not_reviewed == ()
    (chart,) = result.chart_reviews
    assert [f.path for c in chart.changes for f in c.fields] == ["data.mode"]
    (web,) = [c for c in result.charts if c.path == "apps/web"]
    assert web.dependencies[0].resolved_path.startswith(".aftershock-history/")
    return result, web


def test_a_chart_here_at_the_locked_version_is_observed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**LIBRARY, **_locked("2.1.0")}, "feat: web")
    head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    assert result.not_reviewed == ()
    (web,) = [c for c in result.charts if c.path == "apps/web"]
    assert web.dependencies[0].source is DependencySource.IN_REPO_LOCKED
    assert web.dependencies[0].resolved_path == "charts/lib"
    assert "observed: the version Chart.lock pins" in render_markdown(review_document(result))


def test_a_locked_version_found_nowhere_names_the_command_that_fetches_it(tmp_path, renderer):
    repo = make_repo(tmp_path)
    for repository, command in (
        (
            "https://charts.example.invalid",
            "`aftershock charts fetch --repo . --chart-cache DIR apps/web`",
        ),
        (
            "oci://registry.example.invalid/charts",
            "`aftershock charts fetch --repo . --chart-cache DIR apps/web`",
        ),
    ):
        base = commit(
            repo, {**LIBRARY, **_locked("9.9.9", repository)}, f"feat: web from {repository}"
        )
        head = commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
        result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
        (gap,) = result.not_reviewed
        # rendered without lib, the chart's one template fails: the dependency is said first
        assert gap.part == "chart apps/web"
        assert gap.reason.startswith("dependency lib 9.9.9: run `")
        assert "the version Chart.lock pins is not vendored" in gap.reason
        assert command in gap.reason and 'no template "lib.cm"' in gap.reason
        commit(repo, {"apps/web/values.yaml": "mode: fast\n"}, "chore: reset")


CRDS_CHART = {
    "charts/crds/Chart.yaml": "apiVersion: v2\nname: crds\nversion: 1.0.0\n",
    "charts/crds/values.yaml": "{}\n",
    "charts/crds/crds/cache.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
    "metadata: {name: caches.example.com}\nspec:\n  group: example.com\n"
    "  names: {kind: Cache, plural: caches}\n  scope: Namespaced\n"
    "  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n",
}


def test_the_crds_of_a_locked_version_from_history_are_installed_as_that_version_holds_them(
    tmp_path, renderer
):
    """The chart here moved on; the lock pins the earlier version: its crds/ are still installed."""
    repo = make_repo(tmp_path)
    deps = "dependencies:\n- name: crds\n  version: 1.0.0\n  repository: https://charts.example.invalid\n"
    lock = (
        "dependencies:\n- name: crds\n  repository: https://charts.example.invalid\n  version: 1.0.0\n"
        "digest: sha256:0\n"
    )
    web = {
        "apps/web/Chart.yaml": chart_yaml("web", deps=deps),
        "apps/web/Chart.lock": lock,
        "apps/web/values.yaml": "mode: fast\n",
        "apps/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n"
        "data: {mode: {{ .Values.mode | quote }}}\n",
    }
    base = commit(repo, {**CRDS_CHART, **web}, "feat: web on crds 1.0.0")
    head = commit(
        repo,
        {
            "charts/crds/Chart.yaml": CRDS_CHART["charts/crds/Chart.yaml"].replace(
                "1.0.0", "1.0.1"
            ),
            "apps/web/values.yaml": "mode: slow\n",
        },
        "feat: crds 1.0.1; web slow",
    )
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    (chart,) = [r for r in result.chart_reviews if r.chart == "apps/web"]
    assert [(c.key.kind, c.kind.value) for c in chart.changes] == [("ConfigMap", "changed")]
    assert {o.key.kind for o in chart.head_objects} == {"ConfigMap", "CustomResourceDefinition"}


EXPORTER = {
    "monitoring/Chart.yaml": chart_yaml(
        "monitoring",
        deps="dependencies:\n- name: exporter\n  version: 0.1.0\n  repository: file://vendor/exporter\n",
    ),
    "monitoring/values.yaml": "global: {image: {tag: v1}}\n",
    "monitoring/templates/_names.tpl": '{{- define "monitoring.fullname" -}}mon-{{ .Release.Name }}{{- end -}}\n',
    "monitoring/vendor/exporter/Chart.yaml": chart_yaml("exporter"),
    # the parent's named template and its `global`: it renders only inside its parent
    "monitoring/vendor/exporter/templates/svc.yaml": "apiVersion: v1\nkind: Service\n"
    'metadata: {name: {{ include "monitoring.fullname" . }}}\n'
    "spec: {ports: [{port: 80}], selector: {tag: {{ .Values.global.image.tag | quote }}}}\n",
}


def test_a_chart_vendored_in_its_parent_renders_through_it_not_alone(tmp_path, renderer):
    (exporter,) = [c for c in discover_charts(MemTree(EXPORTER), "head") if c.name == "exporter"]
    assert (exporter.embedded_in, exporter.renderable) == ("monitoring", False)
    repo = make_repo(tmp_path)
    base = commit(repo, EXPORTER, "feat: monitoring")
    head = commit(repo, {"monitoring/values.yaml": "global: {image: {tag: v2}}\n"}, "v2")
    head = commit(
        repo,
        {
            "monitoring/vendor/exporter/templates/svc.yaml": EXPORTER[
                "monitoring/vendor/exporter/templates/svc.yaml"
            ].replace("port: 80", "port: 8080")
        },
        "port",
    )
    result = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    assert result.not_reviewed == ()
    (chart,) = result.chart_reviews
    assert chart.chart == "monitoring"
    paths = {f.path for c in chart.changes for f in c.fields}
    assert "spec.selector.tag" in paths and "spec.ports[port=8080]" in paths


def test_a_test_chart_depending_on_the_chart_holding_it_renders_and_so_does_that_chart(
    tmp_path, renderer
):
    files = {
        "policies/Chart.yaml": chart_yaml("policies"),
        "policies/values.yaml": "mode: warn\n",
        # a fixed name: one named after the release is apart in each chart's release (object-conflict)
        "policies/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"
        "metadata: {name: policies-settings}\ndata: {mode: {{ .Values.mode | quote }}}\n",
        # the test harness inside the chart, as `helm dependency build` packs it: no loop
        "policies/tests/chart/Chart.yaml": chart_yaml(
            "rendered",
            deps="dependencies:\n- name: policies\n  version: '>= 0.0.0'\n  repository: file://../..\n",
        ),
        "policies/tests/chart/templates/probe.yaml": "apiVersion: v1\nkind: ConfigMap\n"
        'metadata: {name: probe}\ndata: {file: {{ .Files.Get "values.yaml" | quote }}}\n',
        "platform/Chart.yaml": chart_yaml(
            "platform",
            deps="dependencies:\n- name: policies\n  version: 0.1.0\n  repository: file://../policies\n",
        ),
    }
    repo = make_repo(tmp_path)
    base = commit(repo, files, "feat: policies")
    head = commit(repo, {"policies/values.yaml": "mode: deny\n"}, "deny")
    reviewed = review_change(ReviewRequest(repo=repo, base=base, head=head), renderer)
    result = reviewed.review
    assert result.not_reviewed == ()
    changed = {r.chart: [f.path for c in r.changes for f in c.fields] for r in result.chart_reviews}
    assert changed == {
        "platform": ["data.mode"],
        "policies": ["data.mode"],
        "policies/tests/chart": ["data.mode"],
    }
    # the harness is installed nowhere: its copy of the chart's objects is no second source
    conflicts = [f for f in reviewed.judgement.findings if f.rule_id == "object-conflict"]
    assert conflicts and not [f for f in conflicts if "policies/tests/chart" in f.message]
