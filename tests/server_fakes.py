"""A fake GitHub for the service's tests: the REST endpoints aftershock calls and git's smart HTTP, on loopback.

    fake = FakeGitHub.start(tmp_path / "git", app_id="42", public_key_pem=key.public_pem)
    fake.serve_repository("acme/platform", work_repo)     # a bare mirror served by `git http-backend`
    ... fake.url is both the API base URL and the git base URL ...
    fake.stop()

Every API call must carry an installation token the fake issued in exchange for a JWT signed with
the App's key (RS256, checked with the public key); git fetches must carry the same token in basic
auth. The fake enforces the API's own limits that aftershock must respect (50 annotations per
check-run request, 65,536 characters per comment, an output title and summary).
"""

from __future__ import annotations

import base64
import gzip
import itertools
import json
import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

BOT = {"login": "aftershock[bot]", "type": "Bot", "id": 9000}


@dataclass(frozen=True)
class AppKey:
    private_pem: str
    public_pem: str

    @classmethod
    def generate(cls) -> AppKey:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        private = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        public = (
            key.public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode()
        )
        return cls(private, public)


@dataclass
class CheckRun:
    id: int
    repository: str
    head_sha: str
    statuses: list[str]
    conclusion: str | None = None
    output: dict[str, Any] = field(default_factory=dict)
    annotation_batches: list[int] = field(default_factory=list)
    annotations: list[dict[str, Any]] = field(default_factory=list)
    name: str = "aftershock"
    external_id: str | None = None


@dataclass
class FakeState:
    pulls: dict[str, dict[str, Any]] = field(default_factory=dict)  # "owner/name#n" -> pull request
    permissions: dict[str, str] = field(default_factory=dict)  # "owner/name:login" -> permission
    comments: dict[str, list[dict[str, Any]]] = field(
        default_factory=dict
    )  # "owner/name#n" -> comments
    check_runs: dict[int, CheckRun] = field(default_factory=dict)
    sarifs: list[dict[str, Any]] = field(default_factory=list)
    tokens: dict[str, float] = field(default_factory=dict)  # token -> expiry
    exchanges: int = 0
    git_fetches: int = 0
    calls: list[str] = field(default_factory=list)
    slow_answers: list[float] = field(
        default_factory=list
    )  # seconds to wait before answering the next check-run PATCHes
    slow_creates: list[float] = field(
        default_factory=list
    )  # seconds to wait before answering the next check-run POSTs (the run exists meanwhile)
    unavailable_answers: int = (
        0  # the next API calls (token exchanges too) that answer 503, as GitHub does when down
    )


