"""The `helm` binary backend: `helm template` in an isolated Helm home, split back per template.

Each render runs `helm template [flags] -- <release> <chart_dir>` with HELM_PLUGINS and Helm's
config/cache/data homes in an empty folder of our own (no plugin, repository or registry setting
of the user's applies), never with `--post-renderer` or `--dependency-update`. `--include-crds`
is not passed because the SDK backend does not return `crds/` files either. The output is split
by its `# Source:` comments into `{template path: text}` like the SDK backend's; unlike it,
NOTES.txt, partials and templates rendering to nothing are absent (Helm drops them), documents
of one template are in Helm's install order, and `RenderRequest.revision` is not applied
(`helm template` has no flag for it: the release revision is always 1).

A request with a cluster snapshot is rendered as any other when no template of the chart (its
subcharts and libraries included) calls `lookup`: the snapshot cannot change its output. When one
does, the outcome is an error saying so: `helm template` reaches a cluster only with
`--dry-run=server`, which also discovers capabilities and validates every object against the API
server, more than `render.lookup.kubeapi` serves, so only the SDK backend renders `lookup` against a snapshot.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from aftershock.model.errors import ConfigError, RenderError
from aftershock.render.helm.pool import dispatch
from aftershock.render.helm.process_bounds import go_memory_env, resident_bytes
from aftershock.render.helm.values import values_error, values_json
from aftershock.render.interface import (
    ClosingRenderer,
    ProgressCallback,
    RenderOutcome,
    RenderRequest,
)
from aftershock.render.limits import (
    DEFAULT_MAX_MEMORY_MIB,
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_TIMEOUT_SECONDS,
    Deadline,
    check_limits,
    memory_error,
    output_size,
    oversize_error,
    timeout_error,
)
from aftershock.render.schemas.schema_reach import folder_schema_refusal

_LOOKUP_CALL = re.compile(r"\{\{[^}]*\blookup\b", re.DOTALL)
LOOKUP_UNSUPPORTED = (
    "the chart calls `lookup` and a cluster snapshot was given, which the helm binary "
    "backend cannot serve to it; render with the SDK backend (--renderer sdk)"
)
_SOURCE_HEADER = re.compile(r"^---\n# Source: ([^\n]*)\n", re.MULTILINE)
_POLL_SECONDS = 0.05
_RUNAWAY_SLACK_BYTES = 1 << 20  # headers Helm adds on top of the manifests themselves


def split_template_output(output: str) -> dict[str, str]:
    """`helm template` output as `{template path: its documents joined by ---}`."""
    documents: dict[str, list[str]] = {}
    headers = list(_SOURCE_HEADER.finditer(output))
    for header, following in zip(headers, [*headers[1:], None]):
        end = following.start() if following is not None else len(output)
        body = output[header.end() : end]
        documents.setdefault(header.group(1), []).append(body[:-1] if body.endswith("\n") else body)
    return {path: "\n---\n".join(parts) + "\n" for path, parts in documents.items()}


def helm_error_text(stderr: str) -> str:
    """Helm's error from its stderr: from the `Error: ` line on, without that prefix and hints."""
    lines = stderr.strip().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Error: ")), None)
    if start is None:
        meaningful = [line.strip() for line in lines if line.strip()]
        return meaningful[-1] if meaningful else "helm failed without a message"
    kept = [lines[start][len("Error: ") :], *lines[start + 1 :]]
    return "\n".join(line for line in kept if not line.startswith("Use --debug flag")).strip()


def calls_lookup(chart_dir: str) -> bool:
    """Whether a file of the chart folder (symlinked subcharts and libraries followed) may call
    `lookup` inside an action; a subchart archive may, as its files are not read here."""
    for folder, _, names in os.walk(chart_dir, followlinks=True):
        for name in names:
            if name.endswith((".tgz", ".tar.gz")):
                return True
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as handle:
                    if _LOOKUP_CALL.search(handle.read()):
                        return True
            except OSError:
                continue
    return False


def _template_argv(helm: str, request: RenderRequest, values_path: str) -> list[str]:
    argv = [helm, "template", f"--namespace={request.namespace}", f"--values={values_path}"]
    if request.kube_version:
        argv.append(f"--kube-version={request.kube_version}")
    argv.extend(f"--api-versions={api_version}" for api_version in request.api_versions)
    if request.is_upgrade:
        argv.append("--is-upgrade")
    return [*argv, "--", request.release_name, os.fspath(request.chart_dir)]


