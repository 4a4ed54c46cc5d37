"""What a review is asked to do (`ReviewRequest`): the repository, the refs, and every bound and
option of the review, as the CLI, the server and the tests give them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from aftershock.ingest.suite_files import SuitePatterns
from aftershock.model.tests import BaseTests
from aftershock.pipeline.observation.budget import LateSteps
from aftershock.pipeline.observation.override_trap import DEFAULT_MAX_PROBE_RENDERS
from aftershock.pipeline.observation.provenance import DEFAULT_MAX_RENDERS
from aftershock.render.budget import DEFAULT_DEADLINE_SECONDS, DEFAULT_MAX_REVIEW_RENDERS


@dataclass(frozen=True)
class ReviewRequest:
    repo: Path
    head: str = "HEAD"
    base: str | None = None
    release_name: str | None = (
        None  # given: overrides every chart's context; else the context's, or "release"
    )
    namespace: str | None = None  # likewise; else "default"
    kube_version: str | None = None
    max_file_bytes: int = 5 * 2**20
    max_scenarios: int = 6  # per chart, the default scenario included
    run_tests: bool = True  # run the affected charts' helm-unittest suites at base and head
    base_tests: BaseTests = "needed"  # "all": every base outcome, for newly passing tests too
    max_provenance_renders: int = (
        DEFAULT_MAX_RENDERS  # perturbation renders that settle field provenance
    )
    max_override_renders: int = (
        DEFAULT_MAX_PROBE_RENDERS  # override-trap probe renders, base and head together
    )
    config_file: Path | None = None  # else `.aftershock.yaml` at the base ref
    since: str | None = (
        None  # incremental: render only the charts affected by since..head (a commit)
    )
    deadline_seconds: float = (
        DEFAULT_DEADLINE_SECONDS  # for the whole review; what it cuts is not reviewed
    )
    max_renders: int = (
        DEFAULT_MAX_REVIEW_RENDERS  # renders the review may schedule, tests and probes included
    )
    chart_cache: Path | None = (
        None  # external chart archives; else `chart_cache:` of the configuration
    )
    fetch_charts: bool = False  # download a missing external chart archive over HTTP
    # time each stage's CPU with the running render workers' too (a scan of /proc at each stage:
    # `--profile` and the benchmarks ask for it; a review without it counts its own and git's)
    profile: bool = False


def release_name_of(request: ReviewRequest) -> str:
    return request.release_name or "release"


def namespace_of(request: ReviewRequest) -> str:
    return request.namespace or "default"


def late_steps(request: ReviewRequest, suites: Mapping[str, SuitePatterns]) -> LateSteps:
    return LateSteps(
        request.run_tests,
        request.max_provenance_renders,
        request.max_override_renders,
        suites,
        request.base_tests,
    )
