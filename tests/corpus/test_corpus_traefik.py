"""End-to-end reviews of real commits of the traefik Helm chart, checked against git's own view of them.

The corpus bundle holds the full history of github.com/traefik/traefik-helm-chart (chart under
`traefik/`, and since 2026 a second chart `hub-manager/`). The bundle is cloned once per module; each
commit below is reviewed as `sha^..sha` with the real embedded renderer, and what the review says
changed is compared with `git diff --name-status/--numstat`, `git log`, `git ls-tree` and the commit's
own values lines. Reviews use default values only (one scenario). Every commit below renders on both
sides: a scan of all 769 commits touching traefik/templates, values.yaml or Chart.yaml found none that
fails with default values, so *not reviewed* is asked for with a real option instead (a kube version
below the chart's `kubeVersion`), which currently xfails: see that test.

The commits, and why each was chosen:
- d52d20a6 values default: `ports.websecure.tls.enabled` false -> true adds one flag to the Deployment's
  args; it also bumps Chart.yaml `version` (Helm noise), extends Changelog.md and a unittest suite, and
  carries two Co-authored-by trailers.
- 2b32ce7d values default: `ports.traefik.port`/`exposedPort` 9000 -> 8080, seen in both probes, the
  container port and an arg; it also edits EXAMPLES.md, which lies outside every chart.
- 4a974f43 template change: the cluster-scoped IngressClass loses `metadata.namespace`; Chart.yaml bump,
  a 2.6k-line Changelog rewrite, a Signed-off-by trailer.
- 55615b96 rename of a template (R085) and of its unittest (R097): the hook annotations go away.
- 9ffaf07f Chart.yaml `appVersion` v3.7.7 -> v3.7.8 (a bot author): only the image tag changes.
- 633a6673 CRD-only: Helm installs `crds/` untemplated; aftershock diffs those files with the render.
- 8dd13b4a test-only (helm-unittest suite): the chart renders unchanged.
- d09024af docs-only inside the chart (Guidelines.md): the chart still renders, unchanged.
- c4a332e0 a new chart, hub-manager, beside traefik: absent at base, every object added.
- d7fc8d82 the chart moves from the repository root into traefik/ (R100 renames): one chart, its base
  rendered from the root, renders identically.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import jsonschema
import pytest

from aftershock.model.diff import FieldChangeKind, ObjectChangeKind
from aftershock.model.review import ChartOutcome, RenderStatus, Review
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.report.canonical import review_document
from conftest import CORPUS, PROJECT
from gitrepo import git

BUNDLE = CORPUS / "traefik-helm-chart.bundle"
SCHEMA = PROJECT / "src" / "aftershock" / "schema" / "review.schema.json"

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not BUNDLE.is_file(), reason=f"corpus bundle {BUNDLE} is absent"),
]

_STATUS = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "type_changed",
}
_KEY_LINE = re.compile(r"^(\s*)([A-Za-z0-9_.-]+):(\s|$)")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass(frozen=True)
class Case:
    sha: str
    why: str
    units: dict[str, tuple[str, ...]]  # changed path -> its unit ids (only the paths named here)
    outcomes: dict[str, ChartOutcome] = field(default_factory=dict)  # every chart reviewed
    # changed template lines no scenario rendered (diff/exercise.py): listed as not reviewed
    not_exercised: list[str] = field(default_factory=list)


TRAEFIK_CHANGED = {"traefik": ChartOutcome.CHANGED}
TRAEFIK_UNCHANGED = {"traefik": ChartOutcome.UNCHANGED}
CASES = [
    Case(
        "d52d20a6d4e987cd46e24f4816c638e3707d876e",
        "values default, tls on websecure",
        {
            "traefik/Changelog.md": ("docs:traefik/Changelog.md",),
            "traefik/Chart.yaml": ("chart_metadata:traefik/Chart.yaml",),
            "traefik/tests/traefik-config_test.yaml": (
                "test_suite:traefik/tests/traefik-config_test.yaml",
            ),
            "traefik/values.yaml": ("values_file:traefik/values.yaml",),
        },
        TRAEFIK_CHANGED,
    ),
    Case(
        "2b32ce7d164f7aea03f0056f0813b3d9ac97e9b7",
        "values default, traefik port 8080",
        {
            "EXAMPLES.md": ("file:EXAMPLES.md",),
            "traefik/VALUES.md": ("docs:traefik/VALUES.md",),
            "traefik/tests/deployment-config_test.yaml": (
                "test_suite:traefik/tests/deployment-config_test.yaml",
            ),
            "traefik/tests/ports-config_test.yaml": (
                "test_suite:traefik/tests/ports-config_test.yaml",
            ),
            "traefik/values.yaml": ("values_file:traefik/values.yaml",),
        },
        TRAEFIK_CHANGED,
    ),
    Case(
        "4a974f433d90b1e442732dded272379dedd1d176",
        "template change, cluster-scoped IngressClass",
        {
            "traefik/Changelog.md": ("docs:traefik/Changelog.md",),
            "traefik/Chart.yaml": ("chart_metadata:traefik/Chart.yaml",),
            "traefik/templates/ingressclass.yaml": (
                "template:traefik/templates/ingressclass.yaml",
            ),
        },
        TRAEFIK_CHANGED,
    ),
    Case(
        "55615b9680c47192d6798aed77016a13a3c34660",
        "template rename",
        {
            "traefik/templates/dashboard-ingressroute.yaml": (
                "template:traefik/templates/dashboard-hook-ingressroute.yaml",
                "template:traefik/templates/dashboard-ingressroute.yaml",
            ),
            "traefik/tests/dashboard-ingressroute_test.yaml": (
                "test_suite:traefik/tests/dashboard-hook-ingressroute_test.yaml",
                "test_suite:traefik/tests/dashboard-ingressroute_test.yaml",
            ),
        },
        TRAEFIK_CHANGED,
    ),
    Case(
        "9ffaf07f77aba64926b1bc9f3aaee1090867a277",
        "Chart.yaml appVersion",
        {
            "traefik/Chart.yaml": ("chart_metadata:traefik/Chart.yaml",),
            "traefik/VALUES.md": ("docs:traefik/VALUES.md",),
            "traefik/tests/requirements-config_test.yaml": (
                "test_suite:traefik/tests/requirements-config_test.yaml",
            ),
        },
        TRAEFIK_CHANGED,
    ),
    Case(
        "633a6673cdcbbdb0ba9b3180a17157dfb1d3fad8",
        "CRD only",
        {
            "traefik/crds/traefik.io_middlewares.yaml": (
                "crd:traefik/crds/traefik.io_middlewares.yaml",
            ),
        },
        TRAEFIK_CHANGED,
    ),
    Case(
        "8dd13b4aaa3a4b146c0481e48a758b1063d837e9",
        "test only",
        {
            "traefik/tests/service-config_test.yaml": (
                "test_suite:traefik/tests/service-config_test.yaml",
            ),
        },
        TRAEFIK_UNCHANGED,
    ),
    Case(
        "d09024afd3423c4b292d2cb052643f241231ced7",
        "docs only",
        {
            "traefik/Guidelines.md": ("docs:traefik/Guidelines.md",),
        },
        TRAEFIK_UNCHANGED,
    ),
    Case(
        "c4a332e08034cd3144019f6b59eb2209ba5ada76",
        "new chart hub-manager",
        {
            ".github/workflows/test.yaml": ("file:.github/workflows/test.yaml",),
            "Makefile": ("file:Makefile",),
        },
        {"hub-manager": ChartOutcome.CHANGED},
        # a new chart's lines the defaults (the one scenario here) do not run, per template (the
        # `if` or `with` opening each block ran: its condition was evaluated)
        [
            "template hub-manager/templates/_helpers.tpl lines 16",
            "template hub-manager/templates/deployment.yaml lines 9, 12-13, 36, 39-40, 44-45, "
            "48-49, 52-53, 56-57, 64, 81, 92-93, 104, 108-112, 117-121, 124-128, 134-135, "
            "138-139, 142-146",
            "template hub-manager/templates/hpa.yaml lines 2-10",
            "template hub-manager/templates/migration-job.yaml lines 9, 15, 26-27, 30-31, "
            "34-35, 38-39, 46, 56-70",
            "template hub-manager/templates/service.yaml lines 9-10",
        ],
    ),
    Case(
        "d7fc8d82551dd8c22a842948f32f4dc9233492e7",
        "chart moves from the root into traefik/",
        {
            ".travis.yml": ("chart_file:.travis.yml", "file:.travis.yml"),
            "traefik/templates/deployment.yaml": (
                "template:templates/deployment.yaml",
                "template:traefik/templates/deployment.yaml",
            ),
            "traefik/values.yaml": ("values_file:values.yaml", "values_file:traefik/values.yaml"),
        },
        {"traefik": ChartOutcome.UNCHANGED},
    ),
]
BY_SHORT = {case.sha[:8]: case for case in CASES}


def moved_chart_folders(repo: Path, sha: str) -> set[str]:
    """The folders a renamed Chart.yaml moves to: charts the change moves."""
    return {
        path.rpartition("/")[0]
        for path, status, old, _ in git_name_status(repo, sha)
        if status == "renamed"
        and old
        and path.endswith("Chart.yaml")
        and old.endswith("Chart.yaml")
    }


def default_values_request(repo: Path, sha: str) -> ReviewRequest:
    """sha^..sha with default values only: toggle scenarios are another test's subject, and cost renders.
    The chart's ~800 helm-unittest tests run in one test below, not in every review here."""
    return ReviewRequest(repo=repo, base=f"{sha}^", head=sha, max_scenarios=1, run_tests=False)


