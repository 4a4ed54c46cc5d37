"""Reading the review options back into `ReviewSettings` (and the review-state options into
`StateOptions`), and running the review they describe with the renderer and render cache they choose.

The options themselves, and a command using them, are in `aftershock.cli.option_declarations`.
`aftershock review` also reads the review-state options (`--state`, `--target`, `--since-last`,
`--full`, ...) through `state_settings`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from aftershock.cli.option_declarations import given_review_options, given_state_options
from aftershock.cli.paths import check_folder, check_state_location
from aftershock.cli.progress import render_progress
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.synthetic import staged_commit
from aftershock.judgement.result import ReviewResult
from aftershock.model.errors import ConfigError
from aftershock.model.state_mode import RequestedMode, StateOptions
from aftershock.pipeline import (
    RenderCallbacks,
    ReviewRequest,
    open_renderer,
    review_change,
)
from aftershock.pipeline.config_defaults import config_at_base, with_config_defaults
from aftershock.render.caching.cache import open_render_cache
from aftershock.render.interface import Renderer
from aftershock.render.limits import DEFAULT_MAX_MEMORY_MIB
from aftershock.safety.private_files import private_folder

RENDER_CACHE_OFF = "off"
_CACHE_GITIGNORE = (
    "# aftershock's review state and caches: local to this clone\n*\n!dismissals.yaml\n"
)


@dataclass(frozen=True)
class ReviewSettings:
    """What to review and how to render it, as the options gave it."""

    request: ReviewRequest
    renderer: str
    helm_binary: str
    render_timeout: float
    workers: int | None
    render_cache: str | None = None  # a folder, "off", or None for the default folder
    render_cache_mib: int = 512
    render_memory_mib: int = DEFAULT_MAX_MEMORY_MIB


def state_settings(ctx: click.Context) -> StateOptions | None:
    """The review-state options of the running command; None with --no-state."""
    given = given_state_options(ctx)
    if given["since_last"] and given["full"]:
        raise ConfigError("--since-last and --full contradict each other", hint="pass one of them")
    if given["no_state"]:
        if given["since_last"] or given["state"]:
            raise ConfigError(
                "--no-state keeps no review to start from",
                hint="drop --no-state, or --state/--since-last",
            )
        return None
    check_state_location(given["state"])
    requested = (
        RequestedMode.SINCE_LAST
        if given["since_last"]
        else RequestedMode.FULL
        if given["full"]
        else RequestedMode.DEFAULT
    )
    return StateOptions(given["state"], given["target"], requested, given["lock_timeout"])


def review_settings(ctx: click.Context) -> ReviewSettings:
    """The review options of the running command, read back from its context (paths checked)."""
    given = given_review_options(ctx)
    if given["render_cache"] not in (None, RENDER_CACHE_OFF):
        check_folder(given["render_cache"], "--render-cache")
    base, head = _range(given, ctx)
    request = ReviewRequest(
        repo=Path(given["repo"]),
        base=base,
        head=head,
        release_name=given["release_name"],
        namespace=given["namespace"],
        kube_version=given["kube_version"],
        max_file_bytes=given["max_file_size"],
        max_scenarios=given["max_scenarios"],
        config_file=Path(given["config_file"]) if given["config_file"] else None,
        run_tests=not given["no_tests"],
        base_tests=given["base_tests"],
        deadline_seconds=given["deadline"],
        max_renders=given["max_renders"],
        chart_cache=Path(given["chart_cache"]) if given["chart_cache"] else None,
        fetch_charts=given["fetch_charts"],
    )
    explicit = _explicit(ctx)
    defaults = config_at_base(request).review
    request = with_config_defaults(request, defaults, explicit)
    timeout = (
        given["render_timeout"]
        if "render_timeout" in explicit or defaults.render_timeout is None
        else defaults.render_timeout
    )
    return ReviewSettings(
        request,
        given["renderer"],
        given["helm_binary"],
        timeout,
        given["workers"],
        given["render_cache"],
        given["render_cache_mib"],
        given["render_memory"],
    )


def _range(given: Mapping[str, Any], ctx: click.Context) -> tuple[str | None, str]:
    """--base and --head as given; with --staged, HEAD and a commit object of the index on it."""
    if not given["staged"]:
        return given["base"], given["head"]
    if ctx.get_parameter_source("head") is ParameterSource.COMMANDLINE:
        raise ConfigError(
            "--staged reviews the index as the head", hint="drop --head, or drop --staged"
        )
    return given["base"] or "HEAD", staged_commit(GitRepository.open(given["repo"]))


def _explicit(ctx: click.Context) -> frozenset[str]:
    """The review options the command line (or the environment) gave, by their ReviewRequest names:
    those win over the `review:` settings of the configuration."""
    sources = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    given = {
        name for name in given_review_options(ctx) if ctx.get_parameter_source(name) in sources
    }
    return frozenset("run_tests" if name == "no_tests" else name for name in given)


def run_from_options(settings: ReviewSettings, *, progress: bool) -> ReviewResult:
    """Runs the review, with a progress bar on stderr when asked for and stderr is a terminal outside CI."""
    with review_backend(settings, progress=progress) as (backend, callbacks):
        return review_change(settings.request, backend, callbacks)


@contextmanager
def review_backend(
    settings: ReviewSettings, *, progress: bool
) -> Iterator[tuple[Renderer, RenderCallbacks | None]]:
    """The renderer (behind the render cache unless it is off) and the progress callbacks, if shown."""
    show = progress and sys.stderr.isatty() and not os.environ.get("CI")
    folder = render_cache_folder(settings.render_cache, settings.request.repo)
    cache = (
        open_render_cache(folder, settings.render_cache_mib * 2**20) if folder is not None else None
    )
    with open_renderer(
        settings.renderer,
        helm_binary=settings.helm_binary,
        timeout_seconds=settings.render_timeout,
        workers=settings.workers,
        cache=cache,
        max_memory_mib=settings.render_memory_mib,
    ) as backend:
        with render_progress() if show else nullcontext(None) as callbacks:
            yield backend, callbacks


def render_cache_folder(
    given: str | None, repo: Path, environ: Mapping[str, str] = os.environ
) -> Path | None:
    """`--render-cache` as given (None for `off`); by default under $XDG_CACHE_HOME, else in the repository."""
    if given == RENDER_CACHE_OFF:
        return None
    if given:
        return Path(given).expanduser()
    if environ.get("XDG_CACHE_HOME"):
        return Path(environ["XDG_CACHE_HOME"]) / "aftershock" / "renders"
    folder = GitRepository.open(repo).root / ".aftershock"
    try:
        private_folder(folder)
        if not (folder / ".gitignore").exists():
            (folder / ".gitignore").write_text(_CACHE_GITIGNORE, encoding="utf-8")
    except OSError:
        return None  # a cache that cannot be written only costs time
    return folder / "render-cache"
