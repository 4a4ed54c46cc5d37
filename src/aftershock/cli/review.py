"""`aftershock review`: options in, one review out in the chosen format."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from aftershock.cli.options import review_options, review_settings, run_from_options
from aftershock.report.canonical import review_document
from aftershock.report.formats import OutputFormat, write_report

EXIT_PARTIAL = 3


@click.command("review")
@review_options
@click.option("--format", "fmt", type=click.Choice([f.value for f in OutputFormat]), default="terminal", show_default=True)
@click.option("--output", "output", type=click.Path(dir_okay=False), default=None, help="Write the report to FILE.")
@click.pass_context
def review_command(ctx: click.Context, fmt: str, output: str | None) -> None:
    """Review base..head: commits, files, units, rendered objects that changed, and what they reach."""
    out_format = OutputFormat(fmt)
    review = run_from_options(review_settings(ctx), progress=out_format is not OutputFormat.JSON)
    doc = review_document(review)
    _write(doc, out_format, output)
    report_gaps(doc)


def report_gaps(doc: dict) -> None:
    """One stderr line per part not reviewed, and exit status 3 when there is any."""
    for item in doc["not_reviewed"]:
        side = f" at {item['side']}" if item["side"] else ""
        click.echo(f"aftershock: not reviewed: {item['part']}{side}: {item['reason']}", err=True)
    if doc["not_reviewed"]:
        sys.exit(EXIT_PARTIAL)


def _write(doc: dict, fmt: OutputFormat, output: str | None) -> None:
    if output is None:
        color = fmt is OutputFormat.TERMINAL and sys.stdout.isatty()
        write_report(doc, fmt, sys.stdout, color=color)
        return
    tmp = Path(output + ".tmp")
    with tmp.open("w", encoding="utf-8") as stream:
        write_report(doc, fmt, stream, color=False)
    tmp.replace(output)