@pytest.fixture(scope="module")
def traefik_repo(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("corpus") / "traefik-helm-chart"
    git(dest.parent, "clone", "-q", str(BUNDLE), str(dest))
    return dest


@pytest.fixture(scope="module")
def reviewed(traefik_repo, renderer):
    """sha -> (Review, JSON document) of sha^..sha, rendered once per module."""
    cache: dict[str, tuple[Review, dict]] = {}

    def review(sha: str) -> tuple[Review, dict]:
        if sha not in cache:
            result = run_review(default_values_request(traefik_repo, sha), renderer)
            cache[sha] = (result, review_document(result))
        return cache[sha]

    return review


@pytest.fixture(scope="module")
def schema_validator():
    return jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))


def git_name_status(repo: Path, sha: str) -> list[tuple[str, str, str | None, int | None]]:
    """(path, status, old path, similarity) per file, from `git diff --name-status -M -z`."""
    tokens = git(repo, "diff", "--name-status", "-M", "-z", f"{sha}^", sha).split("\0")
    rows, i = [], 0
    while i < len(tokens) and tokens[i]:
        code = tokens[i]
        if code[0] in "RC":
            rows.append((tokens[i + 2], _STATUS[code[0]], tokens[i + 1], int(code[1:])))
            i += 3
        else:
            rows.append((tokens[i + 1], _STATUS[code[0]], None, None))
            i += 2
    return rows


