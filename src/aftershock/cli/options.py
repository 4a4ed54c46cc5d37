"""The command-line options that choose and run a review, shared by every command that runs one.

    @click.command("x")
    @review_options
    @click.pass_context
    def x_command(ctx): review = run_from_options(review_settings(ctx), progress=True)

The options keep their values in the click context, so commands add their own options freely and read
these through `review_settings`. `state_options` adds the review-state options (`--state`, `--target`,
`--since-last`, `--full`, ...) that `aftershock review` reads through `state_settings`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from aftershock.cli.paths import check_folder, check_state_location
from aftershock.cli.progress import render_progress
from aftershock.errors import ConfigError
from aftershock.ingest.git import GitRepository
from aftershock.ingest.synthetic import staged_commit
from aftershock.pipeline import (
    RenderCallbacks,
    ReviewRequest,
    ReviewResult,
    open_renderer,
    review_change,
)
from aftershock.pipeline.config_defaults import config_at_base, with_config_defaults
from aftershock.pipeline.state import StateOptions
from aftershock.private_files import private_folder
from aftershock.render.budget import DEFAULT_DEADLINE_SECONDS, DEFAULT_MAX_REVIEW_RENDERS
from aftershock.render.cache import open_render_cache
from aftershock.render.interface import Renderer
from aftershock.render.limits import DEFAULT_MAX_MEMORY_MIB, MIN_MEMORY_MIB
from aftershock.state.mode import RequestedMode
from aftershock.state.store import DEFAULT_LOCK_TIMEOUT_SECONDS

_META = "aftershock.review_options"
_STATE_META = "aftershock.state_options"
RENDER_CACHE_OFF = "off"
_CACHE_GITIGNORE = (
    "# aftershock's review state and caches: local to this clone\n*\n!dismissals.yaml\n"
)
Command = TypeVar("Command", bound=Callable[..., Any])


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


def _keep(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    ctx.meta.setdefault(_META, {})[param.name] = value
    return value


_OPTIONS = (
    click.option(
        "--repo",
        "repo",
        default=".",
        show_default=True,
        help="Repository to review.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--base",
        "base",
        default=None,
        help="Base ref [default: merge-base of head with the default branch].",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--head",
        "head",
        default="HEAD",
        show_default=True,
        help="Head ref.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--staged",
        "staged",
        is_flag=True,
        default=False,
        expose_value=False,
        callback=_keep,
        help="Review the staged change (the index, as `git commit` would record it) against HEAD "
        "[--base default: HEAD]; nothing is committed.",
    ),
    click.option(
        "--renderer",
        "renderer",
        type=click.Choice(["sdk", "helm"]),
        default="sdk",
        show_default=True,
        help="sdk: embedded Helm (helm-python-sdk); helm: a helm binary.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--helm-binary",
        "helm_binary",
        default="helm",
        show_default=True,
        help="The helm binary for --renderer helm.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--release-name",
        "release_name",
        default=None,
        help="Release name for every chart [default: the chart's render context, else `release`].",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--namespace",
        "namespace",
        default=None,
        expose_value=False,
        callback=_keep,
        help="Namespace for every chart [default: the chart's render context, else `default`].",
    ),
    click.option(
        "--kube-version",
        "kube_version",
        default=None,
        help="Kubernetes version for .Capabilities, e.g. v1.30.0.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--max-file-size",
        "max_file_size",
        type=click.IntRange(min=1),
        default=5 * 2**20,
        show_default=True,
        help="Bytes.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--render-timeout",
        "render_timeout",
        type=click.FloatRange(min=0.1),
        default=60.0,
        show_default=True,
        help="Seconds per render.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--render-memory",
        "render_memory",
        type=click.IntRange(min=MIN_MEMORY_MIB),
        default=DEFAULT_MAX_MEMORY_MIB,
        show_default=True,
        help="MiB of memory per render process; a render that needs more is not reviewed.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--deadline",
        "deadline",
        type=click.FloatRange(min=1),
        default=DEFAULT_DEADLINE_SECONDS,
        show_default=True,
        help="Seconds for the whole review; renders, tests and probes left at the deadline are not reviewed.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--max-renders",
        "max_renders",
        type=click.IntRange(min=1),
        default=DEFAULT_MAX_REVIEW_RENDERS,
        show_default=True,
        help="Renders a review may schedule, tests and probes included; the excess is not reviewed.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--max-scenarios",
        "max_scenarios",
        type=click.IntRange(min=1),
        default=6,
        show_default=True,
        help="Values scenarios rendered per chart, the default one included.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--workers",
        "workers",
        type=click.IntRange(min=1),
        default=None,
        help="Render workers [default: CPU count, at most 4].",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--no-tests",
        "no_tests",
        is_flag=True,
        default=False,
        help="Do not run the affected charts' helm-unittest suites (the review then says tests were not run).",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--base-tests",
        "base_tests",
        type=click.Choice(["needed", "all"]),
        default="needed",
        help="Base outcomes to run: those the evidence needs (tests failing at head, edited suites,"
        " tests of templates the change removes from), or all, to find newly passing tests too.",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--config",
        "config_file",
        type=click.Path(dir_okay=False, exists=True),
        default=None,
        help="Configuration file [default: .aftershock.yaml as it is at the base ref].",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--render-cache",
        "render_cache",
        metavar="PATH|off",
        default=None,
        help="Folder of the persistent render cache, or `off` [default: $XDG_CACHE_HOME/aftershock/renders "
        "when XDG_CACHE_HOME is set, else .aftershock/render-cache in the repository].",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--chart-cache",
        "chart_cache",
        type=click.Path(file_okay=False),
        default=None,
        help="Folder of chart archives (<name>-<version>.tgz) for releases of charts from outside the repository "
        "[default: chart_cache: of .aftershock.yaml].",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--fetch-charts",
        "fetch_charts",
        is_flag=True,
        default=False,
        help="Download a missing external chart archive over HTTP (bounded; nothing in it is run).",
        expose_value=False,
        callback=_keep,
    ),
    click.option(
        "--render-cache-size",
        "render_cache_mib",
        type=click.IntRange(min=1),
        default=512,
        show_default=True,
        help="MiB the render cache may hold on disk; the least recently used renders go first.",
        expose_value=False,
        callback=_keep,
    ),
)


def _keep_state(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    ctx.meta.setdefault(_STATE_META, {})[param.name] = value
    return value


_STATE_OPTIONS = (
    click.option(
        "--state",
        "state",
        metavar="PATH|URL",
        default=None,
        help="Review-state database: a SQLite path or a postgresql:// URL [default: .aftershock/state.db in the repository].",
        expose_value=False,
        callback=_keep_state,
    ),
    click.option(
        "--no-state",
        "no_state",
        is_flag=True,
        help="Keep no review state: no lifecycle, no history.",
        expose_value=False,
        callback=_keep_state,
    ),
    click.option(
        "--target",
        "target",
        metavar="NAME",
        default=None,
        help="What is reviewed again and again: a pull request (`pr:42`, `42`) or a branch "
        "[default: the branch HEAD is on, else the --head ref].",
        expose_value=False,
        callback=_keep_state,
    ),
    click.option(
        "--since-last",
        "since_last",
        is_flag=True,
        help="Render only what changed since the last reviewed head; carry the rest forward.",
        expose_value=False,
        callback=_keep_state,
    ),
    click.option(
        "--full",
        "full",
        is_flag=True,
        help="Review the whole range again.",
        expose_value=False,
        callback=_keep_state,
    ),
    click.option(
        "--lock-timeout",
        "lock_timeout",
        type=click.FloatRange(min=0),
        default=DEFAULT_LOCK_TIMEOUT_SECONDS,
        show_default=True,
        help="Seconds to wait for another review of the same target.",
        expose_value=False,
        callback=_keep_state,
    ),
)


def state_options(command: Command) -> Command:
    """Adds the review-state options to a click command."""
    for option in reversed(_STATE_OPTIONS):
        command = option(command)
    return command


def state_settings(ctx: click.Context) -> StateOptions | None:
    """The review-state options of the running command; None with --no-state."""
    given = ctx.meta.get(_STATE_META, {})
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


def review_options(command: Command) -> Command:
    """Adds the review options to a click command (in this order in --help)."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def review_settings(ctx: click.Context) -> ReviewSettings:
    """The review options of the running command, read back from its context (paths checked)."""
    given = ctx.meta.get(_META, {})
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
    given = {name for name in ctx.meta.get(_META, {}) if ctx.get_parameter_source(name) in sources}
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
