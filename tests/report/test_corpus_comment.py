"""The pull-request comment on five real traefik commits: a values change, a template change, a version
bump, a tests-only and a docs-only commit, each reviewed as `sha^..sha` with its tests, as the Action would.

Each comment stays under GitHub's 65,536 characters, holds the verdicts and their reasons in its first
40 lines and lists the concerns; the comments are snapshots (AFTERSHOCK_UPDATE_SNAPSHOTS=1 rewrites them).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_report_comment import COMMENTS, assert_reads_well

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from conftest import CORPUS
from gitrepo import git

BUNDLE = CORPUS / "traefik-helm-chart.bundle"
COMMITS = {
    "d52d20a6d4e987cd46e24f4816c638e3707d876e": "values default: TLS on websecure",
    "4a974f433d90b1e442732dded272379dedd1d176": "template: the IngressClass loses its namespace",
    "a8a66d0098703627b2cf352c66b1725c196a734a": "chart version bump 41.2.0 -> 41.3.0",
    "8dd13b4aaa3a4b146c0481e48a758b1063d837e9": "tests only",
    "d09024afd3423c4b292d2cb052643f241231ced7": "docs only",
}

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not BUNDLE.is_file(), reason=f"corpus bundle {BUNDLE} is absent"),
]


@pytest.fixture(scope="module")
def traefik_repo(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("corpus") / "traefik-helm-chart"
    git(dest.parent, "clone", "-q", str(BUNDLE), str(dest))
    return dest


@pytest.mark.parametrize("sha", list(COMMITS), ids=[s[:8] for s in COMMITS])
def test_the_comment_on_a_real_commit_reads_well_and_fits(traefik_repo, renderer, sha):
    result = review_change(ReviewRequest(repo=traefik_repo, base=f"{sha}^", head=sha), renderer)
    doc = review_document(result.review, result.judgement)
    text = render_markdown(doc)
    assert_reads_well(text, doc)
    path = COMMENTS / f"traefik-{sha[:8]}.md"
    if os.environ.get("AFTERSHOCK_UPDATE_SNAPSHOTS"):
        path.write_text(text)
    assert text == path.read_text()