def git_numstat(repo: Path, sha: str) -> dict[str, tuple[int, int]]:
    """path -> (additions, deletions), from `git diff --numstat -M -z`."""
    tokens = git(repo, "diff", "--numstat", "-M", "-z", f"{sha}^", sha).split("\0")
    counts, i = {}, 0
    while i < len(tokens) and tokens[i]:
        added, deleted, path = tokens[i].split("\t", 2)
        if path:
            i += 1
        else:  # a rename: the old and new paths follow as their own tokens
            path, i = tokens[i + 2], i + 3
        counts[path] = (int(added), int(deleted))
    return counts


def chart_dirs(repo: Path, rev: str) -> list[str]:
    names = git(repo, "ls-tree", "-r", "--name-only", rev).splitlines()
    return [
        name.rpartition("/")[0]
        for name in names
        if name == "Chart.yaml" or name.endswith("/Chart.yaml")
    ]


def holding_chart(path: str, charts: list[str]) -> str | None:
    holders = [c for c in charts if c == "" or path.startswith(c + "/")]
    return max(holders, key=len) if holders else None


def changed_values_paths(repo: Path, sha: str, values_file: str) -> dict[str, str]:
    """Dotted key path -> line text, for every `key: value` line the commit added to a values file."""
    lines = git(repo, "show", f"{sha}:{values_file}").split("\n")
    paths, number = {}, 0
    for line in git(repo, "diff", "-U0", f"{sha}^", sha, "--", values_file).split("\n"):
        if hunk := _HUNK.match(line):
            number = int(hunk.group(1))
        elif line.startswith("+") and not line.startswith("+++"):
            assert lines[number - 1] == line[1:]  # the line numbers of the diff and the file agree
            if _KEY_LINE.match(line[1:]):
                paths[_key_path(lines, number - 1)] = line[1:]
            number += 1
    return paths