class FakeGitHub:
    def __init__(
        self, git_root: Path, app_id: str, public_key_pem: str, token_lifetime: float = 3600.0
    ) -> None:
        self.git_root = git_root
        self.app_id = app_id
        self.public_key_pem = public_key_pem
        self.token_lifetime = token_lifetime
        self.state = FakeState()
        self.lock = threading.RLock()
        self._ids = itertools.count(1000)
        self._server: ThreadingHTTPServer | None = None

    @classmethod
    def start(
        cls, git_root: Path, app_id: str, public_key_pem: str, token_lifetime: float = 3600.0
    ) -> FakeGitHub:
        fake = cls(git_root, app_id, public_key_pem, token_lifetime)
        git_root.mkdir(parents=True, exist_ok=True)
        handler = type("Handler", (_Handler,), {"fake": fake})
        fake._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        fake._server.daemon_threads = True
        threading.Thread(target=fake._server.serve_forever, daemon=True).start()
        return fake

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def next_id(self) -> int:
        return next(self._ids)

    # -- set-up ---------------------------------------------------------------------------------
    def serve_repository(self, full_name: str, work_repo: Path) -> None:
        """Mirror `work_repo` (all refs) as the bare repository `full_name`.git, again after each call."""
        bare = self.git_root / f"{full_name}.git"
        env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
        if not bare.exists():
            bare.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True, env=env)
        subprocess.run(
            [
                "git",
                "--git-dir",
                str(bare),
                "fetch",
                "-q",
                "--force",
                str(work_repo),
                "+refs/*:refs/*",
            ],
            check=True,
            env=env,
        )

    def set_pull(
        self, full_name: str, number: int, head_sha: str, base_sha: str, state: str = "open"
    ) -> dict[str, Any]:
        pull = {
            "number": number,
            "state": state,
            "draft": False,
            "head": {"sha": head_sha, "ref": f"pr-{number}"},
            "base": {"sha": base_sha, "ref": "main"},
            "commits": 1,
        }
        with self.lock:
            self.state.pulls[f"{full_name}#{number}"] = pull
        return pull

    def set_permission(self, full_name: str, login: str, permission: str) -> None:
        with self.lock:
            self.state.permissions[f"{full_name}:{login}"] = permission

    # -- inspection -----------------------------------------------------------------------------
    def comments_on(self, full_name: str, number: int) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(c) for c in self.state.comments.get(f"{full_name}#{number}", [])]

    def runs_for(self, head_sha: str) -> list[CheckRun]:
        with self.lock:
            return [r for r in self.state.check_runs.values() if r.head_sha == head_sha]

    def add_comment(
        self,
        full_name: str,
        number: int,
        body: str,
        user: dict[str, Any],
        app_id: str | None = None,
    ) -> dict[str, Any]:
        comment: dict[str, Any] = {"id": self.next_id(), "body": body, "user": user}
        if app_id is not None:  # as GitHub marks a comment an App's installation token wrote
            comment["performed_via_github_app"] = {"id": int(app_id), "slug": f"app-{app_id}"}
        with self.lock:
            self.state.comments.setdefault(f"{full_name}#{number}", []).append(comment)
        return comment


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = bytearray()
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _dispatch(self, method: str) -> None:
        parts = urlsplit(self.path)
        body = self._read_body()
        if ".git/" in parts.path:
            self._git(method, parts.path, parts.query, body)
            return
        try:
            status, payload, headers = _api(
                self.fake, method, parts.path, parse_qs(parts.query), body, self.headers
            )
        except Exception as error:  # a bug in the fake must show, not hang the client
            status, payload, headers = 500, {"message": f"fake failed: {error!r}"}, {}
        self._send(
            status, json.dumps(payload).encode(), {"Content-Type": "application/json", **headers}
        )

    def _send(self, status: int, data: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _git(self, method: str, path: str, query: str, body: bytes) -> None:
        if not _git_authorised(self.fake, self.headers.get("Authorization", "")):
            self._send(
                401,
                b"unauthorised",
                {"WWW-Authenticate": 'Basic realm="fake"', "Content-Type": "text/plain"},
            )
            return
        with self.fake.lock:
            self.fake.state.git_fetches += method == "POST"
        env = {
            "PATH": os.environ["PATH"],
            "GIT_PROJECT_ROOT": str(self.fake.git_root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": path,
            "REQUEST_METHOD": method,
            "QUERY_STRING": query,
            "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
        }
        done = subprocess.run(
            ["git", "http-backend"], input=body, env=env, capture_output=True, check=False
        )
        head, _, data = done.stdout.partition(b"\r\n\r\n")
        headers, status = {}, 200
        for line in head.decode("latin-1").split("\r\n"):
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.strip().split()[0])
            elif key:
                headers[key.strip()] = value.strip()
        self._send(status, data, headers)


def _git_authorised(fake: FakeGitHub, header: str) -> bool:
    if not header.startswith("Basic "):
        return False
    user, _, token = base64.b64decode(header[6:]).decode().partition(":")
    return user == "x-access-token" and _token_valid(fake, token)


def _token_valid(fake: FakeGitHub, token: str) -> bool:
    with fake.lock:
        expiry = fake.state.tokens.get(token)
    return expiry is not None and expiry > time.time()


def _api(
    fake: FakeGitHub,
    method: str,
    path: str,
    query: dict[str, list[str]],
    body: bytes,
    headers: Any,
) -> tuple[int, Any, dict[str, str]]:
    with fake.lock:
        fake.state.calls.append(f"{method} {path}")
        if fake.state.unavailable_answers > 0:
            fake.state.unavailable_answers -= 1
            return 503, {"message": "Service Unavailable"}, {}
    auth = headers.get("Authorization", "")
    if match := re.fullmatch(r"/app/installations/(\d+)/access_tokens", path):
        return _exchange(fake, auth)
    if not auth.startswith("Bearer ") or not _token_valid(fake, auth[7:]):
        return 401, {"message": "Bad credentials"}, {}
    data = json.loads(body) if body else None
    for pattern, handler in _ROUTES:
        if (match := re.fullmatch(pattern, path)) and handler.__name__.startswith(method.lower()):
            return handler(fake, *match.groups(), data=data, query=query)
    return 404, {"message": f"Not Found: {method} {path}"}, {}


def _exchange(fake: FakeGitHub, auth: str) -> tuple[int, Any, dict[str, str]]:
    try:
        claims = jwt.decode(auth.removeprefix("Bearer "), fake.public_key_pem, algorithms=["RS256"])
    except jwt.PyJWTError as error:
        return 401, {"message": f"A JSON web token could not be decoded: {error}"}, {}
    if str(claims.get("iss")) != fake.app_id or claims["exp"] - claims["iat"] > 600:
        return 401, {"message": "bad JWT claims"}, {}
    token = f"ghs_{fake.next_id()}"
    expiry = time.time() + fake.token_lifetime
    with fake.lock:
        fake.state.tokens[token] = expiry
        fake.state.exchanges += 1
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expiry))
    return 201, {"token": token, "expires_at": stamp, "permissions": {}}, {}


