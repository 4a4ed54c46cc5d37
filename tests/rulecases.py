"""Rule fixtures: base/head cases under tests/fixtures/rules/<rule-id>/<case>/, built into real Reviews.

A case folder holds:
- `base.yaml`, `head.yaml`: rendered manifests of chart `charts/app` as Helm prints them, each
  document after a `# Source: app/templates/<file>` line; a missing file means the chart does not
  exist on that side. They are parsed with the real `parse_manifests` and diffed with the real
  `diff_objects`.
- `expected.yaml`: the findings the rule must give, a list of maps with any of `delta`,
  `severity`, `confidence`, `evidence`, `subject` (display), `facet`, `message` (a substring) and `location`
  (`file` or `file:line`); `[]` when the rule must stay silent. Only the case's rule is compared.
- `case.yaml` (optional): `config` (an .aftershock.yaml document), `kube_version`, and repository
  content for rules that read files or commits: `files: {base: {path: text}, head: {path: text}}`
  and `commits: [message, ...]` (the range base..head; the head files land with the last one);
  `history: [message, ...]` are empty commits made before the base one (the repository's past).
  With `files` or `commits`, a real git repository is built and read with GitRepository, so file
  changes, hunks, commits and values changes are the real ones. `override_probes` lists what the
  pipeline's override-trap stage observed (see `override_probe`), for rules that read them.
- `base_plain.yaml`, `head_plain.yaml` (optional): a second source, plain manifests in the folder
  `manifests` (file `manifests/objects.yaml`), reviewed beside the chart, for rules that compare sources.
  `tests` lists helm-unittest outcomes of charts/app as the test step observed them (`suite_file`,
  `test`, `change`, `failure`); `head_render_error` makes the head render of scenario
  `scenario` (default `default`) fail with that error, the chart then being not reviewed.
  `release: {id, base_values, head_values}` makes the chart's review that of a release installing it
  (`ChartReview.release`), rendered with those values at each side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from aftershock.config.settings import AftershockConfig
from aftershock.diff.objects import diff_objects
from aftershock.diff.values_keys import diff_values, parse_values
from aftershock.findings.model import Finding
from aftershock.ingest.conventions import commit_conventions
from aftershock.ingest.gitops.plain_objects import manifest_objects
from aftershock.ingest.object_documents import parse_manifests
from aftershock.ingest.repository.git import GitRepository
from aftershock.model.change import Side
from aftershock.model.contexts import RenderInputs
from aftershock.model.objects import RenderedObject
from aftershock.model.override import (
    PROBE_NAME,
    DroppedEntry,
    MergeSite,
    OverrideProbe,
    ProbeStatus,
)
from aftershock.model.review import (
    ChartOutcome,
    ChartRender,
    ChartReview,
    RefInfo,
    RenderStatus,
    Review,
    ReviewOptions,
)
from aftershock.model.tests import (
    ChartTestEvidence,
    RunStatus,
    SideTests,
    TestChange,
    TestComparison,
    TestEvidence,
    TestOutcome,
    TestStatus,
)
from aftershock.model.units import AffectedChart, AffectStep, Chart, ChartType, ValuesKeyChange
from aftershock.model.validated import validated
from aftershock.rules.engine import evaluate
from aftershock.rules.model import SourceTexts
from gitrepo import commit, make_repo

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
CHART = "charts/app"
_SOURCE = re.compile(r"^# Source: (.+)$", re.M)
EXPECTED_KEYS = {
    "delta",
    "severity",
    "confidence",
    "evidence",
    "subject",
    "facet",
    "message",
    "location",
}


@dataclass(frozen=True)
class Case:
    rule_id: str
    name: str
    folder: Path

    @property
    def id(self) -> str:
        return f"{self.rule_id}/{self.name}"


def all_cases() -> list[Case]:
    return [
        Case(rule.name, case.name, case)
        for rule in sorted(FIXTURES.iterdir())
        if rule.is_dir()
        for case in sorted(rule.iterdir())
        if case.is_dir()
    ]


def read_manifests(path: Path) -> tuple[RenderedObject, ...] | None:
    """The objects of a fixture manifest stream, templates as repository paths; None if absent."""
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8")
    starts = list(_SOURCE.finditer(text))
    templates: dict[str, str] = {}
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        name = match.group(1).strip()
        templates[name] = templates.get(name, "") + "\n---\n" + text[match.end() : end]
    objects = parse_manifests(templates, chart=CHART, namespace="default")
    return tuple(_repo_template(o) for o in objects)


def _repo_template(obj: RenderedObject) -> RenderedObject:
    return replace(obj, template=f"charts/{obj.template}")


def load_case(
    case: Case, tmp_path: Path
) -> tuple[Review, AftershockConfig, SourceTexts, list[dict[str, Any]]]:
    extra = _yaml(case.folder / "case.yaml") or {}
    expected = _yaml(case.folder / "expected.yaml")
    assert isinstance(expected, list), f"{case.id}: expected.yaml must be a list"
    for entry in expected:
        assert set(entry) <= EXPECTED_KEYS, f"{case.id}: unknown keys {set(entry) - EXPECTED_KEYS}"
    config = validated(AftershockConfig, extra.get("config") or {})
    files = extra.get("files") or {}
    base_files, head_files = dict(files.get("base") or {}), dict(files.get("head") or {})
    review = build_review(
        read_manifests(case.folder / "base.yaml"),
        read_manifests(case.folder / "head.yaml"),
        tmp_path=tmp_path,
        base_files=base_files,
        head_files=head_files,
        commits=list(extra.get("commits") or []),
        kube_version=extra.get("kube_version"),
        history=list(extra.get("history") or []),
    )
    probes = tuple(override_probe(entry) for entry in extra.get("override_probes") or [])
    review = replace(
        review,
        override_probes=probes,
        chart_reviews=review.chart_reviews + _plain_reviews(case.folder),
    )
    if extra.get("tests"):
        review = replace(review, tests=test_evidence(extra["tests"]))
    if extra.get("release"):
        review = installed_by(review, extra["release"])
    if extra.get("head_render_error"):
        review = failed_at_head(
            review, extra["head_render_error"], extra.get("scenario", "default")
        )
    return review, config, SourceTexts(base=base_files, head=head_files), expected


def test_evidence(entries: list[dict[str, Any]]) -> TestEvidence:
    """The test step's evidence for charts/app: each entry one test, passing at base unless `change` says otherwise."""
    tests = tuple(
        TestComparison(
            e["suite_file"],
            "suite",
            e["test"],
            TestChange(e.get("change", "newly_failing")),
            TestOutcome(TestStatus.PASSED),
            TestOutcome(TestStatus.FAILED, e.get("failure", "")),
        )
        for e in entries
    )
    side = SideTests(RunStatus.RAN, suites=1, passed=len(tests))
    return TestEvidence(
        charts=(ChartTestEvidence(CHART, side, replace(side, passed=0, failed=len(tests)), tests),)
    )