def _key_path(lines: list[str], index: int) -> str:
    """The dotted path of the mapping key on lines[index], found by walking up the indentation."""
    indent, key = _KEY_LINE.match(lines[index]).group(1, 2)
    parts, depth = [key], len(indent)
    for line in reversed(lines[:index]):
        match = _KEY_LINE.match(line)
        if match and len(match.group(1)) < depth:
            parts.insert(0, match.group(2))
            depth = len(match.group(1))
    return ".".join(parts)


def fields(review: Review, kind: str) -> list[tuple[str, FieldChangeKind, object, object]]:
    (change,) = [c for r in review.chart_reviews for c in r.changes if c.key.kind == kind]
    return [(f.path, f.kind, f.before, f.after) for f in change.fields]


@pytest.mark.parametrize("case", CASES, ids=[c.sha[:8] for c in CASES])
def test_files_are_the_commits_own_diff(traefik_repo, reviewed, case):
    review, _ = reviewed(case.sha)
    assert [
        (f.path, f.status.value, f.old_path, f.similarity) for f in review.files
    ] == git_name_status(traefik_repo, case.sha)
    assert {f.path: (f.additions, f.deletions) for f in review.files} == git_numstat(
        traefik_repo, case.sha
    )
    for f in review.files:
        lines = [line[0] for h in f.hunks for line in h.lines]
        assert (lines.count("+"), lines.count("-")) == (f.additions, f.deletions), f.path
        assert f.commits == (case.sha,)


@pytest.mark.parametrize("case", CASES, ids=[c.sha[:8] for c in CASES])
def test_one_commit_as_git_log_tells_it(traefik_repo, reviewed, case):
    review, _ = reviewed(case.sha)
    (commit,) = review.commits
    log = git(
        traefik_repo, "log", "-1", "--format=%s%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%P", case.sha
    ).split("\0")
    assert commit.sha == case.sha
    assert [commit.title, commit.author.name, commit.author.email, commit.authored_at] == log[:4]
    assert [commit.committer.name, commit.committer.email, " ".join(commit.parents)] == log[4:]
    message = git(traefik_repo, "log", "-1", "--format=%B", case.sha)
    trailers = git(traefik_repo, "interpret-trailers", "--parse", stdin=message + "\n").splitlines()
    assert [f"{t.key}: {t.value}" for t in commit.trailers] == trailers
    assert (review.base.sha, review.head.sha) == (
        git(traefik_repo, "rev-parse", f"{case.sha}^"),
        case.sha,
    )


@pytest.mark.parametrize("case", CASES, ids=[c.sha[:8] for c in CASES])
def test_units_classify_the_changed_files(reviewed, case):
    review, doc = reviewed(case.sha)
    units = {path: tuple(u.id for u in file_units) for path, file_units in review.units}
    assert {path: units[path] for path in case.units} == case.units
    assert set(units) == {f.path for f in review.files}
    kinds = {u["id"]: u["kind"] for u in doc["units"]}
    assert all(
        kinds[i] == i.split(":")[0]
        for ids in units.values()
        for i in ids
        if not i.startswith("file:")
    )