def get_pull(fake: FakeGitHub, repo: str, number: str, **_: Any) -> tuple[int, Any, dict[str, str]]:
    with fake.lock:
        pull = fake.state.pulls.get(f"{repo}#{number}")
    return (200, pull, {}) if pull else (404, {"message": "Not Found"}, {})


def get_permission(
    fake: FakeGitHub, repo: str, login: str, **_: Any
) -> tuple[int, Any, dict[str, str]]:
    with fake.lock:
        permission = fake.state.permissions.get(f"{repo}:{login}")
    if permission is None:
        return 404, {"message": f"{login} is not a user"}, {}
    return 200, {"permission": permission, "user": {"login": login}}, {}


def get_comments(
    fake: FakeGitHub, repo: str, number: str, query: dict[str, list[str]], **_: Any
) -> tuple[int, Any, dict[str, str]]:
    per_page = int(query.get("per_page", ["30"])[0])
    page = int(query.get("page", ["1"])[0])
    everything = fake.comments_on(repo, int(number))
    chunk = everything[(page - 1) * per_page : page * per_page]
    headers = {}
    if page * per_page < len(everything):
        headers["Link"] = (
            f'<{fake.url}/repos/{repo}/issues/{number}/comments?per_page={per_page}&page={page + 1}>; rel="next"'
        )
    return 200, chunk, headers


def post_comment(
    fake: FakeGitHub, repo: str, number: str, data: Any, **_: Any
) -> tuple[int, Any, dict[str, str]]:
    if len(data["body"]) > 65536:
        return 422, {"message": "body is too long (maximum is 65536 characters)"}, {}
    return 201, fake.add_comment(repo, int(number), data["body"], BOT, fake.app_id), {}


def patch_comment(
    fake: FakeGitHub, repo: str, comment_id: str, data: Any, **_: Any
) -> tuple[int, Any, dict[str, str]]:
    if len(data["body"]) > 65536:
        return 422, {"message": "body is too long (maximum is 65536 characters)"}, {}
    with fake.lock:
        for comments in fake.state.comments.values():
            for comment in comments:
                if comment["id"] == int(comment_id):
                    if (
                        str((comment.get("performed_via_github_app") or {}).get("id"))
                        != fake.app_id
                    ):
                        return 403, {"message": "not yours"}, {}
                    comment["body"] = data["body"]
                    comment["edits"] = comment.get("edits", 0) + 1
                    return 200, comment, {}
    return 404, {"message": "Not Found"}, {}


def post_check_run(
    fake: FakeGitHub, repo: str, data: Any, **_: Any
) -> tuple[int, Any, dict[str, str]]:
    run = CheckRun(
        fake.next_id(),
        repo,
        data["head_sha"],
        [data.get("status", "queued")],
        output=data.get("output") or {},
        name=data.get("name", ""),
        external_id=data.get("external_id"),
    )
    with fake.lock:
        fake.state.check_runs[run.id] = run
        delay = fake.state.slow_creates.pop(0) if fake.state.slow_creates else 0.0
    time.sleep(delay)  # created, but answered late: the caller may lose its database meanwhile
    return 201, {"id": run.id, "status": run.statuses[-1]}, {}