def failed_at_head(review: Review, error: str, scenario: str) -> Review:
    """The review with its chart's head render failing in `scenario`: not reviewed, as the pipeline records it."""
    [chart_review] = review.chart_reviews
    failed = replace(
        chart_review,
        scenario=scenario,
        outcome=ChartOutcome.NOT_REVIEWED,
        changes=(),
        head_objects=(),
        head=ChartRender(Side.HEAD, RenderStatus.FAILED, error=error),
    )
    return replace(review, chart_reviews=(failed,))


def installed_by(review: Review, entry: dict[str, Any]) -> Review:
    """The review with its chart's review that of release `id`, rendered with its values at each side."""
    [chart_review, *rest] = review.chart_reviews
    release = replace(
        chart_review,
        release=entry["id"],
        base_inputs=RenderInputs(values=entry.get("base_values") or {}),
        head_inputs=RenderInputs(values=entry.get("head_values") or {}),
    )
    return replace(review, chart_reviews=(release, *rest))


def _plain_reviews(folder: Path) -> tuple[ChartReview, ...]:
    """The plain-manifest source of a case, when it has one (see the module docstring)."""
    sides = [folder / "base_plain.yaml", folder / "head_plain.yaml"]
    if not any(p.exists() for p in sides):
        return ()
    base, head = (
        manifest_objects("manifests/objects.yaml", p.read_text(), "default") if p.exists() else None
        for p in sides
    )
    changes = diff_objects(base or (), head or ())
    affected = AffectedChart(
        "manifests", (AffectStep("file", "manifests/objects.yaml", "changed"),)
    )
    return (
        ChartReview(
            chart="manifests",
            name="manifests",
            affected=affected,
            base=_render(Side.BASE, base),
            head=_render(Side.HEAD, head),
            outcome=ChartOutcome.CHANGED if changes else ChartOutcome.UNCHANGED,
            changes=changes,
            base_objects=base or (),
            head_objects=head or (),
        ),
    )


def override_probe(entry: dict[str, Any]) -> OverrideProbe:
    """An OverrideProbe of chart charts/app from a case entry: `values_path`, `override_path`, `status`,
    `dropped` (entries), optional `base_dropped` (absent: base not probed), `base_present`, `object`,
    `field` and `line` (of the merge in charts/app/templates/releases.yaml)."""
    site = MergeSite(
        f"{CHART}/templates/releases.yaml",
        entry.get("line", 3),
        "mergeOverwrite",
        "defaults.$name",
        "overrides.$name",
    )
    obj = entry.get("object", "helm.toolkit.fluxcd.io/HelmRelease/flux-system/app")
    dropped = tuple(
        DroppedEntry(name, obj, obj, entry.get("field", "spec.values.env"), site.template)
        for name in entry.get("dropped") or []
    )
    base = entry.get("base_dropped")
    return OverrideProbe(
        chart=CHART,
        values_file=f"{CHART}/values.yaml",
        values_path=entry["values_path"],
        override_path=entry["override_path"],
        site=site,
        status=ProbeStatus(entry["status"]),
        probe_entry={"name": PROBE_NAME},
        values_line=entry.get("values_line"),
        dropped=dropped,
        base_present=bool(entry.get("base_present", base is not None)),
        base_dropped=None if base is None else tuple(base),
        error=entry.get("error"),
    )


