"""`aftershock charts fetch`: fill the chart cache with the locked versions of remote dependencies and
the charts releases install from outside the repository (pipeline/chart_fetch.py), from registry
mirrors where given (`--mirror HOST=URL`); thin: options in, one line per archive out."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from aftershock.cli.paths import check_folder
from aftershock.model.errors import EXIT_PARTIAL, HELP
from aftershock.pipeline.chart_fetch import MAX_FETCHED, FetchRequest, fetch_charts
from aftershock.render.external.mirrors import parse_mirror


@click.group("charts", epilog=HELP)
def charts_group() -> None:
    """Charts from outside the repository: the chart cache a review renders them from."""


@charts_group.command("fetch", epilog=HELP)
@click.option(
    "--repo",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=".",
    show_default=True,
    help="The git repository whose Chart.lock files and releases name the charts.",
)
@click.option(
    "--ref",
    "refs",
    multiple=True,
    default=("HEAD",),
    show_default=True,
    help="A commit whose charts and releases to read; repeat it for a pull request's base and head.",
)
@click.option(
    "--chart-cache",
    "cache",
    default=None,
    help="The folder to fetch into (default: chart_cache: of .aftershock.yaml).",
)
@click.option(
    "--max-charts",
    type=click.IntRange(min=1),
    default=MAX_FETCHED,
    show_default=True,
    help="At most this many archives are downloaded.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    help="Seconds per HTTP request.",
)
@click.option(
    "--plain-http",
    is_flag=True,
    help="Reach OCI registries and mirrors over plain http (always so on loopback).",
)
@click.option(
    "--mirror",
    "mirrors",
    multiple=True,
    metavar="HOST=URL",
    help="Download the charts of registry or chart repository HOST from the mirror at URL "
    "(e.g. ghcr.io=https://harbor.example/ghcr); they are cached as if from HOST. Repeatable.",
)
@click.argument("charts", nargs=-1)
def fetch_command(
    repo: Path,
    refs: tuple[str, ...],
    cache: str | None,
    max_charts: int,
    timeout: float,
    plain_http: bool,
    mirrors: tuple[str, ...],
    charts: tuple[str, ...],
) -> None:
    """Download the version each Chart.lock pins of every remote dependency that is neither vendored,
    nor in the repository at that version, nor in the chart cache, and the chart each HelmRelease
    (HelmRepository or chartRef OCIRepository) or Argo CD Application installs from outside the
    repository; check each against the digest the chart repository's index.yaml (an OCI registry's
    manifest) records. A chart whose host has a --mirror is downloaded from the mirror, checked and
    cached as from its own repository. CHARTS limits it to those chart folders' dependencies."""
    folder = check_folder(cache, "--chart-cache") if cache else None
    mirrored = tuple(parse_mirror(m, plain_http) for m in mirrors)
    request = FetchRequest(repo, refs, folder, charts, max_charts, timeout, plain_http, mirrored)
    where, results = fetch_charts(request)
    for result in results:
        wanted = ", ".join(result.wanted_by)
        name = f"{result.chart.id} {result.chart.version} (for {wanted})"
        if result.skipped:
            click.echo(f"not fetched: {name}: {result.skipped}")
        else:
            checked = "digest checked" if result.digest else "no digest in index.yaml to check"
            via = f" from mirror {result.via}" if result.via else ""
            click.echo(f"fetched: {name}{via} into {where} ({checked})")
    if not results:
        click.echo(
            f"nothing to fetch: every locked dependency and release chart is vendored, here or in {where}"
        )
    if any(r.skipped for r in results):
        sys.exit(EXIT_PARTIAL)  # what was fetched is in the cache; the rest is listed