@pytest.mark.parametrize("case", CASES, ids=[c.sha[:8] for c in CASES])
def test_affected_charts_are_the_charts_holding_the_files(traefik_repo, reviewed, case):
    review, _ = reviewed(case.sha)
    base_charts, head_charts = (
        chart_dirs(traefik_repo, f"{case.sha}^"),
        chart_dirs(traefik_repo, case.sha),
    )
    holders = set()
    for f in review.files:
        if f.status.value != "added":
            holders.add(holding_chart(f.old_path or f.path, base_charts))
        if f.status.value != "deleted":
            holders.add(holding_chart(f.path, head_charts))
    assert [a.chart for a in review.affected] == sorted(holders - {None})
    assert {r.chart: r.outcome for r in review.chart_reviews} == case.outcomes
    moved = moved_chart_folders(traefik_repo, case.sha)
    for chart in review.chart_reviews:
        assert chart.base.status is (
            RenderStatus.OK if chart.chart in {*base_charts, *moved} else RenderStatus.ABSENT
        )
        assert chart.head.status is (
            RenderStatus.OK if chart.chart in head_charts else RenderStatus.ABSENT
        )
    assert [g.part for g in review.not_reviewed] == case.not_exercised


@pytest.mark.parametrize("case", CASES, ids=[c.sha[:8] for c in CASES])
def test_document_follows_the_schema(reviewed, schema_validator, case):
    review, doc = reviewed(case.sha)
    schema_validator.validate(doc)
    assert doc["status"] == ("partial" if case.not_exercised else "complete")
    assert doc["summary"]["commits"] == 1 and doc["summary"]["files"] == len(review.files)
    # distinct objects per install: a change in several scenarios counts once
    distinct = {(o["review"].split("#", 1)[0], o["key"]["id"]) for o in doc["objects"]}
    assert doc["summary"]["objects_changed"] == len(distinct) <= len(doc["objects"])


def test_values_default_tls_on_websecure_adds_one_flag(traefik_repo, reviewed):
    case = BY_SHORT["d52d20a6"]
    review, doc = reviewed(case.sha)
    lines = changed_values_paths(traefik_repo, case.sha, "traefik/values.yaml")
    assert lines == {"ports.websecure.tls.enabled": "      enabled: true"}
    assert [(v.path, v.kind.value, v.before, v.after) for v in review.values_changes] == [
        ("ports.websecure.tls.enabled", "changed", False, True)
    ]
    args = "spec.template.spec.containers[name=release-traefik].args"
    assert fields(review, "Deployment") == [
        (f"{args}[12]", FieldChangeKind.ADDED, None, "--entrypoints.websecure.http.tls=true")
    ]
    # Chart.yaml went 14.0.2 -> 15.0.0: the helm.sh/chart label is Helm bookkeeping, not a change.
    assert doc["summary"]["objects_changed"] == 1
    assert [(c.path, c.version) for c in review.charts] == [("traefik", "15.0.0")]
    assert [(t.key, t.value) for t in review.commits[0].trailers] == [
        ("Co-authored-by", "Mohamed Marzouki <mohamed.marzouki@adacor.com>"),
        ("Co-authored-by", "Michel Loiseleur <michel.loiseleur@traefik.io>"),
    ]


def test_values_default_traefik_port_reaches_probes_ports_and_args(traefik_repo, reviewed):
    case = BY_SHORT["2b32ce7d"]
    review, doc = reviewed(case.sha)
    lines = changed_values_paths(traefik_repo, case.sha, "traefik/values.yaml")
    assert sorted(lines) == [
        "ports.traefik.exposedPort",
        "ports.traefik.port",
    ]  # the third + line is a comment
    assert {v.path: (v.before, v.after) for v in review.values_changes} == dict.fromkeys(
        lines, (9000, 8080)
    )
    container = "spec.template.spec.containers[name=release-traefik]"
    assert sorted(fields(review, "Deployment")) == [
        (
            f"{container}.args[3]",
            FieldChangeKind.MODIFIED,
            "--entryPoints.traefik.address=:9000/tcp",
            "--entryPoints.traefik.address=:8080/tcp",
        ),
        (f"{container}.livenessProbe.httpGet.port", FieldChangeKind.MODIFIED, 9000, 8080),
        (f"{container}.ports[name=traefik].containerPort", FieldChangeKind.MODIFIED, 9000, 8080),
        (f"{container}.readinessProbe.httpGet.port", FieldChangeKind.MODIFIED, 9000, 8080),
    ]
    (examples,) = [u for u in doc["units"] if u["path"] == "EXAMPLES.md"]
    assert (examples["kind"], examples["chart"]) == (
        "docs",
        None,
    )  # outside every chart: affects none


