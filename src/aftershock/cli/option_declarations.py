"""The click declarations of the options that choose and run a review, shared by every command that
runs one, and of the review-state options of `aftershock review`.

    @click.command("x")
    @review_options
    @click.pass_context
    def x_command(ctx): review = run_from_options(review_settings(ctx), progress=True)

The options keep their values in the click context (`expose_value=False`), so commands add their own
options freely; `aftershock.cli.options` reads them back (`review_settings`, `state_settings`) through
`given_review_options` and `given_state_options`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from aftershock.model.state_mode import DEFAULT_LOCK_TIMEOUT_SECONDS
from aftershock.render.budget import DEFAULT_DEADLINE_SECONDS, DEFAULT_MAX_REVIEW_RENDERS
from aftershock.render.limits import DEFAULT_MAX_MEMORY_MIB, MIN_MEMORY_MIB

_META = "aftershock.review_options"
_STATE_META = "aftershock.state_options"
Command = TypeVar("Command", bound=Callable[..., Any])


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
        help="Folder of the persistent render cache, or `off` (equal renders of one review are still "
        "made once, in memory) [default: $XDG_CACHE_HOME/aftershock/renders "
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


def review_options(command: Command) -> Command:
    """Adds the review options to a click command (in this order in --help)."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def given_review_options(ctx: click.Context) -> dict[str, Any]:
    """The review options of the running command as given, by parameter name."""
    return ctx.meta.get(_META, {})


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


def given_state_options(ctx: click.Context) -> dict[str, Any]:
    """The review-state options of the running command as given, by parameter name."""
    return ctx.meta.get(_STATE_META, {})
