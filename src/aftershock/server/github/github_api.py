"""The GitHub REST calls aftershock makes, on a configurable API base URL (github.com, Enterprise, loopback).

Every call is one method; failures become a one-line GitHubError naming the call and GitHub's
message. A call GitHub did not answer (unreachable, timed out) or answered 429/5xx is retried with
exponential backoff up to `RetryPolicy.attempts` times; a POST only when it cannot have been
processed (no connection made, 429 or 503), so a retry never posts a comment twice. The sticky comment is found by a hidden marker in a comment this GitHub App wrote (any
bot's with a plain token), so neither an author nor another app quoting the marker makes us edit
their comment, and there is never a second one.
"""

from __future__ import annotations

import base64
import gzip
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from aftershock.model.errors import AftershockError

API_HEADERS = {
    "Accept": "application/vnd.github+json",
    "X-GitHub-Api-Version": "2022-11-28",
    "User-Agent": "aftershock",
}
MAX_COMMENT_CHARS = 65_000  # GitHub refuses bodies over 65,536 characters
ANNOTATIONS_PER_REQUEST = 50  # the checks API's limit per request
CHECK_RUN_NAME = "aftershock"
WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})
_IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "PATCH", "DELETE"})
_RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
_UNPROCESSED_STATUSES = frozenset({429, 503})  # GitHub did not act on the request
_log = logging.getLogger("aftershock.server")


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries: `attempts` in all, waiting `first_delay_seconds`, doubling, at most `max_delay_seconds`."""

    attempts: int = 4
    first_delay_seconds: float = 0.5
    max_delay_seconds: float = 8.0

    def delay(self, retry: int, response: httpx.Response | None) -> float:
        wait: float = self.first_delay_seconds * 2 ** (retry - 1)
        after = response.headers.get("retry-after", "") if response is not None else ""
        if after.isdigit():
            wait = max(wait, float(after))
        return min(wait, self.max_delay_seconds)


class GitHubError(AftershockError):
    """A GitHub API call failed: the message names the call, the status and GitHub's own words."""

    def __init__(
        self, what: str, *, where: str = "", hint: str = "", status: int | None = None
    ) -> None:
        self.status = status
        super().__init__(what, where=where, hint=hint)


def _retried(method: str, error: httpx.HTTPError | None, status: int | None) -> bool:
    if error is not None:
        unsent = isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout))
        return isinstance(error, httpx.TransportError) and (unsent or method in _IDEMPOTENT)
    return status in (_RETRIED_STATUSES if method in _IDEMPOTENT else _UNPROCESSED_STATUSES)


def send(
    http: httpx.Client, method: str, url: str, what: str, retry: RetryPolicy, **request: Any
) -> httpx.Response:
    """GitHub's answer to one call, retried while it is unreachable or busy; GitHubError once attempts run out."""
    attempt = 1
    while True:
        response, failure = None, None
        try:
            response = http.request(method, url, **request)
        except httpx.HTTPError as error:
            failure = error
        status = response.status_code if response is not None else None
        if attempt >= retry.attempts or not _retried(method, failure, status):
            break
        wait = retry.delay(attempt, response)
        _log.info(
            "GitHub call for %s failed (%s), retry %d in %.2f s",
            what,
            failure or f"HTTP {status}",
            attempt,
            wait,
        )
        time.sleep(wait)
        attempt += 1
    if response is None:
        raise GitHubError(
            f"cannot reach GitHub for {what} ({attempt} attempt(s)): {failure}",
            where=f"{method} {url}",
        )
    return response


def check_response(response: httpx.Response, what: str) -> None:
    if response.is_success:
        return
    try:
        message = str(response.json().get("message") or "")
    except ValueError:
        message = response.text[:200]
    raise GitHubError(
        f"GitHub refused {what}: HTTP {response.status_code} {message}".rstrip(),
        where=f"{response.request.method} {response.request.url}",
        status=response.status_code,
    )