def test_template_change_drops_namespace_of_cluster_scoped_ingressclass(reviewed):
    review, _ = reviewed(BY_SHORT["4a974f43"].sha)
    (change,) = review.chart_reviews[0].changes
    key = change.key
    assert (key.group, key.kind, key.namespace, key.name) == (
        "networking.k8s.io",
        "IngressClass",
        "",
        "release-traefik",
    )
    assert change.templates == ("traefik/templates/ingressclass.yaml",)
    assert fields(review, "IngressClass") == [
        ("metadata.namespace", FieldChangeKind.REMOVED, "default", None)
    ]
    assert review.values_changes == ()
    assert [(t.key, t.value) for t in review.commits[0].trailers] == [
        ("Signed-off-by", "Yann Soubeyrand <yann.soubeyrand@camptocamp.com>")
    ]


def test_renamed_template_keeps_its_object_and_names_both_files(reviewed):
    review, _ = reviewed(BY_SHORT["55615b96"].sha)
    (change,) = review.chart_reviews[0].changes
    assert change.kind is ObjectChangeKind.CHANGED
    assert str(change.key) == "IngressRoute.traefik.containo.us default/release-traefik-dashboard"
    assert change.templates == (
        "traefik/templates/dashboard-hook-ingressroute.yaml",
        "traefik/templates/dashboard-ingressroute.yaml",
    )
    hook = {
        "helm.sh/hook": "post-install,post-upgrade",
        "meta.helm.sh/release-name": "release",
        "meta.helm.sh/release-namespace": "default",
    }
    assert fields(review, "IngressRoute") == [
        ("metadata.annotations", FieldChangeKind.MODIFIED, hook, None)
    ]


def test_app_version_bump_changes_only_the_image(reviewed):
    review, _ = reviewed(BY_SHORT["9ffaf07f"].sha)
    assert fields(review, "Deployment") == [
        (
            "spec.template.spec.containers[name=release-traefik].image",
            FieldChangeKind.MODIFIED,
            "docker.io/traefik:v3.7.7",
            "docker.io/traefik:v3.7.8",
        ),
    ]
    assert [(c.path, c.version, c.app_version) for c in review.charts] == [
        ("traefik", "41.0.2", "v3.7.8")
    ]


@pytest.mark.parametrize("short, kind", [("8dd13b4a", "test_suite"), ("d09024af", "docs")])
def test_changes_helm_does_not_render_still_render_unchanged(reviewed, short, kind):
    review, doc = reviewed(BY_SHORT[short].sha)
    assert {u["kind"] for u in doc["units"]} == {kind}
    (chart,) = review.chart_reviews
    assert chart.outcome is ChartOutcome.UNCHANGED and chart.changes == ()
    assert chart.base.object_count == chart.head.object_count
    kinds = sorted({o.key.kind for o in chart.head_objects})
    assert kinds == [
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "Deployment",
        "IngressClass",
        "Service",
        "ServiceAccount",
    ]
    rendered = [o for o in chart.head_objects if "/crds/" not in o.template]
    assert len(rendered) == 6
    assert doc["objects"] == [] and doc["values_changes"] == []


def test_new_chart_beside_traefik_adds_every_object(reviewed):
    review, _ = reviewed(BY_SHORT["c4a332e0"].sha)
    (chart,) = review.chart_reviews
    assert (chart.chart, chart.base.status, chart.head.status) == (
        "hub-manager",
        RenderStatus.ABSENT,
        RenderStatus.OK,
    )
    assert {c.kind for c in chart.changes} == {ObjectChangeKind.ADDED}
    assert sorted(str(c.key) for c in chart.changes) == [
        "Deployment.apps default/release-hub-manager",
        "Job.batch default/release-hub-manager-migration",
        "Service default/release-hub-manager",
    ]
    assert len(chart.changes) == chart.head.object_count
    values = {v.path: v.after for v in review.values_changes if v.file == "hub-manager/values.yaml"}
    assert (
        values["image.repository"] == "traefik/hub-manager" and values["deployment.replicas"] == 1
    )