class HelmBinaryRenderer(ClosingRenderer):
    """Renders with an installed `helm` binary, `workers` renders at a time (default min(CPUs, 4)).

    Raises ConfigError at construction when `helm_path` is not an executable found on PATH.
    """

    name = "helm-binary"

    def __init__(
        self,
        helm_path: str = "helm",
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        workers: int | None = None,
        max_memory_mib: int = DEFAULT_MAX_MEMORY_MIB,
    ) -> None:
        """Each render is bounded by `timeout_seconds`, `max_output_bytes` and `max_memory_mib` of
        resident memory (polled, so a burst between two polls can pass it briefly)."""
        check_limits(timeout_seconds, max_output_bytes, max_memory_mib)
        found = shutil.which(helm_path)
        if found is None:
            raise ConfigError(
                "helm binary not found",
                where=helm_path,
                hint="install helm or pass the path of the helm executable",
            )
        self._helm = found
        self._timeout_seconds = timeout_seconds
        self._max_output_bytes = max_output_bytes
        self._max_memory_mib = max_memory_mib
        default_lanes = min(os.cpu_count() or 1, 4)
        self._lanes = workers if workers is not None and workers > 0 else default_lanes
        self._home: str | None = None
        self._home_lock = threading.Lock()
        self._version: str | None = None

    def _isolated_env(self) -> tuple[str, dict[str, str]]:
        """(home, env): this environment less HELM_* and KUBECONFIG, Helm's homes in our folder."""
        with self._home_lock:
            if self._home is None:
                self._home = tempfile.mkdtemp(prefix="aftershock-helm-home-")
            home = self._home
        env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith("HELM_") and name != "KUBECONFIG"
        }
        for variable, sub in (
            ("HELM_PLUGINS", "plugins"),
            ("HELM_CONFIG_HOME", "config"),
            ("HELM_CACHE_HOME", "cache"),
            ("HELM_DATA_HOME", "data"),
        ):
            os.makedirs(os.path.join(home, sub), exist_ok=True)
            env[variable] = os.path.join(home, sub)
        env["HELM_REGISTRY_CONFIG"] = os.path.join(home, "config", "registry.json")
        env["HELM_REPOSITORY_CONFIG"] = os.path.join(home, "config", "repositories.yaml")
        env["HELM_REPOSITORY_CACHE"] = os.path.join(home, "cache", "repository")
        env["KUBECONFIG"] = os.path.join(home, "no-kubeconfig")
        return home, env | go_memory_env(self._max_memory_mib)

    @property
    def version(self) -> str:
        """E.g. "helm v3.15.2+g1a500d5", from `helm version --short` (asked once)."""
        if self._version is None:
            try:
                result = subprocess.run(
                    [self._helm, "version", "--short"],
                    capture_output=True,
                    text=True,
                    env=self._isolated_env()[1],
                    timeout=self._timeout_seconds,
                    stdin=subprocess.DEVNULL,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise RenderError("cannot run helm", where=self._helm, hint=str(exc)) from None
            if result.returncode != 0:
                raise RenderError(
                    f"helm version failed: {helm_error_text(result.stderr)}", where=self._helm
                )
            self._version = f"helm {result.stdout.strip()}"
        return self._version

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline: Deadline | None = None,
    ) -> list[RenderOutcome]:
        """Render every request, several `helm template` runs at a time; outcomes in order."""
        return dispatch(
            requests, [functools.partial(self._render, deadline=deadline)] * self._lanes, progress
        )

    def _render(self, request: RenderRequest, deadline: Deadline | None = None) -> RenderOutcome:
        started = time.monotonic()
        if deadline is not None and deadline.passed():
            return RenderOutcome(request, error=deadline.reason)
        if request.cluster is not None and calls_lookup(os.fspath(request.chart_dir)):
            return RenderOutcome(request, error=LOOKUP_UNSUPPORTED)
        refused = folder_schema_refusal(Path(request.chart_dir))
        if refused is not None:
            return RenderOutcome(request, error=refused)
        home, env = self._isolated_env()
        with tempfile.TemporaryDirectory(prefix="render-", dir=home) as scratch:
            values_path = os.path.join(scratch, "values.json")
            try:
                encoded = values_json(request.values)
            except (TypeError, ValueError) as exc:
                return RenderOutcome(request, error=values_error(exc))
            with open(values_path, "w", encoding="utf-8") as handle:
                handle.write(encoded)
            argv = _template_argv(self._helm, request, values_path)
            error, output = self._run_bounded(argv, env, scratch, deadline)
        seconds = time.monotonic() - started
        if error is None:
            manifests = split_template_output(output)
            if output_size(manifests) > self._max_output_bytes:
                error = oversize_error(self._max_output_bytes)
            else:
                return RenderOutcome(request, manifests=manifests, seconds=seconds)
        return RenderOutcome(request, error=error, seconds=seconds)

    def _run_bounded(
        self,
        argv: list[str],
        env: dict[str, str],
        scratch: str,
        review_deadline: Deadline | None,
    ) -> tuple[str | None, str]:
        """Run helm with stdout/stderr in files; (error, stdout). Kills it on a breach."""
        deadline = time.monotonic() + self._timeout_seconds
        runaway = 2 * self._max_output_bytes + _RUNAWAY_SLACK_BYTES
        with (
            open(os.path.join(scratch, "out"), "w+b") as out,
            open(os.path.join(scratch, "err"), "w+b") as err,
        ):
            process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=scratch
            )
            error: str | None = None
            while process.poll() is None:
                if time.monotonic() > deadline:
                    error = timeout_error(self._timeout_seconds)
                elif review_deadline is not None and review_deadline.passed():
                    error = review_deadline.reason
                elif os.fstat(out.fileno()).st_size > runaway:
                    error = oversize_error(self._max_output_bytes)
                elif (resident_bytes(process.pid) or 0) > self._max_memory_mib * 2**20:
                    error = memory_error(self._max_memory_mib)
                if error is not None:
                    process.kill()
                    process.wait()
                    return error, ""
                time.sleep(_POLL_SECONDS)
            out.seek(0)
            err.seek(0)
            stdout = out.read().decode("utf-8", "replace")
            stderr = err.read().decode("utf-8", "replace")
        if process.returncode != 0:
            return helm_error_text(stderr), ""
        return None, stdout

    def close(self) -> None:
        """Remove the isolated Helm home (made again if the renderer is used after)."""
        with self._home_lock:
            if self._home is not None:
                shutil.rmtree(self._home, ignore_errors=True)
                self._home = None