class GitHubClient:
    """REST calls with one token, on `api_url` (e.g. https://api.github.com or https://HOST/api/v3)."""

    def __init__(
        self,
        api_url: str,
        token: str,
        http: httpx.Client,
        *,
        app_id: str | None = None,
        retry: RetryPolicy = RetryPolicy(),
    ) -> None:
        self._api = api_url.rstrip("/")
        self._http = http
        self._retry = retry
        self._headers = {**API_HEADERS, "Authorization": f"Bearer {token}"}
        self._app_id = app_id  # as a GitHub App: its comments are the ones it may edit

    def _call(
        self,
        method: str,
        path: str,
        what: str,
        body: Any = None,
        params: dict[str, Any] | None = None,
    ) -> Any:
        url = path if path.startswith(("http://", "https://")) else f"{self._api}{path}"
        response = send(
            self._http,
            method,
            url,
            what,
            self._retry,
            headers=self._headers,
            json=body,
            params=params,
        )
        check_response(response, what)
        return response.json() if response.content else None

    def _pages(self, path: str, what: str) -> Iterator[dict[str, Any]]:
        url: str | None = f"{self._api}{path}"
        while url:
            params = {"per_page": 100} if "?" not in url else None
            response = send(
                self._http, "GET", url, what, self._retry, headers=self._headers, params=params
            )
            check_response(response, what)
            yield from response.json()
            url = response.links.get("next", {}).get("url")

    def pull_request(self, repository: str, number: int) -> dict[str, Any]:
        return dict(self._call("GET", f"/repos/{repository}/pulls/{number}", "the pull request"))

    def has_write_access(self, repository: str, login: str) -> bool:
        """True when `login` may push to the repository (admin, maintain or write)."""
        try:
            data = self._call(
                "GET",
                f"/repos/{repository}/collaborators/{login}/permission",
                "a collaborator permission",
            )
        except GitHubError as error:
            if error.status == 404:  # not a collaborator at all
                return False
            raise
        return (
            str(data.get("permission", "none")) in WRITE_PERMISSIONS
            or data.get("role_name") in WRITE_PERMISSIONS
        )

    def post_comment(self, repository: str, number: int, body: str) -> int:
        data = self._call(
            "POST",
            f"/repos/{repository}/issues/{number}/comments",
            "a new comment",
            {"body": _fit(body)},
        )
        return int(data["id"])

    def upsert_sticky_comment(self, repository: str, number: int, marker: str, body: str) -> int:
        """Update our comment holding `marker`, or create it; returns the comment id. Ours: written by
        this GitHub App (when acting as one), else by a bot (the Action's token writes as a bot)."""
        for comment in self._pages(
            f"/repos/{repository}/issues/{number}/comments", "the pull request's comments"
        ):
            if self._ours(comment) and marker in (comment.get("body") or ""):
                self._call(
                    "PATCH",
                    f"/repos/{repository}/issues/comments/{comment['id']}",
                    "the review comment",
                    {"body": _fit(body)},
                )
                return int(comment["id"])
        return self.post_comment(repository, number, body)

    def _ours(self, comment: dict[str, Any]) -> bool:
        if self._app_id is not None:
            return str((comment.get("performed_via_github_app") or {}).get("id")) == self._app_id
        return (comment.get("user") or {}).get("type") == "Bot"

    def add_reaction(self, repository: str, comment_id: int, content: str) -> None:
        self._call(
            "POST",
            f"/repos/{repository}/issues/comments/{comment_id}/reactions",
            "a reaction",
            {"content": content},
        )

    def create_check_run(
        self,
        repository: str,
        head_sha: str,
        status: str,
        title: str,
        summary: str,
        *,
        external_id: str | None = None,
    ) -> int:
        """A new check run; `external_id` (the delivery's GUID) lets `find_check_run` find it again."""
        body: dict[str, Any] = {
            "name": CHECK_RUN_NAME,
            "head_sha": head_sha,
            "status": status,
            "output": {"title": title, "summary": summary},
        }
        if external_id is not None:
            body["external_id"] = external_id
        return int(
            self._call("POST", f"/repos/{repository}/check-runs", "a new check run", body)["id"]
        )

    def find_check_run(self, repository: str, head_sha: str, external_id: str) -> int | None:
        """The id of our check run on `head_sha` made with `external_id`, if there is one: what a call
        that created it and then lost the id (the database dropped before it was recorded) made."""
        url: str | None = f"{self._api}/repos/{repository}/commits/{head_sha}/check-runs"
        # filter=all: the default lists only the newest run of each name
        query = {"check_name": CHECK_RUN_NAME, "filter": "all", "per_page": 100}
        params: dict[str, Any] | None = (
            {**query, "app_id": self._app_id} if self._app_id is not None else query
        )
        what = "the commit's check runs"
        while url:
            response = send(
                self._http, "GET", url, what, self._retry, headers=self._headers, params=params
            )
            check_response(response, what)
            for run in response.json().get("check_runs") or []:
                if run.get("external_id") == external_id:
                    return int(run["id"])
            url, params = response.links.get("next", {}).get("url"), None  # the link has them
        return None

    def check_run_for(
        self,
        repository: str,
        head_sha: str,
        external_id: str,
        status: str,
        title: str,
        summary: str,
    ) -> tuple[int, bool]:
        """The check run of `external_id` on `head_sha`, made now if there is none: its id, and
        whether it is new (so a retry never leaves a second run of one review behind)."""
        found = self.find_check_run(repository, head_sha, external_id)
        if found is not None:
            return found, False
        made = self.create_check_run(
            repository, head_sha, status, title, summary, external_id=external_id
        )
        return made, True

    def update_check_run(self, repository: str, check_run_id: int, fields: dict[str, Any]) -> None:
        self._call(
            "PATCH", f"/repos/{repository}/check-runs/{check_run_id}", "a check run update", fields
        )

    def complete_check_run(
        self,
        repository: str,
        check_run_id: int,
        conclusion: str,
        output: dict[str, Any],
        annotations: list[dict[str, Any]],
    ) -> None:
        """Send the annotations 50 at a time (the API's limit), then complete the run with the last batch."""
        batches = [
            annotations[i : i + ANNOTATIONS_PER_REQUEST]
            for i in range(0, len(annotations), ANNOTATIONS_PER_REQUEST)
        ] or [[]]
        for batch in batches[:-1]:
            self.update_check_run(
                repository, check_run_id, {"output": {**output, "annotations": batch}}
            )
        final = {
            "status": "completed",
            "conclusion": conclusion,
            "output": {**output, "annotations": batches[-1]},
        }
        self.update_check_run(repository, check_run_id, final)

    def upload_sarif(
        self, repository: str, commit_sha: str, ref: str, sarif: dict[str, Any]
    ) -> str:
        """Upload SARIF to code scanning (gzip, then base64, as the API wants); returns the upload id."""
        packed = base64.b64encode(gzip.compress(json.dumps(sarif).encode("utf-8"))).decode("ascii")
        body = {"commit_sha": commit_sha, "ref": ref, "sarif": packed, "tool_name": "aftershock"}
        return str(
            self._call(
                "POST", f"/repos/{repository}/code-scanning/sarifs", "a SARIF upload", body
            ).get("id", "")
        )


def _fit(body: str) -> str:
    if len(body) <= MAX_COMMENT_CHARS:
        return body
    note = "\n\n_(cut to fit GitHub's comment size limit; the full report is in the check run and SARIF)_\n"
    return body[: MAX_COMMENT_CHARS - len(note)] + note