def test_chart_moved_out_of_the_root_renders_identically_from_either_folder(reviewed):
    """Every file renamed (R100), the Chart.yaml among them: one chart, rendered at base from the
    root and at head from traefik/, unchanged; not ten objects removed and ten added, which said
    *Critical* (five CRDs deleted)."""
    review, _ = reviewed(BY_SHORT["d7fc8d82"].sha)
    (moved,) = review.chart_reviews
    assert (moved.chart, moved.base.status, moved.head.status, moved.outcome) == (
        "traefik",
        RenderStatus.OK,
        RenderStatus.OK,
        ChartOutcome.UNCHANGED,
    )
    assert moved.changes == () and moved.base.object_count == moved.head.object_count == 10
    assert {o.template for o in moved.base_objects} >= {"templates/deployment.yaml"}
    assert {o.template for o in moved.head_objects} >= {"traefik/templates/deployment.yaml"}


def test_added_file_has_units_only_where_it_exists(reviewed):
    review, doc = reviewed(BY_SHORT["c4a332e0"].sha)
    units = {path: tuple(u.id for u in file_units) for path, file_units in review.units}
    assert units["hub-manager/templates/deployment.yaml"] == (
        "template:hub-manager/templates/deployment.yaml",
    )
    assert "other" not in {u["kind"] for u in doc["units"] if u["path"].startswith("hub-manager/")}


def test_crd_change_is_diffed(reviewed):
    _, doc = reviewed(BY_SHORT["633a6673"].sha)
    (obj,) = doc["objects"]
    assert (
        obj["key"]["kind"] == "CustomResourceDefinition"
        and obj["key"]["name"] == "middlewares.traefik.io"
    )
    assert obj["templates"] == ["traefik/crds/traefik.io_middlewares.yaml"] and obj["fields"]


def test_kube_version_below_the_charts_constraint_is_not_reviewed(traefik_repo, renderer):
    sha = BY_SHORT["d09024af"].sha
    assert 'kubeVersion: ">=1.22.0-0"' in git(traefik_repo, "show", f"{sha}:traefik/Chart.yaml")
    request = replace(default_values_request(traefik_repo, sha), kube_version="v1.21.0")
    review = run_review(request, renderer)
    (chart,) = review.chart_reviews
    assert chart.outcome is ChartOutcome.NOT_REVIEWED
    (gap,) = review.not_reviewed  # the same reason at both refs is said once, for both
    assert gap.side is None and "kubeVersion" in gap.reason


def test_the_charts_own_suites_run_at_both_refs_as_evidence(traefik_repo, renderer):
    """2b32ce7d moves the traefik port from 9000 to 8080 and updates its tests: every suite runs at base and
    head, nothing is newly failing, and the guard map covers the changed fields."""
    sha = BY_SHORT["2b32ce7d"].sha
    review = run_review(
        replace(default_values_request(traefik_repo, sha), run_tests=True), renderer
    )
    evidence = review.tests
    assert evidence is not None and [c.chart for c in evidence.charts] == ["traefik"]
    (chart,) = evidence.charts
    changes = {t.change.value for t in chart.tests}
    assert len(chart.tests) > 400 and "newly_failing" not in changes
    assert chart.guards and all(g.object_id for g in chart.guards)


def test_the_tests_setting_what_a_partials_added_lines_read_render_within_the_cap(
    traefik_repo, renderer
):
    """e9fb8f45 adds three options read in `requirements.yaml` and in the `_podtemplate.tpl` that
    `deployment.yaml` includes, and tests for both. A requirements suite's test setting all three
    reaches none of the partial's lines: the deployment suite's tests for the second and third
    option render within the cap too, so every added line runs."""
    sha = "e9fb8f4514"
    review = run_review(
        ReviewRequest(repo=traefik_repo, base=f"{sha}^", head=sha, run_tests=False), renderer
    )
    (summary,) = review.scenarios
    assert {
        "test:traefik-config_test.yaml/should set defaultTLSResourcesNamespace when specified",
        "test:traefik-config_test.yaml/should set strictTLSOptions when enabled",
    } <= set(summary.ran)
    assert [g.part for g in review.not_reviewed] == []
