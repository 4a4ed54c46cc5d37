"""`aftershock test [PATH...]`: run helm-unittest suites natively with the embedded Helm renderer."""

from __future__ import annotations

import sys

import click

from aftershock.helmtest.filepatterns import DEFAULT_PATTERN
from aftershock.testrun.cli_entry import run


@click.command("test")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, file_okay=False))
@click.option(
    "--junit",
    "junit",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write JUnit XML to FILE.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Render workers [default: CPU count, at most 4].",
)
@click.option(
    "--update-snapshots",
    "-u",
    is_flag=True,
    help="Write missing or changed snapshots, as `helm unittest -u`.",
)
@click.option(
    "--file",
    "-f",
    "files",
    multiple=True,
    metavar="PATTERN",
    help="Suite files, a glob relative to each chart (`**` for any depth), repeatable "
    "[default: tests/*_test.yaml].",
)
def test_command(
    paths: tuple[str, ...],
    junit: str | None,
    workers: int | None,
    update_snapshots: bool,
    files: tuple[str, ...],
) -> None:
    """Run every helm-unittest suite (tests/*_test.yaml, or -f) of the charts under PATH (default: here)."""
    code = run(
        list(paths) or ["."],
        junit=junit,
        workers=workers,
        color=sys.stdout.isatty(),
        out=sys.stdout,
        update_snapshots=update_snapshots,
        test_files=files or (DEFAULT_PATTERN,),
    )
    sys.exit(code)