def get_commit_check_runs(
    fake: FakeGitHub, repo: str, sha: str, query: dict[str, list[str]], **_: Any
) -> tuple[int, Any, dict[str, str]]:
    """As GitHub lists a commit's check runs: by name, `filter=latest` (the default) keeping only the
    newest run of each name, a page at a time; every run here is the App's."""
    name = query.get("check_name", [None])[0]
    with fake.lock:
        runs = [
            r
            for r in fake.state.check_runs.values()
            if r.repository == repo and r.head_sha == sha and name in (None, r.name)
        ]
    runs.sort(key=lambda r: -r.id)
    if query.get("filter", ["latest"])[0] == "latest":
        newest: dict[str, CheckRun] = {}
        runs = [newest.setdefault(r.name, r) for r in runs if r.name not in newest]
    per_page = int(query.get("per_page", ["30"])[0])
    page = int(query.get("page", ["1"])[0])
    chunk = runs[(page - 1) * per_page : page * per_page]
    headers = {}
    if page * per_page < len(runs):
        rest = "&".join(f"{k}={v[0]}" for k, v in query.items() if k != "page")
        headers["Link"] = (
            f'<{fake.url}/repos/{repo}/commits/{sha}/check-runs?{rest}&page={page + 1}>; rel="next"'
        )
    listed = [
        {
            "id": r.id,
            "name": r.name,
            "head_sha": r.head_sha,
            "external_id": r.external_id or "",
            "status": r.statuses[-1],
            "conclusion": r.conclusion,
            "app": {"id": int(fake.app_id)},
        }
        for r in chunk
    ]
    return 200, {"total_count": len(runs), "check_runs": listed}, headers


def patch_check_run(
    fake: FakeGitHub, repo: str, run_id: str, data: Any, **_: Any
) -> tuple[int, Any, dict[str, str]]:
    output = data.get("output")
    if output is not None and not (output.get("title") and output.get("summary")):
        return 422, {"message": "output needs a title and a summary"}, {}
    annotations = (output or {}).get("annotations") or []
    if len(annotations) > 50:
        return 422, {"message": "at most 50 annotations per request"}, {}
    with fake.lock:
        run = fake.state.check_runs.get(int(run_id))
        if run is None:
            return 404, {"message": "Not Found"}, {}
        if data.get("status") and data["status"] != run.statuses[-1]:
            run.statuses.append(data["status"])
        run.conclusion = data.get("conclusion", run.conclusion)
        run.output = output or run.output
        run.annotation_batches.append(len(annotations))
        run.annotations += annotations
        delay = fake.state.slow_answers.pop(0) if fake.state.slow_answers else 0.0
    time.sleep(delay)  # applied, but answered late: a client that dies meanwhile never hears back
    return 200, {"id": run.id}, {}


def post_sarif(fake: FakeGitHub, repo: str, data: Any, **_: Any) -> tuple[int, Any, dict[str, str]]:
    sarif = json.loads(gzip.decompress(base64.b64decode(data["sarif"])))
    with fake.lock:
        fake.state.sarifs.append(
            {
                "repository": repo,
                "commit_sha": data["commit_sha"],
                "ref": data["ref"],
                "sarif": sarif,
            }
        )
    return 202, {"id": f"sarif-{fake.next_id()}"}, {}


def post_reaction(
    fake: FakeGitHub, repo: str, comment_id: str, **_: Any
) -> tuple[int, Any, dict[str, str]]:
    return 201, {"id": fake.next_id()}, {}


_REPO = r"/repos/([^/]+/[^/]+)"
_ROUTES = (
    (rf"{_REPO}/pulls/(\d+)", get_pull),
    (rf"{_REPO}/collaborators/([^/]+)/permission", get_permission),
    (rf"{_REPO}/issues/(\d+)/comments", get_comments),
    (rf"{_REPO}/issues/(\d+)/comments", post_comment),
    (rf"{_REPO}/issues/comments/(\d+)", patch_comment),
    (rf"{_REPO}/issues/comments/(\d+)/reactions", post_reaction),
    (rf"{_REPO}/check-runs", post_check_run),
    (rf"{_REPO}/commits/([0-9a-f]+)/check-runs", get_commit_check_runs),
    (rf"{_REPO}/check-runs/(\d+)", patch_check_run),
    (rf"{_REPO}/code-scanning/sarifs", post_sarif),
)
