"""The kube-linter conformance set: its per-check fixtures reviewed by aftershock, scored per check.

kube-linter's `tests/checks/*.yml` fixtures and its e2e expectations (`e2etests/bats-tests.sh`) come
from the shared corpus bundle, cloned at run time (never copied into the project). Each fixture
becomes the templates of one chart `charts/<check>` of a real git repository, added in one commit,
and the range is reviewed with the real pipeline (real Helm). `tests/data/kubelinter_checks.yaml`
maps each check to its aftershock counterparts and names the objects that must be flagged; a check
scores a true positive for each of them flagged by a counterpart rule, a false positive for any
other object of its chart they flag.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from aftershock.findings.model import Finding, SubjectKind
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.rules.engine import RULE_ERROR_ID
from gitrepo import commit, make_repo

PROJECT = Path(__file__).resolve().parents[1]
# ../shared/corpus from the project root; AFTERSHOCK_CORPUS names another folder (a worktree elsewhere)
CORPUS = Path(os.environ.get("AFTERSHOCK_CORPUS") or PROJECT.parent / "shared" / "corpus")
BUNDLE = CORPUS / "kube-linter.bundle"
EXPECTATIONS = Path(__file__).parent / "data" / "kubelinter_checks.yaml"
_TEST = re.compile(r'^@test "([^"]+)"', re.M)


@dataclass(frozen=True)
class LinterCheck:
    """One kube-linter check with an e2e test: its fixture file and the report count it expects."""

    name: str
    fixture: str  # path in the kube-linter repository
    reports: int | None


@dataclass(frozen=True)
class CheckScore:
    check: str
    rules: tuple[str, ...]
    expected: frozenset[str]
    flagged: frozenset[str]
    rendered: bool

    @property
    def true_positives(self) -> int:
        return len(self.expected & self.flagged)

    @property
    def false_positives(self) -> int:
        return len(self.flagged - self.expected)

    @property
    def false_negatives(self) -> int:
        return len(self.expected - self.flagged)


def clone_bundle(dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(BUNDLE), str(dest)], check=True, capture_output=True)
    return dest


def linter_checks(clone: Path) -> dict[str, LinterCheck]:
    """The checks of kube-linter's e2e tests that name one `--include` check and a fixture file."""
    text = (clone / "e2etests" / "bats-tests.sh").read_text(encoding="utf-8")
    starts = list(_TEST.finditer(text))
    found: dict[str, LinterCheck] = {}
    for index, match in enumerate(starts):
        block = text[
            match.end() : starts[index + 1].start() if index + 1 < len(starts) else len(text)
        ]
        fixture = re.search(r'tmp="([^"]+)"', block)
        include = re.search(r"--include (\S+)", block)
        count = re.search(r'"\$\{count\}" == "(\d+)"', block)
        name = include.group(1) if include else match.group(1)
        if fixture and (clone / fixture.group(1)).is_file():
            found[name] = LinterCheck(
                name, fixture.group(1), int(count.group(1)) if count else None
            )
    return found


def published_checks(clone: Path) -> list[str]:
    """Every check kube-linter documents (docs/generated/checks.md)."""
    text = (clone / "docs" / "generated" / "checks.md").read_text(encoding="utf-8")
    return re.findall(r"^## (\S+)", text, re.M)


def expectations() -> dict:
    return yaml.safe_load(EXPECTATIONS.read_text(encoding="utf-8"))


def chart_path(check: str) -> str:
    return f"charts/{check}"


def build_repository(
    clone: Path, dest: Path, checks: dict[str, LinterCheck], names: list[str]
) -> tuple[Path, str]:
    """A repository whose head adds one chart per check, its fixture as the chart's only template."""
    repo = make_repo(dest, "kubelinter")
    base = commit(repo, {"README.md": "kube-linter fixtures\n"}, "chore: base")
    files: dict[str, str] = {}
    for name in names:
        prefix = chart_path(name)
        files[f"{prefix}/Chart.yaml"] = f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n"
        files[f"{prefix}/templates/objects.yaml"] = (clone / checks[name].fixture).read_text(
            encoding="utf-8"
        )
    commit(repo, files, "feat: kube-linter fixtures")
    return repo, base


def fixture_objects(text: str) -> list[tuple[str, str, str]]:
    """(group, kind, name) of each document of a fixture, as kube-linter reads it."""
    out = []
    for doc in yaml.safe_load_all(text):
        if isinstance(doc, dict):
            group = str(doc.get("apiVersion", "")).rpartition("/")[0]
            out.append(
                (
                    group,
                    str(doc.get("kind", "")),
                    str((doc.get("metadata") or {}).get("name") or ""),
                )
            )
    return out


def expected_objects(text: str, fire: list[str] | None) -> frozenset[str]:
    if fire is not None:
        return frozenset(fire)
    return frozenset(
        f"{kind}/{name}"
        for _, kind, name in fixture_objects(text)
        if not name.startswith("dont-fire")
    )


def flagged_objects(
    findings: list[Finding], chart: str, spec: dict, expected: frozenset[str]
) -> frozenset[str]:
    """The objects of `chart` that the check's rules flag (at its severities, if it names some), as Kind/name
    (group/Kind/name where `expected` names the group)."""
    out = set()
    severities = spec.get("severity")
    for finding in findings:
        if finding.rule_id not in spec["rules"] or finding.subject.kind is not SubjectKind.OBJECT:
            continue
        if severities and finding.severity.value not in severities:
            continue
        install, _, key = finding.subject.id.partition("::")
        if install != chart:
            continue
        group, kind, _, name = key.split("/", 3)
        grouped = f"{'' if group == 'core' else group}/{kind}/{name}"
        out.add(grouped if grouped in expected else f"{kind}/{name}")
    return frozenset(out)


def run_conformance(clone: Path, work: Path, renderer) -> tuple[list[CheckScore], dict]:
    """Review every mapped check's fixture and score it; also returns the expectations read, with the
    messages of rules that failed on them under `rule_errors`."""
    checks, wanted = linter_checks(clone), expectations()
    mapped = {name: spec for name, spec in wanted["mapped"].items() if name in checks}
    repo, base = build_repository(clone, work, checks, sorted(mapped))
    result = review_change(
        ReviewRequest(repo=repo, base=base, run_tests=False, max_scenarios=1), renderer
    )
    findings = list(result.judgement.findings)
    wanted["rule_errors"] = [f.message for f in findings if f.rule_id == RULE_ERROR_ID]
    rendered = {c.chart for c in result.review.chart_reviews if c.head_objects}
    scores = []
    for name, spec in sorted(mapped.items()):
        rules = tuple(spec["rules"])
        expected = expected_objects(
            (clone / checks[name].fixture).read_text(encoding="utf-8"), spec.get("fire")
        )
        flagged = flagged_objects(findings, chart_path(name), spec, expected)
        scores.append(CheckScore(name, rules, expected, flagged, chart_path(name) in rendered))
    return scores, wanted


def totals(scores: list[CheckScore]) -> tuple[float, float]:
    """(recall, precision) over all scored checks, counting objects."""
    tp = sum(s.true_positives for s in scores)
    fn = sum(s.false_negatives for s in scores)
    fp = sum(s.false_positives for s in scores)
    return tp / max(tp + fn, 1), tp / max(tp + fp, 1)
