"""The command-line options that choose and run a review, shared by every command that runs one.

    @click.command("x")
    @review_options
    @click.pass_context
    def x_command(ctx): review = run_from_options(review_settings(ctx), progress=True)

The options keep their values in the click context, so commands add their own options freely and read
these through `review_settings`.
"""

from __future__ import annotations

import os
import sys
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

import click

from aftershock.cli.progress import render_progress
from aftershock.pipeline import ReviewRequest, ReviewResult, open_renderer, review_change

_META = "aftershock.review_options"
Command = TypeVar("Command", bound=Callable[..., Any])


@dataclass(frozen=True)
class ReviewSettings:
    """What to review and how to render it, as the options gave it."""

    request: ReviewRequest
    renderer: str
    helm_binary: str
    render_timeout: float
    workers: int | None


def _keep(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    ctx.meta.setdefault(_META, {})[param.name] = value
    return value


_OPTIONS = (
    click.option("--repo", "repo", default=".", show_default=True, help="Repository to review.",
                 expose_value=False, callback=_keep),
    click.option("--base", "base", default=None, help="Base ref [default: merge-base of head with the default branch].",
                 expose_value=False, callback=_keep),
    click.option("--head", "head", default="HEAD", show_default=True, help="Head ref.",
                 expose_value=False, callback=_keep),
    click.option("--renderer", "renderer", type=click.Choice(["sdk", "helm"]), default="sdk", show_default=True,
                 help="sdk: embedded Helm (helm-python-sdk); helm: a helm binary.", expose_value=False, callback=_keep),
    click.option("--helm-binary", "helm_binary", default="helm", show_default=True,
                 help="The helm binary for --renderer helm.", expose_value=False, callback=_keep),
    click.option("--release-name", "release_name", default="release", show_default=True,
                 expose_value=False, callback=_keep),
    click.option("--namespace", "namespace", default="default", show_default=True, expose_value=False, callback=_keep),
    click.option("--kube-version", "kube_version", default=None,
                 help="Kubernetes version for .Capabilities, e.g. v1.30.0.", expose_value=False, callback=_keep),
    click.option("--max-file-size", "max_file_size", type=click.IntRange(min=1), default=5 * 2**20, show_default=True,
                 help="Bytes.", expose_value=False, callback=_keep),
    click.option("--render-timeout", "render_timeout", type=click.FloatRange(min=0.1), default=60.0,
                 show_default=True, help="Seconds per render.", expose_value=False, callback=_keep),
    click.option("--max-scenarios", "max_scenarios", type=click.IntRange(min=1), default=6, show_default=True,
                 help="Values scenarios rendered per chart, the default one included.",
                 expose_value=False, callback=_keep),
    click.option("--workers", "workers", type=click.IntRange(min=1), default=None,
                 help="Render workers [default: CPU count, at most 4].", expose_value=False, callback=_keep),
    click.option("--config", "config_file", type=click.Path(dir_okay=False, exists=True), default=None,
                 help="Configuration file [default: .aftershock.yaml as it is at the base ref].",
                 expose_value=False, callback=_keep),
)


def review_options(command: Command) -> Command:
    """Adds the review options to a click command (in this order in --help)."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def review_settings(ctx: click.Context) -> ReviewSettings:
    """The review options of the running command, read back from its context."""
    given = ctx.meta.get(_META, {})
    request = ReviewRequest(
        repo=Path(given["repo"]), base=given["base"], head=given["head"], release_name=given["release_name"],
        namespace=given["namespace"], kube_version=given["kube_version"], max_file_bytes=given["max_file_size"],
        max_scenarios=given["max_scenarios"],
        config_file=Path(given["config_file"]) if given["config_file"] else None,
    )
    return ReviewSettings(request, given["renderer"], given["helm_binary"], given["render_timeout"], given["workers"])


def run_from_options(settings: ReviewSettings, *, progress: bool) -> ReviewResult:
    """Runs the review, with a progress bar on stderr when asked for and stderr is a terminal outside CI."""
    show = progress and sys.stderr.isatty() and not os.environ.get("CI")
    with open_renderer(settings.renderer, helm_binary=settings.helm_binary, timeout_seconds=settings.render_timeout,
                       workers=settings.workers) as backend:
        with (render_progress() if show else nullcontext(None)) as callbacks:
            return review_change(settings.request, backend, callbacks)
