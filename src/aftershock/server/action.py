"""The GitHub Action's entry point: review the workflow's pull request, post the sticky comment, write SARIF.

    python -m aftershock.server.action --fail-on high --sarif "$RUNNER_TEMP/aftershock.sarif"

It reads the event from GITHUB_EVENT_PATH, reviews merge-base(base, head)..head of the checked-out
repository (checked out with `fetch-depth: 0`), and exits 0, 1 when the merge risk reaches
`--fail-on`, or 2 on an error. A comment the token may not write (a pull request from a fork) is a
warning, not a failure. Outputs go to GITHUB_OUTPUT, a summary to GITHUB_STEP_SUMMARY.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

import httpx

from aftershock.errors import AftershockError, ConfigError
from aftershock.ingest.git import GitRepository
from aftershock.model.review import Review
from aftershock.pipeline import ReviewRequest, open_renderer, review_change
from aftershock.server.assess import Assessment, assess, reaches
from aftershock.server.github_api import GitHubClient, GitHubError
from aftershock.server.publish import Publication, check_output, publish_review
from aftershock.server.settings import DEFAULT_API_URL, RISK_LEVELS

EXIT_OK, EXIT_RISK, EXIT_ERROR = 0, 1, 2


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m aftershock.server.action")
    parser.add_argument("--fail-on", choices=RISK_LEVELS, default="high", help="merge risk that fails the job")
    parser.add_argument("--sarif", default=None, help="write SARIF 2.1.0 to this file")
    parser.add_argument("--no-comment", action="store_true", help="do not post the sticky comment")
    parser.add_argument("--repo", default=None, help="the checked-out repository [default: GITHUB_WORKSPACE]")
    parser.add_argument("--render-timeout", type=float, default=60.0)
    parser.add_argument("--kube-version", default=None)
    return parser.parse_args(argv)


def _pull_request(env: Mapping[str, str]) -> dict[str, Any]:
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        raise ConfigError("GITHUB_EVENT_PATH is not set", hint="run this inside a GitHub Actions workflow")
    event = json.loads(Path(path).read_text(encoding="utf-8"))
    pull = event.get("pull_request")
    if not isinstance(pull, dict):
        raise ConfigError("the workflow event is not a pull request", where=path,
                          hint="trigger the workflow with `on: pull_request`")
    return pull


def _review(repo_path: Path, pull: dict[str, Any], args: argparse.Namespace) -> tuple[Review, Assessment]:
    repo = GitRepository.open(repo_path)
    head, base_tip = pull["head"]["sha"], pull["base"]["sha"]
    try:
        base = repo.merge_base(base_tip, head)
    except AftershockError:
        raise ConfigError(f"the base {base_tip[:7]} or head {head[:7]} is not in the checkout", where=str(repo_path),
                          hint="check out with actions/checkout and `fetch-depth: 0`") from None
    with open_renderer("sdk", timeout_seconds=args.render_timeout) as renderer:
        result = review_change(ReviewRequest(repo=repo_path, base=base, head=head, kube_version=args.kube_version), renderer)
    return result.review, assess(result)


def _comment(env: Mapping[str, str], pull: dict[str, Any], review: Review, assessment: Assessment, fail_on: str) -> None:
    token, repository = env.get("GITHUB_TOKEN", ""), env.get("GITHUB_REPOSITORY", "")
    if not token or not repository:
        print("::warning::no GITHUB_TOKEN or GITHUB_REPOSITORY: the review comment was not posted", file=sys.stderr)
        return
    publication = Publication(repository, int(pull["number"]), fail_on, "aftershock")
    with httpx.Client(timeout=30.0) as http:
        client = GitHubClient(env.get("GITHUB_API_URL", DEFAULT_API_URL), token, http)
        try:
            publish_review(client, publication, review, assessment, None, None)
        except GitHubError as error:
            if error.status not in (403, 404):
                raise
            print(f"::warning::the review comment was not posted ({error.line()}); a pull request from a fork "
                  "gets a read-only token", file=sys.stderr)


def _outputs(env: Mapping[str, str], review: Review, assessment: Assessment, sarif: str | None) -> None:
    values = {
        "merge-risk": assessment.verdicts.merge.level.value, "security-risk": assessment.verdicts.security.level.value,
        "actionable": str(assessment.verdicts.actionable), "complete": str(review.complete).lower(), "sarif-file": sarif or "",
    }
    if env.get("GITHUB_OUTPUT"):
        with open(env["GITHUB_OUTPUT"], "a", encoding="utf-8") as stream:
            stream.writelines(f"{key}={value}\n" for key, value in values.items())
    if env.get("GITHUB_STEP_SUMMARY"):
        output = check_output(review, assessment)
        with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as stream:
            stream.write(f"## aftershock · {output['title']}\n\n{output['summary']}\n")


def run(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    args = _arguments(argv)
    env = os.environ if env is None else env
    try:
        pull = _pull_request(env)
        review, assessment = _review(Path(args.repo or env.get("GITHUB_WORKSPACE") or "."), pull, args)
        if args.sarif:
            Path(args.sarif).write_text(json.dumps(assessment.sarif, indent=2) + "\n", encoding="utf-8")
        if not args.no_comment:
            _comment(env, pull, review, assessment, args.fail_on)
        _outputs(env, review, assessment, args.sarif)
    except AftershockError as error:
        print(f"aftershock: error: {error.line()}", file=sys.stderr)
        return EXIT_ERROR
    merge = assessment.verdicts.merge
    print(f"aftershock: {merge.title}; {assessment.verdicts.headline}")
    if reaches(merge.level, args.fail_on):
        print(f"::error::merge risk {merge.level.value} reaches --fail-on {args.fail_on}", file=sys.stderr)
        return EXIT_RISK
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(run())
