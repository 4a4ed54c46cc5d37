"""GitHub App authentication: a short-lived RS256 JWT, exchanged for installation tokens that are cached.

An installation token lives an hour; it is reused until five minutes before it expires, so a
review that starts with a cached token still has time to finish its API calls and its clone.
The Action uses a `StaticToken` (the workflow's GITHUB_TOKEN) instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

import httpx
import jwt

from aftershock.server.github.github_api import (
    API_HEADERS,
    GitHubClient,
    GitHubError,
    RetryPolicy,
    check_response,
    send,
)
from aftershock.server.settings import AppCredentials

JWT_LIFETIME_SECONDS = 540  # GitHub accepts at most 10 minutes
JWT_CLOCK_SKEW_SECONDS = 60
TOKEN_REFRESH_MARGIN_SECONDS = 300


class TokenSource(Protocol):
    def token(self, installation_id: int | None) -> str: ...


class StaticToken:
    """One token for every request (the Action's GITHUB_TOKEN)."""

    def __init__(self, token: str) -> None:
        self._token = token

    def token(self, installation_id: int | None) -> str:
        return self._token


def app_jwt(credentials: AppCredentials, now: float | None = None) -> str:
    """The App's JWT: issued a minute in the past (clock skew), valid nine minutes."""
    issued = int(now if now is not None else time.time()) - JWT_CLOCK_SKEW_SECONDS
    claims = {"iat": issued, "exp": issued + JWT_LIFETIME_SECONDS, "iss": credentials.app_id}
    try:
        return jwt.encode(claims, credentials.private_key_pem, algorithm="RS256")
    except (ValueError, TypeError, jwt.PyJWTError) as error:
        raise GitHubError(
            f"cannot sign the App's JWT: {error}", hint="check AFTERSHOCK_PRIVATE_KEY_FILE"
        ) from None


class InstallationTokens:
    """Installation tokens by installation id, fetched with the App's JWT and cached until near expiry."""

    def __init__(
        self,
        api_url: str,
        credentials: AppCredentials,
        http: httpx.Client,
        clock: Callable[[], float] = time.time,
        retry: RetryPolicy = RetryPolicy(),
    ) -> None:
        self._api_url = api_url.rstrip("/")
        self._retry = retry
        self._credentials = credentials
        self._http = http
        self._clock = clock
        self._cache: dict[int, tuple[str, float]] = {}
        self._guard = threading.Lock()
        self.exchanges = 0  # how many tokens were asked for (observability, tests)

    def token(self, installation_id: int | None) -> str:
        if installation_id is None:
            raise GitHubError(
                "the delivery names no App installation", hint="install the App on the repository"
            )
        with self._guard:
            cached = self._cache.get(installation_id)
            if cached and cached[1] - TOKEN_REFRESH_MARGIN_SECONDS > self._clock():
                return cached[0]
            token, expires_at = self._exchange(installation_id)
            self._cache[installation_id] = (token, expires_at)
            return token

    def _exchange(self, installation_id: int) -> tuple[str, float]:
        url = f"{self._api_url}/app/installations/{installation_id}/access_tokens"
        headers = {**API_HEADERS, "Authorization": f"Bearer {app_jwt(self._credentials)}"}
        response = send(
            self._http, "POST", url, "an installation token", self._retry, headers=headers
        )
        check_response(response, "installation token")
        self.exchanges += 1
        data = response.json()
        return str(data["token"]), _expiry(str(data.get("expires_at") or ""), self._clock())


def _expiry(text: str, now: float) -> float:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return now + 3600  # GitHub's documented lifetime when the answer has no readable time


class GitHubAccess:
    """API clients and git tokens for an installation, on one HTTP connection pool."""

    def __init__(
        self,
        api_url: str,
        tokens: TokenSource,
        http: httpx.Client,
        app_id: str | None = None,
        retry: RetryPolicy = RetryPolicy(),
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.retry = retry
        self.tokens = tokens
        self.http = http
        self.app_id = app_id  # the GitHub App acting (None with a plain token)

    def token(self, installation_id: int | None) -> str:
        return self.tokens.token(installation_id)

    def client(self, installation_id: int | None) -> GitHubClient:
        return GitHubClient(
            self.api_url,
            self.token(installation_id),
            self.http,
            app_id=self.app_id,
            retry=self.retry,
        )

    def close(self) -> None:
        self.http.close()


def github_access(
    api_url: str,
    credentials: AppCredentials | None,
    token: str | None = None,
    timeout_seconds: float = 30.0,
    retry: RetryPolicy = RetryPolicy(),
) -> GitHubAccess:
    """Access as the App (JWT exchanged for installation tokens) or, for the Action, with one token."""
    http = httpx.Client(timeout=timeout_seconds, follow_redirects=False)
    if credentials is not None:
        tokens = InstallationTokens(api_url, credentials, http, retry=retry)
        return GitHubAccess(api_url, tokens, http, app_id=credentials.app_id, retry=retry)
    if token:
        return GitHubAccess(api_url, StaticToken(token), http, retry=retry)
    http.close()
    raise GitHubError(
        "no GitHub credentials", hint="set AFTERSHOCK_APP_ID and AFTERSHOCK_PRIVATE_KEY_FILE"
    )