def build_review(
    base: tuple[RenderedObject, ...] | None,
    head: tuple[RenderedObject, ...] | None,
    *,
    tmp_path: Path,
    base_files: dict[str, str] | None = None,
    head_files: dict[str, str] | None = None,
    commits: list[str] | None = None,
    kube_version: str | None = None,
    history: list[str] | None = None,
) -> Review:
    """A Review of chart charts/app rendered as `base`/`head` (None: absent), with real git data when
    files or commits are given."""
    base_files, head_files, commits = base_files or {}, head_files or {}, commits or []
    base_ref, head_ref = RefInfo("base", "0" * 40), RefInfo("head", "1" * 40)
    commit_list: tuple = ()
    file_changes: tuple = ()
    values_changes: list[ValuesKeyChange] = []
    conventions = None
    if base_files or head_files or commits or history:
        repo = make_repo(tmp_path, "case")
        for message in history or []:
            commit(repo, {}, message)
        base_sha = commit(repo, base_files, "chore: base")
        messages = commits or ["chore: change"]
        for message in messages[:-1]:
            commit(repo, {}, message)
        removed = {path: None for path in base_files if path not in head_files}
        head_sha = commit(repo, {**removed, **head_files}, messages[-1])
        git_repo = GitRepository.open(repo)
        commit_list = git_repo.commits(base_sha, head_sha)
        file_changes = git_repo.file_changes(base_sha, head_sha)
        base_ref, head_ref = RefInfo("base", base_sha), RefInfo("head", head_sha)
        values_changes = _values_changes(file_changes, base_files, head_files)
        conventions = commit_conventions(git_repo, base_sha, base_files.get)
    first_file = next(
        (f.path for f in file_changes if f.path.startswith(CHART + "/")), f"{CHART}/values.yaml"
    )
    affected = AffectedChart(
        CHART,
        (AffectStep("file", first_file, "changed"), AffectStep("chart", CHART, "holds the file")),
    )
    changes = diff_objects(base or (), head or ())
    chart_review = ChartReview(
        chart=CHART,
        name="app",
        affected=affected,
        base=_render(Side.BASE, base),
        head=_render(Side.HEAD, head),
        outcome=ChartOutcome.CHANGED if changes else ChartOutcome.UNCHANGED,
        changes=changes,
        base_objects=base or (),
        head_objects=head or (),
    )
    chart = Chart(
        path=CHART, name="app", version="0.1.0", type=ChartType.APPLICATION, api_version="v2"
    )
    return Review(
        repository="fixture",
        base=base_ref,
        head=head_ref,
        options=ReviewOptions("release", "default", "fixture", "0", kube_version),
        commits=commit_list,
        files=file_changes,
        charts=(chart,),
        units=(),
        values_changes=tuple(values_changes),
        affected=(affected,),
        chart_reviews=(chart_review,),
        conventions=conventions,
    )


def _render(side: Side, objects: tuple[RenderedObject, ...] | None) -> ChartRender:
    if objects is None:
        return ChartRender(side, RenderStatus.ABSENT)
    return ChartRender(side, RenderStatus.OK, len(objects))


def _values_changes(
    file_changes: tuple, base_files: dict[str, str], head_files: dict[str, str]
) -> list[ValuesKeyChange]:
    changes: list[ValuesKeyChange] = []
    for change in file_changes:
        name = change.path.rsplit("/", 1)[-1]
        if name.startswith("values") and name.endswith((".yaml", ".yml")):
            chart = CHART if change.path.startswith(CHART + "/") else None
            before = parse_values(base_files.get(change.old_path or change.path), source="base")
            after = parse_values(head_files.get(change.path), source="head")
            changes.extend(diff_values(before, after, chart=chart, file=change.path))
    return changes


def findings_of(case: Case, tmp_path: Path) -> tuple[list[Finding], list[dict[str, Any]]]:
    review, config, sources, expected = load_case(case, tmp_path)
    findings = [f for f in evaluate(review, config, sources=sources) if f.rule_id == case.rule_id]
    return findings, expected


def matches(finding: Finding, expected: dict[str, Any]) -> bool:
    checks = {
        "delta": finding.delta.value,
        "severity": finding.severity.value,
        "confidence": finding.confidence.value,
        "evidence": finding.evidence.value,
        "subject": finding.subject.display,
        "facet": finding.subject.facet,
    }
    for key, actual in checks.items():
        if key in expected and str(expected[key]) != actual:
            return False
    if "message" in expected and str(expected["message"]) not in finding.message:
        return False
    if "location" in expected:
        loc = finding.location
        shown = "" if loc is None else (f"{loc.file}:{loc.line}" if loc.line else loc.file)
        if str(expected["location"]) != shown:
            return False
    return True


def describe(finding: Finding) -> str:
    loc = finding.location
    where = "" if loc is None else f" @ {loc.file}:{loc.line}"
    return f"[{finding.delta.value} {finding.severity.value} facet={finding.subject.facet!r}] {finding.message}{where}"


def _yaml(path: Path) -> Any:
    if not path.exists():
        return None
    return yaml.safe_load(path.read_text(encoding="utf-8"))
