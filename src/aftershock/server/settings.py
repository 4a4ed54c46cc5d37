"""The service's settings: read once from the environment (and command-line options) into a frozen dataclass.

AFTERSHOCK_WEBHOOK_SECRET      the webhook secret (required by `serve`)
AFTERSHOCK_APP_ID              the GitHub App's id
AFTERSHOCK_PRIVATE_KEY         the App's private key (PEM), or AFTERSHOCK_PRIVATE_KEY_FILE, a path to it
AFTERSHOCK_GITHUB_API_URL      default https://api.github.com (GitHub Enterprise: https://HOST/api/v3)
AFTERSHOCK_GITHUB_GIT_URL      where repositories are cloned from [default: derived from the API URL]
AFTERSHOCK_STATE               the state database, a path or a postgresql:// URL
AFTERSHOCK_WORK_DIR            where per-job clones go [default: the system's temporary folder]
AFTERSHOCK_REVIEW_DRAFTS       1 to review draft pull requests too
AFTERSHOCK_UPLOAD_SARIF        1 to upload SARIF to code scanning (needs security_events: write)
AFTERSHOCK_FAIL_ON             merge risk at which the check run fails [default: high]
AFTERSHOCK_MENTION             the name commands address [default: aftershock]
AFTERSHOCK_MAX_BODY_BYTES      the largest delivery accepted [default: 26214400, GitHub's own cap]
AFTERSHOCK_SPOOL_DIR           where deliveries wait while the state database is down, a lasting
                               local folder [default: aftershock-spool in the work folder]
AFTERSHOCK_STATE_ATTEMPTS      tries of a job that loses the state database [default: 5]
AFTERSHOCK_STATE_BACKOFF_SECONDS  the first wait between them; it doubles, up to 30 s [default: 1]
AFTERSHOCK_HEADER_TIMEOUT_SECONDS  a client must send its request's headers within [default: 10]
AFTERSHOCK_BODY_TIMEOUT_SECONDS    and then its body within [default: 30]
AFTERSHOCK_KEEP_ALIVE_SECONDS      an idle kept-alive connection is closed after [default: 5]
AFTERSHOCK_MAX_CONNECTIONS     open connections at most; at the cap a new one displaces the one
                               waiting longest for its request, else is closed [default: 200]
AFTERSHOCK_SPREAD_RENDERS      with a Redis queue: a review's render step of at least this many
                               renders runs as batches on the workers [default: off]
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from aftershock.model.errors import ConfigError

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_MAX_BODY_BYTES = 25 * 2**20
RISK_LEVELS = ("minimal", "low", "medium", "high", "critical", "never")


@dataclass(frozen=True)
class AppCredentials:
    app_id: str
    private_key_pem: str


@dataclass(frozen=True)
class RenderSettings:
    renderer: str = "sdk"
    helm_binary: str = "helm"
    timeout_seconds: float = 60.0
    workers: int | None = 1


@dataclass(frozen=True)
class HttpLimits:
    """How long `serve` waits for a client, and for how many at once (see `server.http`)."""

    header_timeout_seconds: float = 10.0
    body_timeout_seconds: float = 30.0
    keep_alive_seconds: int = 5
    max_connections: int = 200


@dataclass(frozen=True)
class ServiceSettings:
    webhook_secret: bytes
    state: str
    app: AppCredentials | None = None
    api_url: str = DEFAULT_API_URL
    git_url: str = ""  # "" means derived from api_url (see `clone_base`)
    work_dir: Path = Path(tempfile.gettempdir())
    review_drafts: bool = False
    upload_sarif: bool = False
    fail_on: str = "high"
    mention: str = "aftershock"
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    workers: int = 1
    job_timeout_seconds: int = 1800
    github_attempts: int = (
        4  # each GitHub call, retried with backoff while GitHub is unreachable or busy
    )
    github_backoff_seconds: float = 0.5  # the first wait; it doubles, up to 8 s
    reconcile_seconds: float = (
        10.0  # how often deliveries left accepted (queue down) are queued again
    )
    state_attempts: int = 5  # tries of a job whose state database fails (refused, reset, shut down)
    state_backoff_seconds: float = 1.0  # the first wait between them; it doubles, up to 30 s
    spool_dir: Path | None = None  # None: `aftershock-spool` under work_dir
    http: HttpLimits = HttpLimits()
    render: RenderSettings = RenderSettings()
    spread_renders: int = (
        0  # renders of one step from which a worker's review spreads them; 0: never
    )

    @property
    def spool_folder(self) -> Path:
        """Where deliveries wait while the state database is down."""
        return self.spool_dir or self.work_dir / "aftershock-spool"

    @property
    def clone_base(self) -> str:
        """The URL repositories are cloned under: github.com for api.github.com, the host for /api/v3."""
        return (self.git_url or git_url_for(self.api_url)).rstrip("/")

    @property
    def host(self) -> str:
        """The host that names repositories in the state store, e.g. github.com."""
        return (urlsplit(self.clone_base).hostname or "github").lower()

    def repository_key(self, repository: str) -> str:
        """`github.com/owner/name`, as `state.records.normalize_repository` keys a clone of it."""
        return f"{self.host}/{repository}"


def git_url_for(api_url: str) -> str:
    parts = urlsplit(api_url.rstrip("/"))
    if parts.netloc.lower() == "api.github.com":
        return f"{parts.scheme}://github.com"
    path = parts.path.removesuffix("/api/v3")
    return f"{parts.scheme}://{parts.netloc}{path}"


def _flag(env: Mapping[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _private_key(env: Mapping[str, str]) -> str | None:
    if env.get("AFTERSHOCK_PRIVATE_KEY"):
        return env["AFTERSHOCK_PRIVATE_KEY"].replace("\\n", "\n")
    path = env.get("AFTERSHOCK_PRIVATE_KEY_FILE")
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(
            "cannot read the App's private key", where=path, hint=error.strerror or str(error)
        ) from None


def settings_from_environment(
    env: Mapping[str, str] | None = None, *, require_secret: bool = True
) -> ServiceSettings:
    """The settings the environment gives; ConfigError for a missing secret or a bad value."""
    env = os.environ if env is None else env
    secret = env.get("AFTERSHOCK_WEBHOOK_SECRET", "")
    if require_secret and not secret:
        raise ConfigError(
            "AFTERSHOCK_WEBHOOK_SECRET is not set", hint="set it to the GitHub App's webhook secret"
        )
    app_id, key = env.get("AFTERSHOCK_APP_ID", "").strip(), _private_key(env)
    if bool(app_id) != bool(key):
        raise ConfigError(
            "a GitHub App needs both AFTERSHOCK_APP_ID and its private key",
            hint="set AFTERSHOCK_PRIVATE_KEY_FILE to the App's .pem file",
        )
    fail_on = env.get("AFTERSHOCK_FAIL_ON", "high").strip().lower()
    if fail_on not in RISK_LEVELS:
        raise ConfigError(
            f"AFTERSHOCK_FAIL_ON={fail_on!r} is not a risk level",
            hint=f"use one of {', '.join(RISK_LEVELS)}",
        )
    max_body = int(_number(env, "AFTERSHOCK_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, whole=True))
    work_dir = Path(env.get("AFTERSHOCK_WORK_DIR") or tempfile.gettempdir())
    spool = env.get("AFTERSHOCK_SPOOL_DIR", "")
    return ServiceSettings(
        webhook_secret=secret.encode("utf-8"),
        state=env.get("AFTERSHOCK_STATE", "") or str(Path(".aftershock") / "service-state.db"),
        app=AppCredentials(app_id, key) if app_id and key else None,
        api_url=env.get("AFTERSHOCK_GITHUB_API_URL", DEFAULT_API_URL).rstrip("/"),
        git_url=env.get("AFTERSHOCK_GITHUB_GIT_URL", ""),
        work_dir=work_dir,
        review_drafts=_flag(env, "AFTERSHOCK_REVIEW_DRAFTS"),
        upload_sarif=_flag(env, "AFTERSHOCK_UPLOAD_SARIF"),
        fail_on=fail_on,
        mention=env.get("AFTERSHOCK_MENTION", "aftershock").strip().lstrip("@") or "aftershock",
        max_body_bytes=max_body,
        state_attempts=int(_number(env, "AFTERSHOCK_STATE_ATTEMPTS", 5, whole=True)),
        state_backoff_seconds=_number(env, "AFTERSHOCK_STATE_BACKOFF_SECONDS", 1.0),
        spool_dir=Path(spool) if spool else None,
        http=_http_limits(env),
        spread_renders=int(_number(env, "AFTERSHOCK_SPREAD_RENDERS", 0, whole=True)),
    )


def _http_limits(env: Mapping[str, str]) -> HttpLimits:
    return HttpLimits(
        header_timeout_seconds=_number(env, "AFTERSHOCK_HEADER_TIMEOUT_SECONDS", 10.0),
        body_timeout_seconds=_number(env, "AFTERSHOCK_BODY_TIMEOUT_SECONDS", 30.0),
        keep_alive_seconds=int(_number(env, "AFTERSHOCK_KEEP_ALIVE_SECONDS", 5, whole=True)),
        max_connections=int(_number(env, "AFTERSHOCK_MAX_CONNECTIONS", 200, whole=True)),
    )


def _number(env: Mapping[str, str], name: str, default: float, *, whole: bool = False) -> float:
    """A positive number from the environment; ConfigError naming the variable otherwise."""
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(int(text)) if whole else float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        kind = "a whole number" if whole else "a number"
        raise ConfigError(
            f"{name}={text!r} is not {kind} above 0", hint=f"unset it for {default:g}"
        )
    return value
