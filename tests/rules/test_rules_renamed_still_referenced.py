"""renamed-still-referenced against real renders: a migration Job renamed under the init container
that waits for it by name (sapcc's archer, bc72ed2122, fixed by hand a week later in 45c35ca504)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.interface import Renderer
from aftershock.rules.workloads.renamed_still_referenced import _mentions
from charts import chart_yaml
from gitrepo import commit, make_repo

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migration-{{ .Values.image.tag%s }}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: "example/archer:{{ .Values.image.tag }}"
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-api
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      initContainers:
        - name: wait-for-migration
          image: example/entrypoint:1.0
          env:
            - name: DEPENDENCY_JOBS
              value: {{ .Release.Name }}-migration-{{ .Values.image.tag%s }}
      containers:
        - name: api
          image: "example/archer:{{ .Values.image.tag }}"
          args: ["--migrations-from={{ .Release.Name }}-cache"]
"""
SANITISED = ' | replace "." "-"'


def _review(tmp_path: Path, renderer: Renderer, tag: str, deployment_follows: bool) -> list:
    repo = make_repo(tmp_path)
    files = {
        "archer/Chart.yaml": chart_yaml("archer"),
        "archer/values.yaml": f'image:\n  tag: "{tag}"\n',
        "archer/templates/job.yaml": JOB % "",
        "archer/templates/deployment.yaml": DEPLOYMENT % "",
    }
    base = commit(repo, files, "feat: archer")
    head_files = {"archer/templates/job.yaml": JOB % SANITISED}
    if deployment_follows:
        head_files["archer/templates/deployment.yaml"] = DEPLOYMENT % SANITISED
    commit(repo, head_files, "fix(archer): normalize migration Job name from image tag")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    return [f for f in result.judgement.findings if f.rule_id == "renamed-still-referenced"]


def test_a_job_renamed_under_the_init_container_waiting_for_it_is_found(tmp_path, renderer):
    (found,) = _review(tmp_path, renderer, "1.2.3", deployment_follows=False)
    assert found.severity.value == "medium"
    assert (
        "still names Job release-migration-1.2.3 in DEPENDENCY_JOBS of init container"
        in found.message
    )
    assert "the change renames to release-migration-1-2-3" in found.message
    assert found.location is not None
    assert found.location.file == "archer/templates/deployment.yaml"
    assert (
        found.location.line
        == DEPLOYMENT.splitlines().index("            - name: DEPENDENCY_JOBS") + 1
    )


def test_no_finding_when_the_reference_is_renamed_with_it(tmp_path, renderer):
    assert _review(tmp_path, renderer, "1.2.3", deployment_follows=True) == []


def test_a_tag_without_dots_shows_it_in_the_value_the_edit_acts_on(tmp_path, renderer):
    """The chart's own tag has no dot, so its defaults render the same Job; the value probe that makes
    the edit act renames the Job, and the stale reference shows there."""
    found = _review(tmp_path, renderer, "latest", deployment_follows=False)
    assert found and all("scenario probe:image.tag=" in f.message for f in found)


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("archer-migration", True),
        ("archer-setup,archer-migration", True),
        ("archer-migration:5432", True),
        ("archer-migration.db.svc.cluster.local", True),
        ("http://archer-migration/health", True),
        ("--wait-for=archer-migration", True),
        ("archer-migration-2", False),  # another, longer name
        ("old-archer-migration", False),
        ("x.archer-migration", False),  # a host under another domain
        ("nothing here", False),
    ],
)
def test_a_name_is_found_whole_in_text(value: str, named: bool) -> None:
    assert _mentions(value, "archer-migration") is named
