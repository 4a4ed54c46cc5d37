"""The review options the repository's configuration sets (`review:` in `.aftershock.yaml`, read at the
base ref like the rest of it), applied under the options the command line gave explicitly."""

from __future__ import annotations

from dataclasses import replace

from aftershock.config.settings import CONFIG_FILE_NAME, AftershockConfig, ReviewDefaults
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.pipeline.judge import review_config
from aftershock.pipeline.review import ReviewRequest, base_ref

# ReviewRequest field -> the `review:` setting that fills it when the command line did not
_REQUEST_FIELDS = {
    "release_name": "release_name",
    "namespace": "namespace",
    "kube_version": "kube_version",
    "max_scenarios": "max_scenarios",
    "run_tests": "tests",
    "base_tests": "base_tests",
}


def config_at_base(request: ReviewRequest) -> AftershockConfig:
    """The configuration the review of `request` will use: `--config FILE`, else the file at the base ref."""
    repo = GitRepository.open(request.repo)
    base = base_ref(repo, request, repo.resolve(request.head))
    label = f"base {base.sha[:7]}"
    # the one file, unless it is a link (its target may be anywhere in the tree)
    with RefSnapshot.open(
        repo, base.sha, label, request.max_file_bytes, only=(CONFIG_FILE_NAME,)
    ) as tree:
        if tree.symlink_target(CONFIG_FILE_NAME) is None:
            return review_config(request.config_file, tree)[0]
    with RefSnapshot.open(repo, base.sha, label, request.max_file_bytes) as tree:
        return review_config(request.config_file, tree)[0]


def with_config_defaults(
    request: ReviewRequest, defaults: ReviewDefaults, explicit: frozenset[str]
) -> ReviewRequest:
    """`request` with each option the command line left at its default taken from `defaults`, when set."""
    changes = {}
    for field, setting in _REQUEST_FIELDS.items():
        value = getattr(defaults, setting)
        if value is not None and field not in explicit:
            changes[field] = value
    return replace(request, **changes)
