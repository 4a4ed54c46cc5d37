"""The GitHub Action's entry point: review the workflow's pull request, or record the default branch's baseline.

    python -m aftershock.server.action --fail-on high --sarif "$RUNNER_TEMP/aftershock.sarif" --state DB

On a pull request it reviews merge-base(base, head)..head of the checked-out repository (checked out
with `fetch-depth: 0`), recorded in the state database `--state` under `pr:N` (the action carries it
between runs in its cache), posts the sticky comment and writes SARIF. On a push to the default
branch it writes SARIF of the whole tree (every file as added), the baseline code scanning compares
pull requests with, and posts nothing. Exit statuses are `aftershock.model.errors`: 0, 4 when the merge
risk reaches `--fail-on`, 3 when parts were not reviewed, 2 on bad input, 1 on an internal error.
A comment the token may not write (a pull request from a fork) is a warning, not a failure. Outputs
go to GITHUB_OUTPUT, a summary to GITHUB_STEP_SUMMARY.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path

import httpx

from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.synthetic import whole_tree_range
from aftershock.model.errors import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_RISK,
    AftershockError,
    ConfigError,
)
from aftershock.model.review import Review, is_chart_cache_gap
from aftershock.model.state_lifecycle import Lifecycle
from aftershock.pipeline import ReviewRequest, open_renderer, review_change
from aftershock.pipeline.config_defaults import config_at_base, with_config_defaults
from aftershock.pipeline.state import StateOptions, review_with_state
from aftershock.render.caching.cache import open_render_cache
from aftershock.render.interface import Renderer
from aftershock.server.action_event import ActionEvent, ActionKind, read_event
from aftershock.server.assess import Assessment, assess, reaches
from aftershock.server.github.github_api import GitHubClient, GitHubError
from aftershock.server.publish import Publication, check_output, publish_review
from aftershock.server.settings import DEFAULT_API_URL, RISK_LEVELS

EXIT_ERROR = EXIT_BAD_INPUT  # the name earlier callers import
_CACHE_BYTES = 512 * 2**20


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m aftershock.server.action")
    parser.add_argument(
        "--fail-on", choices=RISK_LEVELS, default="high", help="merge risk that fails the job"
    )
    parser.add_argument("--sarif", default=None, help="write SARIF 2.1.0 to this file")
    parser.add_argument("--no-comment", action="store_true", help="do not post the sticky comment")
    parser.add_argument(
        "--repo", default=None, help="the checked-out repository [default: GITHUB_WORKSPACE]"
    )
    parser.add_argument(
        "--state", default=None, help="review-state database carried between runs [default: none]"
    )
    parser.add_argument(
        "--render-cache", default=None, help="folder of the render cache [default: none]"
    )
    parser.add_argument(
        "--chart-cache",
        default=None,
        help="folder of chart archives (`charts fetch`) [default: none]",
    )
    parser.add_argument(
        "--fail-on-chart-gaps",
        action="store_true",
        help="a part not reviewed for want of a chart from outside the repository fails the job too",
    )
    parser.add_argument("--render-timeout", type=float, default=60.0)
    parser.add_argument("--kube-version", default=None)
    return parser.parse_args(argv)


def _renderer(stack: ExitStack, args: argparse.Namespace) -> Renderer:
    cache = open_render_cache(Path(args.render_cache), _CACHE_BYTES) if args.render_cache else None
    return stack.enter_context(
        open_renderer("sdk", timeout_seconds=args.render_timeout, cache=cache)
    )


def _configured(repo: Path, base: str, head: str, args: argparse.Namespace) -> ReviewRequest:
    """The review of base..head with the action's inputs, and the `review:` options of the
    configuration at the base ref under them."""
    chart_cache = Path(args.chart_cache) if args.chart_cache else None
    request = ReviewRequest(
        repo=repo, base=base, head=head, kube_version=args.kube_version, chart_cache=chart_cache
    )
    explicit = frozenset({"kube_version"} if args.kube_version else ())
    return with_config_defaults(request, config_at_base(request).review, explicit)


def _review_pull(
    repo_path: Path, event: ActionEvent, args: argparse.Namespace
) -> tuple[Review, Assessment, Lifecycle | None]:
    repo = GitRepository.open(repo_path)
    try:
        base = repo.merge_base(event.base_tip, event.head)
    except AftershockError:
        raise ConfigError(
            f"the base {event.base_tip[:7]} or head {event.head[:7]} is not in the checkout",
            where=str(repo_path),
            hint="check out with actions/checkout and `fetch-depth: 0`",
        ) from None
    request = _configured(repo_path, base, event.head, args)
    with ExitStack() as stack:
        renderer = _renderer(stack, args)
        if args.state is None:
            result = review_change(request, renderer)
            return result.review, assess(result), None
        stateful = review_with_state(
            request, renderer, None, StateOptions(args.state, f"pr:{event.number}")
        )
        return stateful.result.review, assess(stateful.result), stateful.lifecycle


def _review_baseline(
    repo_path: Path, event: ActionEvent, args: argparse.Namespace
) -> tuple[Review, Assessment]:
    """The whole tree at the pushed commit, every file as added: what code scanning compares pull requests with."""
    base, head = whole_tree_range(GitRepository.open(repo_path), event.head)
    request = _configured(repo_path, base, head, args)
    with ExitStack() as stack:
        result = review_change(request, _renderer(stack, args))
    return result.review, assess(result)


def _comment(
    env: Mapping[str, str],
    number: int,
    review: Review,
    assessment: Assessment,
    lifecycle: Lifecycle | None,
    fail_on: str,
) -> None:
    token, repository = env.get("GITHUB_TOKEN", ""), env.get("GITHUB_REPOSITORY", "")
    if not token or not repository:
        print(
            "::warning::no GITHUB_TOKEN or GITHUB_REPOSITORY: the review comment was not posted",
            file=sys.stderr,
        )
        return
    # chat commands are answered by the App (`aftershock serve`) only, so the Action's comment offers none
    publication = Publication(repository, number, fail_on, "aftershock", commands=False)
    with httpx.Client(timeout=30.0) as http:
        client = GitHubClient(env.get("GITHUB_API_URL", DEFAULT_API_URL), token, http)
        try:
            publish_review(client, publication, review, assessment, lifecycle, None)
        except GitHubError as error:
            if error.status not in (403, 404):
                raise
            print(
                f"::warning::the review comment was not posted ({error.line()}); a pull request from a fork "
                "gets a read-only token",
                file=sys.stderr,
            )


def _outputs(
    env: Mapping[str, str], review: Review, assessment: Assessment, sarif: str | None, mode: str
) -> None:
    values = {
        "merge-risk": assessment.verdicts.merge.level.value,
        "security-risk": assessment.verdicts.security.level.value,
        "actionable": str(assessment.verdicts.actionable),
        "complete": str(review.complete).lower(),
        "sarif-file": sarif or "",
        "mode": mode,
    }
    _write_outputs(env, values)
    if env.get("GITHUB_STEP_SUMMARY"):
        output = check_output(review, assessment)
        with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as stream:
            stream.write(f"## aftershock · {output['title']}\n\n{output['summary']}\n")


def _write_outputs(env: Mapping[str, str], values: Mapping[str, str]) -> None:
    if env.get("GITHUB_OUTPUT"):
        with open(env["GITHUB_OUTPUT"], "a", encoding="utf-8") as stream:
            stream.writelines(f"{key}={value}\n" for key, value in values.items())


def _status(
    review: Review, assessment: Assessment, fail_on: str, chart_gaps_fail: bool = False
) -> int:
    merge = assessment.verdicts.merge
    print(f"aftershock: {merge.title}; {assessment.verdicts.headline}")
    for part in review.not_reviewed:
        print(f"::warning::aftershock: not reviewed: {part.part}: {part.reason}", file=sys.stderr)
    # a chart the cache lacks is the runner's network, not the change: said, and failing only if asked
    failing = [
        p for p in review.not_reviewed if chart_gaps_fail or not is_chart_cache_gap(p.reason)
    ]
    if failing:
        return EXIT_PARTIAL  # as `aftershock review`: an incomplete review is never called clean
    if reaches(merge.level, fail_on):
        print(
            f"::error::merge risk {merge.level.value} reaches --fail-on {fail_on}", file=sys.stderr
        )
        return EXIT_RISK
    return EXIT_OK


def _act(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    event = read_event(env)
    repo_path = Path(args.repo or env.get("GITHUB_WORKSPACE") or ".")
    if event.kind is ActionKind.SKIP:
        print(f"aftershock: nothing to review: {event.reason}")
        _write_outputs(env, {"mode": ActionKind.SKIP.value, "sarif-file": ""})
        return EXIT_OK
    lifecycle = None
    if event.kind is ActionKind.BASELINE:
        review, assessment = _review_baseline(repo_path, event, args)
    else:
        review, assessment, lifecycle = _review_pull(repo_path, event, args)
    if args.sarif:
        Path(args.sarif).write_text(json.dumps(assessment.sarif, indent=2) + "\n", encoding="utf-8")
    if event.kind is ActionKind.PULL_REQUEST and not args.no_comment:
        _comment(env, event.number, review, assessment, lifecycle, args.fail_on)
    _outputs(env, review, assessment, args.sarif, event.kind.value)
    return _status(review, assessment, args.fail_on, args.fail_on_chart_gaps)


def run(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    args = _arguments(argv)
    env = os.environ if env is None else env
    try:
        return _act(args, env)
    except AftershockError as error:
        print(f"aftershock: error: {error.line()}", file=sys.stderr)
        return error.exit_code
    except Exception as error:
        if env.get("AFTERSHOCK_DEBUG") or env.get("RUNNER_DEBUG") == "1":
            raise
        print(
            f"aftershock: internal error: {type(error).__name__}: {error}; set AFTERSHOCK_DEBUG=1 for the traceback",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(run())
